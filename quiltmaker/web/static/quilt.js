// @ts-check
// A quilt board: 9x9 squares named a1..i9, built once and repainted in place
// (so keyboard focus on the board survives every new state).
import { el, patchColour } from "./common.js";
import { t } from "./i18n.js";
import { boardSize, squareName, ui } from "./store.js";

/** What a square holds: nothing, a patch's id, a special patch ("S") or a patch sewn before the game's start ("X"), as the server sends it. @typedef {number | "S" | "X" | null} Square */

/**
 * Build the board of `seat` inside `frame`.
 * Returns {board, squares: [[div x9] x9], overlay} where overlay holds the ghost,
 * the hint marks and the keyboard cursor (all positioned in board units).
 * @param {HTMLElement} frame
 * @param {0 | 1} seat
 * @returns {Pick<import("./page").QuiltNodes, "board" | "squares" | "overlay" | "seat">}
 */
export function buildQuilt(frame, seat) {
  const board = el("div", {
    class: "quilt-board",
    "data-testid": `quilt-${seat}`,
    "data-seat": seat,
    role: "grid",
    "aria-label": t("Quilt of player {seat}", { seat }),
    "aria-rowcount": boardSize(),
    "aria-colcount": boardSize(),
  });
  /** @type {HTMLElement[][]} */
  const squares = [];
  for (let r = 0; r < boardSize(); r++) {
    const row = el("div", { role: "row", class: "quilt-row", "aria-rowindex": r + 1 });
    squares.push([]);
    for (let c = 0; c < boardSize(); c++) {
      const name = squareName(r, c);
      const square = el("div", {
        class: "sq",
        role: "gridcell",
        "aria-colindex": c + 1,
        "data-square": name,
        "data-testid": `square-${seat}-${name}`,
        "data-row": r,
        "data-col": c,
        style: { gridRow: String(r + 1), gridColumn: String(c + 1) },
      });
      squares[r].push(square);
      row.append(square);
    }
    board.append(row);
  }
  const overlay = el("div", { class: "quilt-overlay", "aria-hidden": "true" });
  board.append(overlay);

  // Column letters above and row numbers to the left, as in the notation.
  const labels = ui.catalogue;
  const columns = el("div", { class: "quilt-cols", "aria-hidden": "true" }, (labels?.columns ?? []).map((c) => el("span", {}, c)));
  const rows = el("div", { class: "quilt-rows", "aria-hidden": "true" }, (labels?.rows ?? []).map((r) => el("span", {}, r)));
  frame.append(el("div", { class: "quilt-frame" }, el("span", { class: "quilt-corner" }), columns, rows, board));
  return { board, squares, overlay, seat };
}

/** What a square holds, for its label. @param {Square | undefined} value */
function describe(value) {
  if (value === null || value === undefined) return t("empty");
  if (value === "S") return t("special patch");
  if (value === "X") return t("covered");
  return t("patch {id}", { id: value });
}

/**
 * Paint the squares of `quilt` from `grid` (a row per board row, each square null | patch id | "S").
 * Patch outlines are drawn where a neighbour holds something else, so patches
 * stay distinguishable without relying on colour.
 * @param {Readonly<import("./page").QuiltNodes>} quilt
 * @param {readonly (readonly Square[])[] | undefined} grid none yet: every square empty
 */
export function paintQuilt(quilt, grid) {
  const size = boardSize();
  /** @type {(r: number, c: number) => Square | undefined} undefined off the board */
  const at = (r, c) => (r < 0 || c < 0 || r >= size || c >= size ? undefined : grid?.[r]?.[c] ?? null);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const square = quilt.squares[r][c];
      const value = at(r, c) ?? null; // on the board: never undefined
      square.dataset.value = value === null ? "" : String(value);
      square.classList.toggle("empty", value === null);
      square.classList.toggle("special", value === "S");
      square.classList.toggle("covered", value !== null);
      if (value === null) {
        square.style.background = "";
        square.style.boxShadow = "";
        square.textContent = "";
      } else {
        // A puzzle starts with quilts already sewn, whose patches it does not know: one plain fabric for them.
        square.style.background = value === "S" ? "" : value === "X" ? "var(--sewn-before, #c9c0ad)" : patchColour(value);
        const edge = [];
        // Every special patch is its own 1x1 patch: outline it on all sides.
        const same = (/** @type {Square | undefined} */ v) => v === value && value !== "S";
        if (!same(at(r - 1, c))) edge.push("inset 0 2px 0 var(--patch-edge)");
        if (!same(at(r + 1, c))) edge.push("inset 0 -2px 0 var(--patch-edge)");
        if (!same(at(r, c - 1))) edge.push("inset 2px 0 0 var(--patch-edge)");
        if (!same(at(r, c + 1))) edge.push("inset -2px 0 0 var(--patch-edge)");
        square.style.boxShadow = edge.length ? edge.join(", ") : "none";
        // A special patch is dark: outline it in light colour so it stays visible.
        if (value === "S") square.style.setProperty("--patch-edge", "rgba(255, 236, 170, 0.8)");
        else square.style.removeProperty("--patch-edge");
        square.textContent = value === "S" ? "★" : "";
      }
      square.setAttribute("aria-label", `${squareName(r, c)}: ${describe(value)}`);
    }
  }
}

/**
 * An element covering `cells` ([row, col] on the board), for ghosts and hint marks.
 * @param {readonly (readonly number[])[]} cells
 * @param {string} className
 * @param {Record<string, string>} [attrs]
 */
export function cellsOverlay(cells, className, attrs = {}) {
  const node = el("div", { class: className, ...attrs });
  const unit = 100 / boardSize();
  for (const [r, c] of cells) {
    node.append(
      el("span", {
        class: "overlay-cell",
        style: { top: `${r * unit}%`, left: `${c * unit}%`, width: `${unit}%`, height: `${unit}%` },
      }),
    );
  }
  return node;
}
