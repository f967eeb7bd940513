// @ts-check
// Moves seen happening: the bought patch travels from the circle to its squares,
// the neutral token slides to its new place, a special patch flies from the time
// track to its square, the bonus tile goes to its owner, and the income paid pops
// up over each button space crossed. Only the drawing moves: every fact (which
// squares, which space, how many buttons) comes from the states. With the system's
// reduced-motion setting nothing moves.
import { el, find, patchColour } from "./common.js";
import { isMine, oneMoveLater, reducedMotion, squareName } from "./store.js";

const FLIGHT_MS = 520;

/**
 * What `capture` saw before the new state was drawn: the move, and where its pieces started.
 * @typedef {object} Motion
 * @property {import("./contract").LastMove} last
 * @property {DOMRect | null} patchFrom the bought patch in the circle (the other side's purchase only)
 * @property {DOMRect | null} neutralFrom
 * @property {DOMRect | null} specialFrom the time track's space the special patch came from
 * @property {number | null} bonusTo the seat that has just taken the bonus
 */

/**
 * Before a new state is drawn: where what will move is now. Returns what `play` needs,
 * or null when there is nothing to show (a first state, a jump of several moves, reduced motion).
 * @param {Readonly<import("./contract").GameState> | null} previous
 * @param {import("./contract").GameState} state
 * @returns {Motion | null}
 */
export function capture(previous, state) {
  const last = state.last_move;
  if (reducedMotion() || !previous || !last || !oneMoveLater(previous, state)) return null;
  const rect = (/** @type {HTMLElement | null} */ node) => node?.getBoundingClientRect() || null;
  return {
    last,
    // Your own patch is already where your hand put it; the other side's travels there.
    patchFrom: last.kind === "buy" && !isMine(last.player) ? rect(find(`#circle [data-patch="${last.patch}"] .shape`)) : null,
    neutralFrom: rect(find("[data-testid=neutral-token]")),
    specialFrom: last.kind === "special" && last.from_space !== null ? rect(find(`#track [data-space="${last.from_space}"]`)) : null,
    bonusTo: previous.bonus === -1 && state.bonus !== -1 && state.bonus !== null ? state.bonus : null,
  };
}

/** After the new state is drawn: play the motions `capture` prepared. @param {Motion | null} motion */
export function play(motion) {
  if (!motion) return;
  const { last } = motion;
  const target = cellsRect(last.player, last.cells);
  if (motion.patchFrom && target && last.patch !== null) fly(piece(last.cells, patchColour(last.patch)), motion.patchFrom, target, "flying-patch");
  if (motion.specialFrom && target) fly(piece(last.cells, "#3b2a1a"), motion.specialFrom, target, "flying-special");
  slide(find("[data-testid=neutral-token]"), motion.neutralFrom);
  for (const [space, buttons] of last.income_paid || []) popUp(find(`#track [data-space="${space}"]`), `+${buttons}`);
  if (motion.bonusTo !== null) {
    const badge = find(`#player-${motion.bonusTo} .tag.bonus`);
    const quilt = find(`[data-testid=quilt-${motion.bonusTo}]`);
    if (badge && quilt) slide(badge, quilt.getBoundingClientRect(), 900);
  }
}

/**
 * The screen rectangle covering these squares of a seat's quilt.
 * @param {number} seat
 * @param {readonly (readonly number[])[]} cells
 */
function cellsRect(seat, cells) {
  const rects = cells
    .map(([r, c]) => find(`[data-testid="square-${seat}-${squareName(r, c)}"]`)?.getBoundingClientRect())
    .filter((r) => !!r);
  if (!rects.length) return null;
  const left = Math.min(...rects.map((r) => r.left));
  const top = Math.min(...rects.map((r) => r.top));
  const right = Math.max(...rects.map((r) => r.right));
  const bottom = Math.max(...rects.map((r) => r.bottom));
  return new DOMRect(left, top, right - left, bottom - top);
}

/**
 * The move's squares as a small drawing, in the orientation they were laid in.
 * @param {readonly (readonly number[])[]} cells
 * @param {string} colour
 */
function piece(cells, colour) {
  const top = Math.min(...cells.map(([r]) => r));
  const left = Math.min(...cells.map(([, c]) => c));
  const height = Math.max(...cells.map(([r]) => r)) - top + 1;
  const width = Math.max(...cells.map(([, c]) => c)) - left + 1;
  const node = el("div", { class: "piece", style: { gridTemplateColumns: `repeat(${width}, 1fr)`, gridTemplateRows: `repeat(${height}, 1fr)` } });
  for (const [r, c] of cells) {
    node.append(el("span", { style: { gridRow: String(r - top + 1), gridColumn: String(c - left + 1), background: colour } }));
  }
  return node;
}

/**
 * Move `node` from the rectangle `from` to `to` (both on screen), then remove it.
 * @param {HTMLElement} node @param {DOMRect} from @param {DOMRect} to @param {string} testid
 */
function fly(node, from, to, testid) {
  const box = el("div", { class: "motion", "data-testid": testid, "aria-hidden": "true", style: {
    left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px`,
  } }, node);
  document.body.append(box);
  const scale = Math.min(from.width / to.width, from.height / to.height) || 0.3;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const animation = box.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.9 },
      { transform: `translate(${dx * 0.35}px, ${dy * 0.35 - 24}px) scale(${(scale + 1) / 2})`, opacity: 1, offset: 0.6 },
      { transform: "none", opacity: 1 },
    ],
    { duration: FLIGHT_MS, easing: "ease-in-out" },
  );
  animation.onfinish = () => box.remove();
  animation.oncancel = () => box.remove();
}

/**
 * Animate a drawn node from where it was (`from`, a rectangle) to where it is now.
 * @param {HTMLElement | null} node @param {DOMRect | null} from
 */
function slide(node, from, duration = 420) {
  if (!node || !from) return;
  const now = node.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (now.left + now.width / 2);
  const dy = from.top + from.height / 2 - (now.top + now.height / 2);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  node.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration, easing: "ease-out" });
}

/** A short-lived label over a node: the buttons an income space paid. @param {HTMLElement | null} node @param {string} text */
function popUp(node, text) {
  if (!node) return;
  const at = node.getBoundingClientRect();
  const label = el("div", { class: "motion income-pop", "data-testid": "income-pop", "aria-hidden": "true", style: {
    left: `${at.left + at.width / 2}px`, top: `${at.top}px`,
  } }, text);
  document.body.append(label);
  const animation = label.animate(
    [{ transform: "translate(-50%, 0)", opacity: 0 }, { transform: "translate(-50%, -14px)", opacity: 1, offset: 0.3 }, { transform: "translate(-50%, -28px)", opacity: 0 }],
    { duration: 1100, easing: "ease-out" },
  );
  animation.onfinish = () => label.remove();
  animation.oncancel = () => label.remove();
}
