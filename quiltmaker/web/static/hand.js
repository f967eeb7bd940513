// @ts-check
// The patch in hand: picking it up, turning and flipping it by the catalogue's
// tables, moving it over the quilt, sending the placement. Green means the
// server listed the anchor: the page computes no shapes and no legality.
import { $, geometry, el, squareName } from "./common.js";
import { buyEntry, canAct, canPlace, legalAnchors, render, ui } from "./store.js";
import { announce, say } from "./notices.js";
import { proposeMove } from "./intents.js";

export function startHold(patchId, how) {
  const patch = ui.patches.get(patchId);
  if (!patch || !canAct()) return;
  const buy = buyEntry(patchId);
  if (!buy || !buy.affordable || !canPlace(buy)) {
    say(`You cannot buy patch ${patchId}: ${buy?.reason || "it is not on offer"}.`, "error");
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
  ui.hold = { patch: patchId, oi, row: Math.floor(start / geometry.size), col: start % geometry.size, drag: null, via: how };
  clampHold();
  say("", "info"); // a new try: what was said of the last one (a refusal) no longer applies
  announce(`Picked up patch ${patchId}. ${holdDescription()}`);
  render();
}

export function cancelHold(reason = "Patch put back.") {
  if (!ui.hold) return;
  ui.hold = null;
  $("floater").hidden = true;
  document.body.classList.remove("dragging");
  if (reason) {
    announce(reason);
    say(reason, "info"); // seen too, and it replaces whatever the line said before
  }
  render();
}

function holdPatch() {
  return ui.hold ? ui.patches.get(ui.hold.patch) : null;
}

export function holdOrientation() {
  const patch = holdPatch();
  return patch ? patch.orientations[ui.hold.oi] : null;
}

/** Keep the whole patch inside the quilt. */
export function clampHold() {
  const o = holdOrientation();
  if (!o) return;
  ui.hold.row = Math.max(0, Math.min(geometry.size - o.height, ui.hold.row));
  ui.hold.col = Math.max(0, Math.min(geometry.size - o.width, ui.hold.col));
}

export function holdIsLegal() {
  if (!ui.hold) return false;
  return legalAnchors(ui.hold.patch, ui.hold.oi).includes(ui.hold.row * geometry.size + ui.hold.col);
}

export function holdDescription() {
  const o = holdOrientation();
  if (!o) return "";
  return `Orientation ${o.transform} at ${squareName(ui.hold.row, ui.hold.col)}: ${holdIsLegal() ? "fits" : "not allowed here"}.`;
}

export function turnHold(quarterTurns) {
  if (!ui.hold) return;
  const patch = holdPatch();
  // Turn about the patch's centre, so it stays under the pointer.
  const before = holdOrientation();
  // The catalogue says where each quarter turn leads (the rules' own tables): the page computes no shapes.
  let next = ui.hold.oi;
  for (let i = 0; i < ((quarterTurns % 4) + 4) % 4; i++) next = patch.orientations[next].turned;
  moveHoldKeepingCentre(before, patch.orientations[next]);
  ui.hold.oi = next;
  clampHold();
  announce(holdDescription());
  render();
}

export function flipHold() {
  if (!ui.hold) return;
  const patch = holdPatch();
  const before = holdOrientation();
  const next = patch.orientations[ui.hold.oi].flipped;
  moveHoldKeepingCentre(before, patch.orientations[next]);
  ui.hold.oi = next;
  clampHold();
  announce(holdDescription());
  render();
}

function moveHoldKeepingCentre(before, after) {
  ui.hold.row += Math.floor((before.height - after.height) / 2);
  ui.hold.col += Math.floor((before.width - after.width) / 2);
}

/** Send the placement in hand, legal-looking or not: the server explains a refusal. */
export function placeHold() {
  if (!ui.hold) return;
  const o = holdOrientation();
  const text = `${ui.hold.patch}${o.transform}@${squareName(ui.hold.row, ui.hold.col)}`;
  proposeMove(text, `Place patch ${ui.hold.patch} at ${squareName(ui.hold.row, ui.hold.col)}`);
}

/** The ghost: the patch in hand at its anchor, green where the server allows it. */
export function ghostNode() {
  const o = holdOrientation();
  const ok = holdIsLegal();
  const unit = 100 / geometry.size;
  const node = el("div", {
    class: `ghost ${ok ? "legal" : "illegal"}`,
    "data-testid": "ghost",
    "data-legal": ok ? "true" : "false",
    "data-move": `${ui.hold.patch}${o.transform}@${squareName(ui.hold.row, ui.hold.col)}`,
    style: { top: `${ui.hold.row * unit}%`, left: `${ui.hold.col * unit}%`, width: `${o.width * unit}%`, height: `${o.height * unit}%` },
  });
  for (const [r, c] of o.cells) {
    node.append(el("span", {
      class: "ghost-cell",
      style: { top: `${(r / o.height) * 100}%`, left: `${(c / o.width) * 100}%`, width: `${100 / o.width}%`, height: `${100 / o.height}%` },
    }, ok ? "" : "✕"));
  }
  return node;
}
