// @ts-check
// Pointer and keyboard input: drags and taps of patches onto the quilt, keys
// for turning, flipping, placing, advancing and stepping through a replay.
import { $, geometry, fill, find, findAll, shapeNode, squareName } from "./common.js";
import { buyEntry, canAct, legal, replayAvailable, replayTarget, specialsPending, ui, whyNotAct } from "./store.js";
import { announce, say } from "./notices.js";
import { advance, confirmMove, proposeMove, withdrawMove } from "./intents.js";
import { cancelHold, clampHold, flipHold, holdDescription, holdIsLegal, holdOrientation, placeHold, startHold, turnHold } from "./hand.js";
import { renderOverlays } from "./board.js";
import { setReplay } from "./review.js";
import { renderActions } from "./panels.js";

// ================================================================ pointer input

/** The square under a point of the acting quilt, or null; `slack` squares around it count as on it. */
function squareAt(seat, x, y, slack = 0.6) {
  const rect = ui.quilts[seat].board.getBoundingClientRect();
  const size = rect.width / geometry.size;
  const col = Math.floor((x - rect.left) / size);
  const row = Math.floor((y - rect.top) / size);
  if (col < -slack * 2 || row < -slack * 2 || col >= geometry.size + slack * 2 || row >= geometry.size + slack * 2) return null;
  return { row, col, size };
}

/** Put the patch in hand under the pointer (its centre on the pointer). */
function aimAt(x, y, pointerType) {
  const s = ui.state;
  if (!ui.hold || !s) return false;
  const o = holdOrientation();
  // A finger would hide the patch: hold it a little above the touch.
  const lift = pointerType === "touch" && ui.hold.drag ? 1.2 : 0;
  const probe = squareAt(s.to_move, x, y);
  if (!probe) return false;
  const at = squareAt(s.to_move, x, y - lift * probe.size);
  if (!at) return false;
  const row = at.row - Math.floor((o.height - 1) / 2);
  const col = at.col - Math.floor((o.width - 1) / 2);
  const before = `${ui.hold.row},${ui.hold.col}`;
  ui.hold.row = row;
  ui.hold.col = col;
  clampHold();
  if (`${ui.hold.row},${ui.hold.col}` !== before) {
    renderOverlays();
    renderActions();
  }
  return true;
}

function showFloater(x, y, visible) {
  const floater = $("floater");
  if (!visible || !ui.hold) {
    floater.hidden = true;
    return;
  }
  const o = holdOrientation();
  if (floater.dataset.key !== `${ui.hold.patch}:${ui.hold.oi}`) {
    fill(floater, shapeNode(ui.hold.patch, o.cells, 18));
    floater.dataset.key = `${ui.hold.patch}:${ui.hold.oi}`;
  }
  floater.hidden = false;
  floater.style.left = `${x - (o.width * 18) / 2}px`;
  floater.style.top = `${y - (o.height * 18) / 2}px`;
}

export function onOfferPointerDown(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const offer = event.target.closest(".offer");
  if (!offer || event.button !== 0) return;
  const id = Number(offer.dataset.patch);
  if (offer.dataset.affordable !== "true") {
    const buy = buyEntry(id);
    if (!canAct()) say(whyNotAct(), "error");
    else say(`You cannot buy patch ${id}: ${buy?.reason || "not possible now"}.`, "error");
    return;
  }
  event.preventDefault(); // no text selection or native drag image
  startHold(id, "pointer");
  ui.hold.drag = { startX: event.clientX, startY: event.clientY, moved: false, type: event.pointerType };
  document.body.classList.add("dragging");
}

export function onPointerMove(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  const drag = ui.hold.drag;
  if (drag && !drag.moved && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) > 6) drag.moved = true;
  const over = aimAt(event.clientX, event.clientY, event.pointerType);
  showFloater(event.clientX, event.clientY, !!drag && drag.moved && !over);
}

export function onPointerUp(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold || event.button !== 0) return;
  const drag = ui.hold.drag;
  const s = ui.state;
  const target = event.target instanceof Element ? event.target : null;
  const overBoard = s && !!target?.closest(`[data-testid="quilt-${s.to_move}"]`) || (s && isOverBoard(event));
  if (drag) {
    // Aimed while still dragging: a finger's patch is held above it, and must land where it was shown.
    if (drag.moved && overBoard) aimAt(event.clientX, event.clientY, event.pointerType);
    ui.hold.drag = null;
    document.body.classList.remove("dragging");
    $("floater").hidden = true;
    if (!drag.moved) return; // a click on the offer: keep holding, wait for a click on the quilt
    if (overBoard) {
      placeHold();
    } else {
      cancelHold("Dropped outside your quilt: patch put back.");
    }
    return;
  }
  if (overBoard) {
    const before = `${ui.hold.row},${ui.hold.col}`;
    aimAt(event.clientX, event.clientY, event.pointerType);
    // On a touch screen the first tap shows where the patch would go; a tap on the same place sews it.
    if (event.pointerType === "touch" && `${ui.hold.row},${ui.hold.col}` !== before) {
      announce(holdDescription());
      return;
    }
    placeHold();
    return;
  }
  if (target?.closest(".offer, .hold-controls, .actions, button, a, input, select, summary")) return;
  cancelHold();
}

function isOverBoard(event) {
  const s = ui.state;
  const rect = ui.quilts[s.to_move].board.getBoundingClientRect();
  return event.clientX >= rect.left && event.clientX < rect.right && event.clientY >= rect.top && event.clientY < rect.bottom;
}

let wheelRest = 0;
export function onWheel(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  const s = ui.state;
  const overBoard = isOverBoard(event) || event.target.closest?.(".offer");
  if (!overBoard && !ui.hold.drag) return;
  event.preventDefault();
  // Touchpads send a stream of small deltas: turn once per notch-sized step.
  const now = Date.now();
  if (now - wheelRest < 180) return;
  wheelRest = now;
  turnHold(event.deltaY > 0 ? 1 : -1);
  if (s) aimAt(event.clientX, event.clientY, "mouse");
}

export function onContextMenu(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  event.preventDefault(); // right-click turns the patch in hand
  turnHold(1);
  aimAt(event.clientX, event.clientY, "mouse");
}

/** A click on an empty square places a pending special patch. */
export function onBoardClick(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const square = event.target.closest?.(".sq");
  if (!square || ui.hold || !specialsPending()) return;
  const seat = Number(square.closest(".quilt-board").dataset.seat);
  if (seat !== ui.state.to_move) return;
  placeSpecial(square.dataset.square);
}

function placeSpecial(name) {
  const specials = legal().specials || [];
  // The server's own move for that square; another square is sent as it is, so that the server says why not.
  const listed = specials.find((special) => special.square === name.toLowerCase());
  proposeMove(listed ? listed.move : `S@${name}`, `Place the special patch on ${name.toLowerCase()}`);
}

// ================================================================ keyboard

export function onBoardFocus(seat) {
  const s = ui.state;
  if (!s || seat !== s.to_move || ui.hold || !specialsPending() || ui.cursor) return;
  const first = (legal().specials || [])[0];
  const at = first ? first.cell : [4, 4];
  ui.cursor = { row: at[0], col: at[1] };
  renderOverlays();
  announce(`Special patch: ${squareName(ui.cursor.row, ui.cursor.col)}. Arrow keys move, Enter places.`);
}

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export function onBoardKey(event, seat) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const s = ui.state;
  if (!s || seat !== s.to_move || ui.replay.ply !== null) return;
  const step = ARROWS[event.key];
  if (ui.hold) {
    if (step) {
      event.preventDefault();
      ui.hold.row += step[0];
      ui.hold.col += step[1];
      clampHold();
      announce(`${squareName(ui.hold.row, ui.hold.col)}: ${holdIsLegal() ? "fits" : "not allowed here"}.`);
      renderOverlays();
      renderActions();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeHold();
    }
    return;
  }
  if (specialsPending()) {
    if (!ui.cursor) onBoardFocus(seat);
    if (step) {
      event.preventDefault();
      ui.cursor.row = Math.max(0, Math.min(geometry.size - 1, ui.cursor.row + step[0]));
      ui.cursor.col = Math.max(0, Math.min(geometry.size - 1, ui.cursor.col + step[1]));
      const value = s.quilts[seat][ui.cursor.row][ui.cursor.col];
      announce(`${squareName(ui.cursor.row, ui.cursor.col)}: ${value === null ? "empty" : "covered"}.`);
      renderOverlays();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeSpecial(squareName(ui.cursor.row, ui.cursor.col));
    }
  }
}

export function onOfferKey(event) {
  const offer = event.target.closest?.(".offer");
  if (!offer) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    // Arrow keys move between the patches on offer.
    const offers = findAll(".offer");
    const i = offers.indexOf(offer) + (event.key === "ArrowRight" ? 1 : -1);
    if (offers[i]) {
      event.preventDefault();
      offers[i].focus();
    }
  }
}

/** A keyboard "click" (Enter or Space) on an offer picks the patch up and moves to the quilt. */
export function onOfferClick(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const offer = event.target.closest?.(".offer");
  if (!offer || event.detail !== 0) return; // pointer clicks are handled by pointerdown
  const id = Number(offer.dataset.patch);
  if (offer.dataset.affordable !== "true") {
    const buy = buyEntry(id);
    say(canAct() ? `You cannot buy patch ${id}: ${buy?.reason || "not possible now"}.` : whyNotAct(), "error");
    return;
  }
  startHold(id, "keyboard");
  ui.quilts[ui.state.to_move].board.focus();
}

function isTyping(target) {
  return target instanceof Element && !!target.closest("input:not([type=checkbox]):not([type=radio]), textarea, select, [contenteditable]");
}

export function onGlobalKey(event) {
  if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (ui.confirming) {
    // A move waits for confirmation: Enter sends it, Escape takes it back; nothing else moves it.
    if (key === "Enter" && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      confirmMove();
    } else if (key === "Escape") {
      event.preventDefault();
      withdrawMove();
    }
    return;
  }
  if (ui.hold) {
    if (key === "r" || key === "R") {
      event.preventDefault();
      turnHold(event.shiftKey ? -1 : 1);
      return;
    }
    if (key === "f" || key === "F") {
      event.preventDefault();
      flipHold();
      return;
    }
    if (key === "Escape") {
      event.preventDefault();
      const patch = ui.hold.patch;
      cancelHold();
      find(`[data-testid="offer-${patch}"]`)?.focus();
      return;
    }
  }
  if (key === "Escape" && ui.replay.ply !== null) {
    setReplay(null);
    return;
  }
  if ((key === "a" || key === "A") && !ui.hold) {
    event.preventDefault();
    if (canAct() && legal().advance) advance();
    else if (ui.seat !== null && ui.seat !== undefined) say(whyNotAct() || (specialsPending() ? "Place your special patch first." : "You cannot advance now."), "error");
    return;
  }
  // Arrow keys step through the replay, unless they already mean something where the focus is.
  if (replayAvailable() && !ui.hold && !event.target.closest?.(".offer, .quilt-board.acting")) {
    const k = replayTarget();
    if (key === "ArrowLeft") setReplay(k - 1);
    else if (key === "ArrowRight") setReplay(k + 1);
    else if (key === "Home") setReplay(0);
    else if (key === "End") setReplay(null);
    else return;
    event.preventDefault();
  }
}
