// @ts-check
// Intents to the server: every action of the player goes out through here, with
// the version it was decided on and an id that its reply repeats.
import { uniqueId } from "./common.js";
import { t, tn } from "./i18n.js";
import { confirmsMoves, legal, ui, update } from "./store.js";
import { announce, say } from "./notices.js";

/** @typedef {import("./page").MoveIntent} MoveIntent */

/** @param {MoveIntent} move @param {string} words what it does, for the messages */
export function sendMove(move, words) {
  sendIntent({ type: "move", ...move }, { kind: "move", text: words });
}

/**
 * A move the player has decided on: sent at once, or, when moves are confirmed
 * (Board Game Arena's "confirm turn"), held here, unseen by the opponent, until
 * the player confirms it or changes their mind.
 */
/** @param {MoveIntent} move @param {string} words */
export function proposeMove(move, words) {
  if (!confirmsMoves()) {
    sendMove(move, words);
    return;
  }
  update({ confirming: { move, words } });
  announce(t("{move}? Enter confirms, Escape changes it.", { move: words }));
}

export function confirmMove() {
  const move = ui.confirming;
  if (!move) return;
  update({ confirming: null });
  sendMove(move.move, move.words);
}

export function withdrawMove() {
  if (!ui.confirming) return;
  say(t("Not sent: change your move."), "info");
  update({ confirming: null });
}

/**
 * Send an intent, stamped with the state's version and a fresh id; kept as pending until its reply.
 * @param {{ type: string }} message the intent's own fields
 * @param {import("./page").Pending} intent what it was, in words for the messages
 */
export function sendIntent(message, intent) {
  const s = ui.state;
  if (!s) return;
  const id = uniqueId();
  const full = { ...message, version: s.version, id };
  if (!ui.socket || !ui.socket.send(full)) {
    say(t("Not connected to the server: your action was not sent. Reconnecting…"), "error");
    return;
  }
  update((page) => { page.pending.set(id, intent); });
  if (intent.kind === "move") say(t("Sending: {move}…", { move: intent.text }), "info");
}

/** Send a chat line (no version: chat is not part of the game's log); false when not connected. @param {string} text */
export function sendChat(text) {
  return !!ui.socket && ui.socket.send({ type: "chat", text, id: uniqueId() });
}

export function advance() {
  const a = legal().advance;
  if (!a) return;
  proposeMove({ move: a.move }, t("Advance {spaces} and take {buttons}", { spaces: tn("{n} space", "{n} spaces", a.spaces), buttons: tn("{n} button", "{n} buttons", a.buttons) }));
}
