// @ts-check
// Intents to the server: every action of the player goes out through here, with
// the version it was decided on and an id that its reply repeats.
import { uniqueId } from "./common.js";
import { legal, ui } from "./store.js";
import { say } from "./notices.js";

/** The game's socket, once the entry module has opened it. */
let socket = null;

export function setSocket(gameSocket) {
  socket = gameSocket;
}

export function sendMove(text) {
  sendIntent({ type: "move", move: text }, { kind: "move", text });
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

export function advance() {
  const a = legal().advance;
  if (!a) return;
  sendMove(a.move || "A");
}
