// @ts-check
// The evaluation graph of a finished game, and a spinner for what is still loading.
// server (GET /api/games/{id}/positions), so nothing here knows the rules.
import { el } from "./common.js";
import { number, t, tn } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * The evaluation graph: player 0's win probability after every ply.
 * `onPick(ply)` is called when the graph is clicked; `judgements` (the server's
 * marked moves) are drawn as marks on the line.
 * @param {readonly import("./contract").AnalysedPosition[]} positions every ply's, the start first
 * @param {number | null} current the ply shown
 * @param {string[]} names the players'
 * @param {(ply: number) => void} onPick
 * @param {readonly import("./contract").Judgement[]} [judgements]
 * @returns {SVGSVGElement}
 */
export function evalGraph(positions, current, names, onPick, judgements = []) {
  const width = 520;
  const height = 130;
  const pad = { left: 34, right: 8, top: 10, bottom: 18 };
  const plies = positions.length - 1;
  const x = (/** @type {number} */ ply) => pad.left + (plies > 0 ? (ply / plies) * (width - pad.left - pad.right) : 0);
  const y = (/** @type {number} */ p) => pad.top + (1 - p) * (height - pad.top - pad.bottom);

  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "eval-graph");
  svg.setAttribute("data-testid", "eval-graph");
  svg.setAttribute("role", "img");
  const last = positions[positions.length - 1];
  const shown = current === null ? undefined : positions[current];
  svg.setAttribute(
    "aria-label",
    tn(
      "Evaluation graph: the chance of {name} winning after each of {n} move; {shown} at the position shown, {last} at the end. Click to jump to a move.",
      "Evaluation graph: the chance of {name} winning after each of {n} moves; {shown} at the position shown, {last} at the end. Click to jump to a move.",
      plies,
      { name: names[0], shown: chance(shown?.win_probability_player0), last: chance(last?.win_probability_player0) },
    ),
  );
  /** @param {string} tag @param {Record<string, string | number>} attrs @param {string} [text] */
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  // Background bands: the top half favours player 0, the bottom half player 1.
  add("rect", { x: pad.left, y: y(1), width: width - pad.left - pad.right, height: y(0.5) - y(1), class: "band-0" });
  add("rect", { x: pad.left, y: y(0.5), width: width - pad.left - pad.right, height: y(0) - y(0.5), class: "band-1" });
  add("line", { x1: pad.left, x2: width - pad.right, y1: y(0.5), y2: y(0.5), class: "midline" });
  add("text", { x: pad.left - 4, y: y(1) + 8, class: "axis", "text-anchor": "end" }, "100%");
  add("text", { x: pad.left - 4, y: y(0.5) + 3, class: "axis", "text-anchor": "end" }, "50%");
  add("text", { x: pad.left - 4, y: y(0), class: "axis", "text-anchor": "end" }, "0%");
  add("text", { x: width - pad.right, y: height - 4, class: "axis", "text-anchor": "end" }, t("move {ply}", { ply: plies }));

  const points = positions
    .map((p, i) => (typeof p.win_probability_player0 === "number" ? `${x(i).toFixed(1)},${y(p.win_probability_player0).toFixed(1)}` : null))
    .filter(Boolean)
    .join(" ");
  add("polyline", { points, class: "eval-line" });
  // Marked moves: where the line falls for the player who moved.
  for (const j of judgements) {
    const p = positions[j.ply]?.win_probability_player0;
    if (typeof p === "number") add("circle", { cx: x(j.ply), cy: y(p), r: j.label === "blunder" ? 5 : 4, class: `eval-mark ${j.label}` });
  }
  // Drawn over the line, with a halo, so the curve never hides who is winning where.
  add("text", { x: pad.left + 4, y: y(1) + 9, class: "axis side-label label-0" }, `${t("{name} winning", { name: names[0] })} ↑`);
  add("text", { x: pad.left + 4, y: y(0) - 3, class: "axis side-label label-1" }, `${t("{name} winning", { name: names[1] })} ↓`);
  if (current !== null && current !== undefined && positions[current]) {
    add("line", { x1: x(current), x2: x(current), y1: pad.top, y2: height - pad.bottom, class: "eval-cursor" });
    const p = positions[current].win_probability_player0;
    if (typeof p === "number") add("circle", { cx: x(current), cy: y(p), r: 4, class: "eval-dot" });
  }
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const sx = ((event.clientX - box.left) / box.width) * width;
    const ratio = (sx - pad.left) / (width - pad.left - pad.right);
    onPick(Math.max(0, Math.min(plies, Math.round(ratio * plies))));
  });
  return svg;
}

/** @param {string} text what is loading */
export function spinner(text) {
  return el("p", { class: "loading" }, el("span", { class: "spinner", "aria-hidden": "true" }), ` ${text}`);
}

/** A chance to win as a percentage in the reader's language (an unknown one is even). @param {number | null | undefined} p */
function chance(p) {
  return number(Math.round((p ?? 0.5) * 100) / 100, { style: "percent" });
}
