// @ts-check
// Pointer and keyboard input: drags and taps of patches onto the quilt, keys
// for turning, flipping, placing, advancing and stepping through a replay.
import { $, fill, find, findAll, shapeNode } from "./common.js";
import { t } from "./i18n.js";
import { boardSize, buyEntry, canAct, legal, replayAvailable, replayTarget, specialsPending, squareName, ui, update, whyNotAct } from "./store.js";
import { announce, say } from "./notices.js";
import { advance, confirmMove, proposeMove, withdrawMove } from "./intents.js";
import { cancelHold, flipHold, holdDescription, holdIsLegal, holdOrientation, moveHold, placeHold, startHold, turnHold } from "./hand.js";
import { setReplay } from "./review.js";

/**
 * The element matching `selector` at or above an event's target, or null (also when the
 * target is no element: a key pressed on the document).
 * @param {Event} event @param {string} selector
 * @returns {HTMLElement | null}
 */
function closestTo(event, selector) {
  return event.target instanceof Element ? /** @type {HTMLElement | null} */ (event.target.closest(selector)) : null;
}

// ================================================================ pointer input

/**
 * The square under a point of the acting quilt, or null; `slack` squares around it count as on it.
 * @param {number} seat @param {number} x @param {number} y
 */
function squareAt(seat, x, y, slack = 0.6) {
  const rect = ui.quilts[seat].board.getBoundingClientRect();
  const squares = boardSize();
  const size = rect.width / squares;
  const col = Math.floor((x - rect.left) / size);
  const row = Math.floor((y - rect.top) / size);
  if (col < -slack * 2 || row < -slack * 2 || col >= squares + slack * 2 || row >= squares + slack * 2) return null;
  return { row, col, size };
}

/** Put the patch in hand under the pointer (its centre on the pointer). @param {number} x @param {number} y @param {string} pointerType */
function aimAt(x, y, pointerType) {
  const s = ui.state;
  const o = holdOrientation();
  // A patch is in hand only while its player may act: someone is to move.
  if (!ui.hold || !o || !s || s.to_move === null) return false;
  // A finger would hide the patch: hold it a little above the touch.
  const lift = pointerType === "touch" && ui.hold.drag ? 1.2 : 0;
  const probe = squareAt(s.to_move, x, y);
  if (!probe) return false;
  const at = squareAt(s.to_move, x, y - lift * probe.size);
  if (!at) return false;
  moveHold({ row: at.row - Math.floor((o.height - 1) / 2), col: at.col - Math.floor((o.width - 1) / 2) });
  return true;
}

/** @param {number} x @param {number} y @param {boolean} visible */
function showFloater(x, y, visible) {
  const floater = $("floater");
  const hold = ui.hold;
  const o = holdOrientation(hold);
  if (!visible || !hold || !o) {
    floater.hidden = true;
    return;
  }
  if (floater.dataset.key !== `${hold.patch}:${hold.oi}`) {
    fill(floater, shapeNode(hold.patch, o.cells, "18px"));
    floater.dataset.key = `${hold.patch}:${hold.oi}`;
  }
  floater.hidden = false;
  floater.style.left = `${x - (o.width * 18) / 2}px`;
  floater.style.top = `${y - (o.height * 18) / 2}px`;
}

/** @param {PointerEvent} event */
export function onOfferPointerDown(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const offer = closestTo(event, ".offer");
  if (!offer || event.button !== 0) return;
  const id = Number(offer.dataset.patch);
  if (offer.dataset.affordable !== "true") {
    const buy = buyEntry(id);
    if (!canAct()) say(whyNotAct() ?? "", "error"); // not null: it cannot act
    else say(cannotBuy(id, buy?.reason), "error");
    return;
  }
  event.preventDefault(); // no text selection or native drag image
  startHold(id, "pointer");
  if (!ui.hold) return;
  moveHold({ drag: { startX: event.clientX, startY: event.clientY, moved: false, type: event.pointerType } });
  document.body.classList.add("dragging");
}

/** @param {PointerEvent} event */
export function onPointerMove(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  const drag = ui.hold.drag;
  if (drag && !drag.moved && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) > 6) moveHold({ drag: { ...drag, moved: true } });
  const over = aimAt(event.clientX, event.clientY, event.pointerType);
  showFloater(event.clientX, event.clientY, !!ui.hold?.drag?.moved && !over);
}

/** @param {PointerEvent} event */
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
    moveHold({ drag: null });
    document.body.classList.remove("dragging");
    $("floater").hidden = true;
    if (!drag.moved) return; // a click on the offer: keep holding, wait for a click on the quilt
    if (overBoard) {
      placeHold();
    } else {
      cancelHold(t("Dropped outside your quilt: patch put back."));
    }
    return;
  }
  if (overBoard) {
    // On a touch screen a tap on the preview sews it there; a tap elsewhere moves the preview under the finger.
    if (event.pointerType === "touch" && !onPreview(event.clientX, event.clientY)) {
      aimAt(event.clientX, event.clientY, event.pointerType);
      announce(holdDescription());
      return;
    }
    if (event.pointerType !== "touch") aimAt(event.clientX, event.clientY, event.pointerType);
    placeHold();
    return;
  }
  if (target?.closest(".offer, .hold-controls, .actions, button, a, input, select, summary")) return;
  cancelHold();
}

/** Whether a point is on one of the squares the patch in hand is shown on. @param {number} x @param {number} y */
function onPreview(x, y) {
  const s = ui.state;
  const o = holdOrientation();
  const hold = ui.hold;
  if (!s || s.to_move === null || !o || !hold) return false;
  const at = squareAt(s.to_move, x, y, 0);
  return !!at && o.cells.some(([r, c]) => r + hold.row === at.row && c + hold.col === at.col);
}

/** Whether the pointer is over the quilt of the player to move. @param {MouseEvent} event */
function isOverBoard(event) {
  const s = ui.state;
  if (!s || s.to_move === null) return false;
  const rect = ui.quilts[s.to_move].board.getBoundingClientRect();
  return event.clientX >= rect.left && event.clientX < rect.right && event.clientY >= rect.top && event.clientY < rect.bottom;
}

/** @param {WheelEvent} event */
export function onWheel(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  const s = ui.state;
  const overBoard = isOverBoard(event) || closestTo(event, ".offer");
  if (!overBoard && !ui.hold.drag) return;
  event.preventDefault();
  // Touchpads send a stream of small deltas: turn once per notch-sized step.
  const now = Date.now();
  if (now - ui.wheelAt < 180) return;
  update({ wheelAt: now });
  turnHold(event.deltaY > 0 ? 1 : -1);
  if (s) aimAt(event.clientX, event.clientY, "mouse");
}

/** @param {MouseEvent} event */
export function onContextMenu(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  if (!ui.hold) return;
  event.preventDefault(); // right-click turns the patch in hand
  turnHold(1);
  aimAt(event.clientX, event.clientY, "mouse");
}

/** A click on an empty square places a pending special patch. @param {MouseEvent} event */
export function onBoardClick(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const square = closestTo(event, ".sq");
  const s = ui.state;
  if (!square || ui.hold || !specialsPending() || !s) return;
  const seat = Number(/** @type {HTMLElement} */ (square.closest(".quilt-board")).dataset.seat);
  if (seat !== s.to_move) return;
  placeSpecial(Number(square.dataset.row), Number(square.dataset.col));
}

/** Any square is sent: the server says why one is not allowed. @param {number} row @param {number} col */
function placeSpecial(row, col) {
  proposeMove({ special: { row, col } }, t("Place the special patch on {square}", { square: squareName(row, col) }));
}

// ================================================================ keyboard

/** @param {number} seat */
export function onBoardFocus(seat) {
  const s = ui.state;
  if (!s || seat !== s.to_move || ui.hold || !specialsPending() || ui.cursor) return;
  const first = (legal().specials || [])[0];
  const middle = Math.floor(boardSize() / 2);
  const [row, col] = first ? first.cell : [middle, middle];
  update({ cursor: { row, col } });
  announce(t("Special patch: {square}. Arrow keys move, Enter places.", { square: squareName(row, col) }));
}

/** Why a patch cannot be bought, as the server said it (or that it cannot now). @param {number} id @param {string | null | undefined} reason */
function cannotBuy(id, reason) {
  const notNow = t("not possible now");
  return t("You cannot buy patch {patch}: {reason}.", { patch: id, reason: reason || notNow });
}

/** @type {Partial<Record<string, [number, number]>>} a key's step, [rows, columns] */
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** @param {KeyboardEvent} event @param {number} seat */
export function onBoardKey(event, seat) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const s = ui.state;
  if (!s || seat !== s.to_move || ui.replay.ply !== null) return;
  const step = ARROWS[event.key];
  if (ui.hold) {
    if (step) {
      event.preventDefault();
      moveHold({ row: ui.hold.row + step[0], col: ui.hold.col + step[1] });
      announce(`${squareName(ui.hold.row, ui.hold.col)}: ${holdIsLegal() ? t("fits") : t("not allowed here")}.`);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeHold();
    }
    return;
  }
  if (specialsPending()) {
    if (!ui.cursor) onBoardFocus(seat);
    const cursor = ui.cursor;
    if (!cursor) return;
    if (step) {
      event.preventDefault();
      const last = boardSize() - 1;
      const row = Math.max(0, Math.min(last, cursor.row + step[0]));
      const col = Math.max(0, Math.min(last, cursor.col + step[1]));
      update({ cursor: { row, col } });
      announce(`${squareName(row, col)}: ${s.quilts[seat][row][col] === null ? t("empty") : t("covered")}.`);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeSpecial(cursor.row, cursor.col);
    }
  }
}

/** @param {KeyboardEvent} event */
export function onOfferKey(event) {
  const offer = closestTo(event, ".offer");
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

/** A keyboard "click" (Enter or Space) on an offer picks the patch up and moves to the quilt. @param {MouseEvent} event */
export function onOfferClick(event) {
  if (ui.confirming) return; // a move waits for confirmation: nothing moves it
  const offer = closestTo(event, ".offer");
  if (!offer || event.detail !== 0) return; // pointer clicks are handled by pointerdown
  const id = Number(offer.dataset.patch);
  if (offer.dataset.affordable !== "true") {
    const buy = buyEntry(id);
    say(canAct() ? cannotBuy(id, buy?.reason) : whyNotAct() ?? "", "error");
    return;
  }
  startHold(id, "keyboard");
  const s = ui.state;
  if (!s || s.to_move === null) return;
  ui.quilts[s.to_move].board.focus();
}

/** @param {EventTarget | null} target */
function isTyping(target) {
  return target instanceof Element && !!target.closest("input:not([type=checkbox]):not([type=radio]), textarea, select, [contenteditable]");
}

/** @param {KeyboardEvent} event */
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
    else if (ui.seat !== null && ui.seat !== undefined) say(whyNotAct() || (specialsPending() ? t("Place your special patch first.") : t("You cannot advance now.")), "error");
    return;
  }
  // Arrow keys step through the replay, unless they already mean something where the focus is.
  if (replayAvailable() && !ui.hold && !closestTo(event, ".offer, .quilt-board.acting")) {
    const k = replayTarget();
    if (key === "ArrowLeft") setReplay(k - 1);
    else if (key === "ArrowRight") setReplay(k + 1);
    else if (key === "Home") setReplay(0);
    else if (key === "End") setReplay(null);
    else return;
    event.preventDefault();
  }
}
