// Pure geometry of patch shapes, used to turn and mirror the patch in hand.
// The catalogue lists each patch's distinct orientations with their cells;
// rotating or flipping moves to the orientation whose cells match. Whether a
// placement is legal is never decided here: that comes from the server.

/** Move cells to the top-left and sort them in reading order. */
export function normalise(cells) {
  const top = Math.min(...cells.map((c) => c[0]));
  const left = Math.min(...cells.map((c) => c[1]));
  return cells
    .map(([r, c]) => [r - top, c - left])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** The cells turned a quarter clockwise: (r, c) -> (c, h - 1 - r). */
export function turnClockwise(cells) {
  const height = Math.max(...cells.map((c) => c[0])) + 1;
  return normalise(cells.map(([r, c]) => [c, height - 1 - r]));
}

/** The cells mirrored left-right: (r, c) -> (r, w - 1 - c). */
export function mirror(cells) {
  const width = Math.max(...cells.map((c) => c[1])) + 1;
  return normalise(cells.map(([r, c]) => [r, width - 1 - c]));
}

export function sameCells(a, b) {
  const x = normalise(a);
  const y = normalise(b);
  return x.length === y.length && x.every((cell, i) => cell[0] === y[i][0] && cell[1] === y[i][1]);
}

/** Index of the orientation of `patch` covering `cells` (any position), or -1. */
export function orientationIndex(patch, cells) {
  return patch.orientations.findIndex((o) => sameCells(o.cells, cells));
}

/** Orientation index after turning orientation `index` by `quarterTurns` (negative: anticlockwise). */
export function rotateIndex(patch, index, quarterTurns = 1) {
  let cells = patch.orientations[index].cells;
  const turns = ((quarterTurns % 4) + 4) % 4;
  for (let i = 0; i < turns; i++) cells = turnClockwise(cells);
  const found = orientationIndex(patch, cells);
  return found >= 0 ? found : index;
}

/** Orientation index after mirroring orientation `index` left-right. */
export function flipIndex(patch, index) {
  const found = orientationIndex(patch, mirror(patch.orientations[index].cells));
  return found >= 0 ? found : index;
}

/** Index of the orientation named `transform` (e.g. "R1"); names absent from the
 * catalogue (a symmetric patch lists only its distinct orientations) are
 * rebuilt from R0's cells. */
export function transformIndex(patch, transform) {
  const direct = patch.orientations.findIndex((o) => o.transform === transform);
  if (direct >= 0) return direct;
  const m = /^([RF])([0-3])$/i.exec(transform || "");
  if (!m) return -1;
  let cells = patch.orientations[0].cells;
  if (m[1].toUpperCase() === "F") cells = mirror(cells);
  for (let i = 0; i < Number(m[2]); i++) cells = turnClockwise(cells);
  return orientationIndex(patch, cells);
}
