// @ts-check
// The patch in hand: picking it up, turning and flipping it by the catalogue's
// tables, moving it over the quilt, sending the placement. Green means the
// server listed the anchor: the page computes no shapes and no legality.
import { $, el } from "./common.js";
import { t } from "./i18n.js";
import { boardSize, buyEntry, canAct, canPlace, legalAnchors, squareName, ui, update } from "./store.js";
import { announce, say } from "./notices.js";
import { proposeMove } from "./intents.js";

/** @typedef {import("./page").Hold} Hold */

/** Pick up patch `patchId` from the circle, if it may be bought now. @param {number} patchId @param {Hold["via"]} how */
export function startHold(patchId, how) {
  const patch = ui.patches.get(patchId);
  if (!patch || !canAct()) return;
  const buy = buyEntry(patchId);
  if (!buy || !buy.affordable || !canPlace(buy)) {
    const offMarket = t("it is not on offer");
    say(t("You cannot buy patch {patch}: {reason}.", { patch: patchId, reason: buy?.reason || offMarket }), "error");
    return;
  }
  // Start in an orientation and on a square the server allows, so a keyboard
  // user sees a green ghost at once.
  let oi = ui.hold && ui.hold.patch === patchId ? ui.hold.oi : 0;
  if (!legalAnchors(patchId, oi).length) {
    const found = patch.orientations.findIndex((_, i) => legalAnchors(patchId, i).length > 0);
    if (found >= 0) oi = found;
  }
  const anchors = legalAnchors(patchId, oi);
  const start = anchors.length ? Math.min(...anchors) : 0;
  const size = boardSize();
  say("", "info"); // a new try: what was said of the last one (a refusal) no longer applies
  // On a phone the mover's own quilt comes back large, to place on.
  update({ hold: clamped({ patch: patchId, oi, row: Math.floor(start / size), col: start % size, drag: null, via: how }), frontSeat: null });
  announce(`${t("Picked up patch {patch}.", { patch: patchId })} ${holdDescription()}`);
}

/** Put the patch in hand back; `reason` is said (none: silently). @param {string | null} [reason] */
export function cancelHold(reason = t("Patch put back.")) {
  if (!ui.hold) return;
  $("floater").hidden = true;
  document.body.classList.remove("dragging");
  if (reason) {
    announce(reason);
    say(reason, "info"); // seen too, and it replaces whatever the line said before
  }
  update({ hold: null });
}

/** The orientation of a hold (the patch in hand by default), from the catalogue. @param {Readonly<Hold> | null} [hold] */
export function holdOrientation(hold = ui.hold) {
  return hold ? ui.patches.get(hold.patch)?.orientations[hold.oi] ?? null : null;
}

/** A hold moved to keep the whole patch inside the quilt. @param {Hold} hold @returns {Hold} */
function clamped(hold) {
  const o = holdOrientation(hold);
  if (!o) return hold;
  const size = boardSize();
  return { ...hold, row: Math.max(0, Math.min(size - o.height, hold.row)), col: Math.max(0, Math.min(size - o.width, hold.col)) };
}

/**
 * Change the patch in hand (fields to set), kept inside the quilt; true when it moved or turned.
 * @param {Partial<Hold>} change
 */
export function moveHold(change) {
  const hold = ui.hold;
  if (!hold) return false;
  const next = clamped({ ...hold, ...change });
  if (next.row === hold.row && next.col === hold.col && next.oi === hold.oi && next.drag === hold.drag) return false;
  update({ hold: next });
  return true;
}

export function holdIsLegal() {
  if (!ui.hold) return false;
  return legalAnchors(ui.hold.patch, ui.hold.oi).includes(ui.hold.row * boardSize() + ui.hold.col);
}

export function holdDescription() {
  const hold = ui.hold;
  const o = holdOrientation(hold);
  if (!hold || !o) return "";
  const where = t("Patch {patch}, {orientation}, at {square}:", { patch: hold.patch, orientation: o.words, square: squareName(hold.row, hold.col) });
  return `${where} ${holdIsLegal() ? t("fits") : t("not allowed here")}.`;
}

/** @param {number} quarterTurns */
export function turnHold(quarterTurns) {
  const hold = ui.hold;
  const patch = hold && ui.patches.get(hold.patch);
  if (!hold || !patch) return;
  // The catalogue says where each quarter turn leads (the rules' own tables): the page computes no shapes.
  let next = hold.oi;
  for (let i = 0; i < ((quarterTurns % 4) + 4) % 4; i++) next = patch.orientations[next].turned;
  reorient(hold, patch, next);
}

export function flipHold() {
  const hold = ui.hold;
  const patch = hold && ui.patches.get(hold.patch);
  if (!hold || !patch) return;
  reorient(hold, patch, patch.orientations[hold.oi].flipped);
}

/**
 * Put the patch in hand in orientation `oi`, about its centre, so that it stays under the pointer.
 * @param {Readonly<Hold>} hold @param {import("./contract").CataloguePatch} patch @param {number} oi
 */
function reorient(hold, patch, oi) {
  const before = patch.orientations[hold.oi];
  const after = patch.orientations[oi];
  moveHold({
    oi,
    row: hold.row + Math.floor((before.height - after.height) / 2),
    col: hold.col + Math.floor((before.width - after.width) / 2),
  });
  announce(holdDescription());
}

/**
 * Send the placement in hand where its preview fits (the anchors the server listed); where it does not, say so and
 * keep it in hand: a red preview is never sent, so a player never meets the rules' refusal of a placement.
 */
export function placeHold() {
  const o = holdOrientation();
  if (!ui.hold || !o) return;
  const { patch, row, col } = ui.hold;
  if (!holdIsLegal()) {
    const words = t("Patch {patch} does not fit at {square}: move it until its preview turns green.", { patch, square: squareName(row, col) });
    say(words, "error");
    announce(words);
    return;
  }
  const placement = { patch, orientation: o.transform, row, col };
  proposeMove({ placement }, t("Place patch {patch} at {square}", { patch, square: squareName(row, col) }));
}

/** The ghost: the patch in hand at its anchor, green where the server allows it (null: nothing in hand). */
export function ghostNode() {
  const hold = ui.hold;
  const o = holdOrientation(hold);
  if (!hold || !o) return null;
  const ok = holdIsLegal();
  const unit = 100 / boardSize();
  const node = el("div", {
    class: `ghost ${ok ? "legal" : "illegal"}`,
    "data-testid": "ghost",
    "data-legal": ok ? "true" : "false",
    "data-patch": hold.patch,
    "data-orientation": o.transform,
    "data-square": squareName(hold.row, hold.col),
    style: { top: `${hold.row * unit}%`, left: `${hold.col * unit}%`, width: `${o.width * unit}%`, height: `${o.height * unit}%` },
  });
  for (const [r, c] of o.cells) {
    node.append(el("span", {
      class: "ghost-cell",
      style: { top: `${(r / o.height) * 100}%`, left: `${(c / o.width) * 100}%`, width: `${100 / o.width}%`, height: `${100 / o.height}%` },
    }, ok ? "" : "✕"));
  }
  return node;
}
