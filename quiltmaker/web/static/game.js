// @ts-check
// The game page: draws what the server sends and turns clicks, drags and
// keys into intents. It holds no rules: a placement is green because the
// server listed it in `legal`, and every refusal comes back as an `error`
// message that is shown to the player. This module starts the page (the
// catalogue, the socket, the server's messages, the controls); docs/web.md
// names the other modules.
import { t, wireLanguageSwitch } from "./i18n.js";
import { $, api, el, errorText, saveGame, setBoard } from "./common.js";
import { GameSocket } from "./socket.js";
import { replayTarget, setConfirmsMoves, setRenderer, storedEntry, ui, update } from "./store.js";
import { say } from "./notices.js";
import { advance, confirmMove, sendIntent, withdrawMove } from "./intents.js";
import { cancelHold, flipHold, placeHold, turnHold } from "./hand.js";
import { buildPlayerPanel } from "./board.js";
import { setReplay } from "./review.js";
import { drawAll, renderHelp } from "./panels.js";
import { setSoundOn, soundOn } from "./sound.js";
import { startAttention } from "./attention.js";
import { showInTurn } from "./arrivals.js";
import { onChatLines, startChat } from "./chat.js";
import { startClocks } from "./clock.js";
import { onBoardClick, onBoardFocus, onBoardKey, onContextMenu, onGlobalKey, onOfferClick, onOfferKey, onOfferPointerDown, onPointerMove, onPointerUp, onWheel } from "./input.js";

/** @typedef {import("./contract").GameState} GameState */
/** @typedef {import("./contract").Catalogue} Catalogue */
/**
 * What the game's socket brings: the server's messages, as the contract has them.
 * @typedef {import("./contract").Welcome | import("./contract").StateMessage | import("./contract").StateChanged | import("./contract").Ack
 *   | import("./contract").Refused | import("./contract").Hint | import("./contract").ChatLines | import("./contract").Sent} GameMessage
 */

// ================================================================ start

async function main() {
  const match = /^\/game\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) {
    say(t("This page needs a game id in its address: /game/ID."), "error");
    return;
  }
  update({ id: decodeURIComponent(match[1]) });
  const spectate = `${location.origin}/game/${encodeURIComponent(ui.id)}`;
  $("spectate-link", HTMLAnchorElement).href = spectate;
  $("spectate-link", HTMLAnchorElement).textContent = spectate;
  $("download-txt", HTMLAnchorElement).href = `/api/games/${encodeURIComponent(ui.id)}/record.txt`;
  $("download-json", HTMLAnchorElement).href = `/api/games/${encodeURIComponent(ui.id)}/record.json`;
  $("download-txt", HTMLAnchorElement).setAttribute("download", `quiltmaker-${ui.id}.txt`);
  $("download-json", HTMLAnchorElement).setAttribute("download", `quiltmaker-${ui.id}.json`);
  document.title = t("quiltmaker game {id}", { id: ui.id });

  await joinIfInvited();
  await loadCatalogue();
  // The quilts are drawn at the catalogue's board size: built once it has come.
  for (const seat of [0, 1]) buildPlayerPanel(seat);
  bindControls();
  renderHelp();

  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new GameSocket(
    `${scheme}://${location.host}/ws/games/${encodeURIComponent(ui.id)}`,
    () => ({ type: "hello", token: storedEntry()?.token ?? null, changes: true }),
    { message: onMessage, status: onConnection },
  );
  setRenderer(drawAll);
  update({ socket });
  socket.connect();
}

/** ?invite=CODE: claim the second seat, keep its token, and clean the address. */
async function joinIfInvited() {
  const params = new URLSearchParams(location.search);
  const code = params.get("invite");
  if (!code) return;
  history.replaceState(null, "", `/game/${encodeURIComponent(ui.id)}`);
  const entry = storedEntry();
  if (entry && entry.token) {
    // Opening your own invitation would use up your friend's seat.
    say(t("You already hold a seat in this game; the invitation link is for your friend."), "info");
    return;
  }
  try {
    const { body } = await api(`/api/games/${encodeURIComponent(ui.id)}/join`, { json: { invite: code } });
    saveGame(ui.id, { token: body.token, seat: body.seat, created: Date.now() });
    say(t("You joined the game."), "info"); // whose turn it is, the turn box says
  } catch (error) {
    say(t("Could not join with this invitation: {error}. You are watching instead.", { error: errorText(error) }), "error");
  }
}

async function loadCatalogue() {
  // The page cannot draw patches without the catalogue: keep trying.
  for (let attempt = 0; ; attempt++) {
    try {
      const catalogue = /** @type {Catalogue} */ ((await api("/api/catalogue")).body);
      setBoard(catalogue);
      update({ catalogue, patches: new Map(catalogue.patches.map((patch) => [patch.id, patch])) });
      return;
    } catch (error) {
      say(t("Could not load the patches: {error}. Retrying…", { error: errorText(error) }), "error");
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 10000)));
    }
  }
}

// ================================================================ server messages

/**
 * @param {import("./socket.js").SocketStatus} status
 * @param {number} [attempts] made so far (reconnecting)
 * @param {string} [reason] why the connection dropped
 */
function onConnection(status, attempts = 0, reason = "") {
  update({ connection: status });
  if (ui.missing) return;
  const node = $("connection");
  node.dataset.status = status;
  if (status === "open") node.textContent = "";
  else if (status === "connecting") node.textContent = t("Connecting…");
  else if (status === "reconnecting") {
    node.textContent = attempts > 1 ? t("Connection lost: reconnecting (attempt {attempt})…", { attempt: attempts }) : t("Connection lost: reconnecting…");
  } else node.textContent = reason ? t("Disconnected: {reason}.", { reason }) : t("Disconnected.");
  document.body.classList.toggle("offline", status !== "open");
}

/** @param {GameMessage} message */
function onMessage(message) {
  switch (message.type) {
    case "welcome":
      // The contract's seat is a number: the server sends 0 or 1.
      update({ seat: message.seat === undefined ? null : message.seat });
      showEarly();
      break;
    case "state":
      // The server sends the state on connect, before it has read the hello: drawn then, a player's
      // page would first show no Advance and "Ada to move" instead of "Your turn". It waits for the answer.
      received(message.state);
      break;
    case "changed": {
      // What changed since the last state this socket was sent (the one received last: held, waiting or shown).
      const base = ui.early?.state ?? ui.waiting.at(-1)?.state ?? ui.state;
      if (!base || base.version !== message.since) {
        ui.socket?.resync(); // (never expected: the whole state comes again on reconnecting)
        break;
      }
      received(withChanges(base, message));
      break;
    }
    case "ack": {
      const id = message.id;
      const intent = id ? ui.pending.get(id) : undefined;
      const words = intent?.kind === "move" ? t("Played: {move}.", { move: intent.text }) : intent?.kind === "undo" ? t("Move taken back.") : null;
      // The ack can come before its state: then the words wait for it (a new state clears the old words).
      const early = !!words && (ui.state?.version ?? -1) < message.version;
      update((page) => {
        if (id) page.pending.delete(id);
        if (intent?.kind === "rematch") page.rematchAcked = true; // its state, with the new game's id, may still be on the way
        if (early && words) page.afterAck = { version: message.version, words };
      });
      if (words && !early) say(ui.state?.result ? "" : words, "ok");
      break;
    }
    case "hint":
      onHint(message);
      break;
    case "chat":
      onChatLines(message.lines || []);
      break;
    case "sent":
      break; // a chat line was stored: it comes back with the other lines
    case "error":
      onError(message);
      break;
    default:
      // Unknown messages are shown, never dropped silently.
      say(t("The server sent an unexpected message ({type}).", { type: String(/** @type {{type: unknown}} */ (message).type) }), "error");
  }
}

/** A state received: held until the hello is answered, else shown in its turn. @param {GameState} state */
function received(state) {
  if (ui.seat === undefined) update({ early: { state, at: performance.now() } });
  else showInTurn(state, performance.now());
}

/**
 * The state a "changed" message makes of the one it follows: its fields replaced, and the move list's first
 * `moves_kept` entries followed by the new ones.
 * @param {GameState} base @param {import("./contract").StateChanged} message @returns {GameState}
 */
function withChanges(base, message) {
  const { moves: added, ...fields } = message.changes;
  const entries = base.moves;
  return /** @type {GameState} */ ({ ...base, ...fields, moves: [...entries.slice(0, message.moves_kept), ...(added ?? [])] });
}

/** The state held until the hello was answered, shown now. */
function showEarly() {
  const early = ui.early;
  if (!early) return;
  update({ early: null });
  showInTurn(early.state, early.at);
}

/** @param {"resign" | "abort" | null} kind */
function askEnding(kind) {
  update({ ending: kind });
}

/** @type {Record<string, string>} */
const ERROR_TITLES = {
  illegal: t("Not allowed"),
  lesson: t("Not what this lesson asks"),
  not_your_turn: t("Not your turn"),
  stale: t("The game moved on"),
  forbidden: t("Not permitted"),
  not_allowed: t("Not available in this game"),
  game_over: t("The game is over"),
  duplicate: t("Already received"),
  malformed: t("Not understood"),
  too_large: t("Message too large"),
  not_found: t("No such game"),
  busy: t("Busy"),
  rate_limited: t("Too fast"),
  time: t("Out of time"),
};

/** The server has no game at this address: say so plainly, with the way back, and stop. */
function showMissing() {
  update({ missing: true });
  $("game").hidden = true;
  $("missing").hidden = false;
  $("game-title").textContent = t("No such game");
  $("connection").textContent = "";
  document.title = `${t("No such game")} · quiltmaker`;
  document.body.classList.remove("offline");
}

/** @param {import("./contract").Refused} message */
function onError(message) {
  if (message.code === "not_found" && !ui.state) {
    showMissing();
    return;
  }
  const intent = message.id ? ui.pending.get(message.id) : null;
  update((page) => {
    if (message.id) page.pending.delete(message.id);
    if (message.code === "forbidden" && page.seat === undefined) page.seat = null; // the hello was refused: watching
  });
  showEarly(); // a refused hello (forbidden, rate_limited) is an answer too: the game is shown as it may be
  const title = ERROR_TITLES[message.code] || t("Error");
  // A lesson's refusal speaks of the move in words; the notation would only distract.
  const what = intent && message.code !== "lesson" ? ` (${intent.text})` : "";
  say(`${title}${what}: ${message.message || message.code}`, "error");
}

/** @param {import("./contract").Hint} message */
function onHint(message) {
  say("", "info");
  const id = message.id;
  update((page) => {
    page.hint = { ...message, version: message.version ?? ui.state?.version };
    if (id) page.pending.delete(id);
  });
}

/** @param {string} text @param {{ done: string, failed: (error: string) => string }} words what to say when copied, and when not */
async function copyText(text, words) {
  try {
    if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(text);
    else {
      // Outside a secure context the Clipboard API is missing: use a textarea.
      const area = el("textarea", { style: { position: "fixed", opacity: "0" } });
      area.value = text;
      document.body.append(area);
      area.select();
      const ok = document.execCommand("copy");
      area.remove();
      if (!ok) throw new Error(t("the browser refused"));
    }
    say(words.done, "ok");
  } catch (error) {
    say(words.failed(errorText(error)), "error");
  }
}

// ================================================================ wiring

function bindControls() {
  $("advance", HTMLButtonElement).addEventListener("click", advance);
  $("undo", HTMLButtonElement).addEventListener("click", () => sendIntent({ type: "undo" }, { kind: "undo", text: "undo" }));
  $("hint", HTMLButtonElement).addEventListener("click", () => {
    sendIntent({ type: "hint" }, { kind: "hint", text: "hint" });
    say(t("Asking for a hint…"), "info");
  });
  $("resign").addEventListener("click", () => askEnding("resign"));
  $("abort").addEventListener("click", () => askEnding("abort"));
  $("ending-no").addEventListener("click", () => askEnding(null));
  $("ending-yes").addEventListener("click", () => {
    const kind = ui.ending;
    askEnding(null);
    if (kind) sendIntent({ type: kind }, { kind, text: kind });
  });
  $("confirm-move").addEventListener("click", () => confirmMove());
  $("withdraw-move").addEventListener("click", () => withdrawMove());
  $("confirm-setting").addEventListener("change", (event) => {
    setConfirmsMoves(/** @type {HTMLInputElement} */ (event.target).checked);
  });
  startAttention();
  startChat();
  startClocks((state) => { if (ui.state && state.version >= ui.state.version) showInTurn(state, performance.now()); });
  $("claim").addEventListener("click", () => sendIntent({ type: "claim" }, { kind: "claim", text: "claim" }));
  const sound = $("sound-setting", HTMLInputElement);
  sound.checked = soundOn();
  sound.addEventListener("change", () => setSoundOn(sound.checked));
  $("rotate").addEventListener("click", () => turnHold(1));
  $("flip").addEventListener("click", () => flipHold());
  $("place").addEventListener("click", () => placeHold());
  $("cancel").addEventListener("click", () => cancelHold());
  const invite = {
    done: t("Invitation link copied."),
    failed: (/** @type {string} */ error) => t("Could not copy the invitation link ({error}): select it and copy it by hand.", { error }),
  };
  const spectate = {
    done: t("Spectator link copied."),
    failed: (/** @type {string} */ error) => t("Could not copy the spectator link ({error}): select it and copy it by hand.", { error }),
  };
  $("copy-invite").addEventListener("click", () => copyText($("invite-link", HTMLAnchorElement).href, invite));
  $("copy-spectate").addEventListener("click", () => copyText($("spectate-link", HTMLAnchorElement).href, spectate));
  $("replay-first", HTMLButtonElement).addEventListener("click", () => setReplay(0));
  $("replay-prev", HTMLButtonElement).addEventListener("click", () => setReplay(replayTarget() - 1));
  $("replay-next", HTMLButtonElement).addEventListener("click", () => setReplay(replayTarget() + 1));
  $("replay-last", HTMLButtonElement).addEventListener("click", () => setReplay(null));

  const circle = $("circle");
  circle.addEventListener("pointerdown", onOfferPointerDown);
  circle.addEventListener("keydown", onOfferKey);
  circle.addEventListener("click", onOfferClick);
  for (const seat of [0, 1]) {
    const board = ui.quilts[seat].board;
    board.addEventListener("click", onBoardClick);
    board.addEventListener("keydown", (event) => onBoardKey(event, seat));
    board.addEventListener("focus", () => onBoardFocus(seat));
  }
  document.addEventListener("pointermove", onPointerMove);
  document.addEventListener("pointerup", onPointerUp);
  document.addEventListener("pointercancel", () => {
    if (ui.hold?.drag) {
      update((page) => { if (page.hold) page.hold.drag = null; });
      $("floater").hidden = true;
      document.body.classList.remove("dragging");
    }
  });
  document.addEventListener("keydown", onGlobalKey);
  document.addEventListener("contextmenu", onContextMenu);
  window.addEventListener("wheel", onWheel, { passive: false });
}

main().catch((error) => say(t("The page failed to start: {error}", { error: errorText(error) }), "error"));
wireLanguageSwitch();
