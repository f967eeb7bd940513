// @ts-check
// Intents to the server: every action of the player goes out through here, with
// the version it was decided on and an id that its reply repeats.
import { plural, uniqueId } from "./common.js";
import { confirmsMoves, legal, render, ui } from "./store.js";
import { announce, say } from "./notices.js";

/** The game's socket, once the entry module has opened it. */
let socket = null;

export function setSocket(gameSocket) {
  socket = gameSocket;
}

export function sendMove(text) {
  sendIntent({ type: "move", move: text }, { kind: "move", text });
}

/**
 * A move the player has decided on: sent at once, or, when moves are confirmed
 * (Board Game Arena's "confirm turn"), held here, unseen by the opponent, until
 * the player confirms it or changes their mind.
 */
export function proposeMove(text, words) {
  if (!confirmsMoves()) {
    sendMove(text);
    return;
  }
  ui.confirming = { text, words };
  announce(`${words}? Enter confirms, Escape changes it.`);
  render();
}

export function confirmMove() {
  const move = ui.confirming;
  if (!move) return;
  ui.confirming = null;
  sendMove(move.text);
  render();
}

export function withdrawMove() {
  if (!ui.confirming) return;
  ui.confirming = null;
  say("Not sent: change your move.", "info");
  render();
}

export function sendIntent(message, intent) {
  const s = ui.state;
  if (!s) return;
  const id = uniqueId();
  const full = { ...message, version: s.version, id };
  if (!socket || !socket.send(full)) {
    say("Not connected to the server: your action was not sent. Reconnecting…", "error");
    return;
  }
  ui.pending.set(id, intent);
  if (intent.kind === "move") say(`Sending ${intent.text}…`, "info");
}

/** Send a chat line (no version: chat is not part of the game's log); false when not connected. */
export function sendChat(text) {
  return !!socket && socket.send({ type: "chat", text, id: uniqueId() });
}

export function advance() {
  const a = legal().advance;
  if (!a) return;
  proposeMove(a.move || "A", `Advance ${plural(a.spaces, "space")} and take ${plural(a.buttons, "button")}`);
}
