// @ts-check
// The game page: draws what the server sends and turns clicks, drags and
// keys into intents. It holds no rules: a placement is green because the
// server listed it in `legal`, and every refusal comes back as an `error`
// message that is shown to the player. This module starts the page (the
// catalogue, the socket, the server's messages, the controls); docs/web.md
// names the other modules.
import { $, api, el, find, loadGames, saveGame, setBoard } from "./common.js";
import { GameSocket } from "./socket.js";
import { bonusArea, isMine, nameOf, reducedMotion, render, replayTarget, setConfirmsMoves, setRenderer, storedEntry, ui } from "./store.js";
import { banner, say } from "./notices.js";
import { advance, confirmMove, sendIntent, setSocket, withdrawMove } from "./intents.js";
import { cancelHold, flipHold, placeHold, turnHold } from "./hand.js";
import { buildPlayerPanel } from "./board.js";
import { loadAnalysis, setReplay } from "./review.js";
import { drawAll, renderActions, renderHelp } from "./panels.js";
import { capture, play } from "./motion.js";
import { setSoundOn, soundFor, soundOn } from "./sound.js";
import { startAttention } from "./attention.js";
import { onChatLines, startChat } from "./chat.js";
import { startClocks } from "./clock.js";
import { onBoardClick, onBoardFocus, onBoardKey, onContextMenu, onGlobalKey, onOfferClick, onOfferKey, onOfferPointerDown, onPointerMove, onPointerUp, onWheel } from "./input.js";

// ================================================================ start

async function main() {
  const match = /^\/game\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) {
    say("This page needs a game id in its address: /game/ID.", "error");
    return;
  }
  ui.id = decodeURIComponent(match[1]);
  const spectate = `${location.origin}/game/${encodeURIComponent(ui.id)}`;
  $("spectate-link", HTMLAnchorElement).href = spectate;
  $("spectate-link", HTMLAnchorElement).textContent = spectate;
  $("download-txt", HTMLAnchorElement).href = `/api/games/${encodeURIComponent(ui.id)}/record.txt`;
  $("download-json", HTMLAnchorElement).href = `/api/games/${encodeURIComponent(ui.id)}/record.json`;
  $("download-txt", HTMLAnchorElement).setAttribute("download", `quiltmaker-${ui.id}.txt`);
  $("download-json", HTMLAnchorElement).setAttribute("download", `quiltmaker-${ui.id}.json`);
  document.title = `quiltmaker game ${ui.id}`;

  await joinIfInvited();
  await loadCatalogue();
  // The quilts are drawn at the catalogue's board size: built once it has come.
  for (const seat of [0, 1]) buildPlayerPanel(seat);
  bindControls();
  renderHelp();

  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new GameSocket(
    `${scheme}://${location.host}/ws/games/${encodeURIComponent(ui.id)}`,
    () => ({ type: "hello", token: storedEntry()?.token ?? null }),
    { message: onMessage, status: onConnection },
  );
  setSocket(socket);
  setRenderer(drawAll);
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
    say("You already hold a seat in this game; the invitation link is for your friend.", "info");
    return;
  }
  try {
    const { body } = await api(`/api/games/${encodeURIComponent(ui.id)}/join`, { json: { invite: code } });
    saveGame(ui.id, { token: body.token, seat: body.seat, created: Date.now() });
    say(`You joined the game: ${body.seat === 0 ? "you move first" : "your friend moves first"}.`, "info");
  } catch (error) {
    say(`Could not join with this invitation: ${error.message}. You are watching instead.`, "error");
  }
}

async function loadCatalogue() {
  // The page cannot draw patches without the catalogue: keep trying.
  for (let attempt = 0; ; attempt++) {
    try {
      const { body } = await api("/api/catalogue");
      ui.catalogue = body;
      setBoard(body);
      for (const patch of body.patches) ui.patches.set(patch.id, patch);
      return;
    } catch (error) {
      say(`Could not load the patches: ${error.message}. Retrying…`, "error");
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 10000)));
    }
  }
}

// ================================================================ server messages

function onConnection(status, attempts, reason) {
  ui.connection = status;
  if (ui.missing) return;
  const node = $("connection");
  node.dataset.status = status;
  if (status === "open") node.textContent = "";
  else if (status === "connecting") node.textContent = "Connecting…";
  else if (status === "reconnecting") {
    node.textContent = `Connection lost: reconnecting${attempts > 1 ? ` (attempt ${attempts})` : ""}…`;
  } else node.textContent = `Disconnected${reason ? `: ${reason}` : ""}.`;
  document.body.classList.toggle("offline", status !== "open");
  renderActions();
}

function onMessage(message) {
  switch (message.type) {
    case "welcome":
      ui.seat = message.seat === undefined ? null : message.seat;
      render();
      break;
    case "state":
      message.state.receivedAt = performance.now(); // the running clock counts down from here (clock.js)
      showInTurn(message.state);
      break;
    case "ack": {
      const intent = ui.pending.get(message.id);
      ui.pending.delete(message.id);
      if (intent?.kind === "rematch") rematchAcked = true; // its state, with the new game's id, may still be on the way
      const words = intent?.kind === "move" ? `Played ${intent.text}.` : intent?.kind === "undo" ? "Move taken back." : null;
      // The ack can come before its state: then the words wait for it (a new state clears the old words).
      if (words && (ui.state?.version ?? -1) < message.version) afterAck = { version: message.version, words };
      else if (words) say(ui.state?.result ? "" : words, "ok");
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
      say(`The server sent an unexpected message (${String(message.type)}).`, "error");
  }
}

function askEnding(kind) {
  ui.ending = kind;
  render();
}

/** Words for an acknowledged intent whose state has not arrived yet: {version, words}. */
let afterAck = null;
/** This browser asked for the rematch, and the server took it. */
let rematchAcked = false;

const ERROR_TITLES = {
  illegal: "Not allowed",
  lesson: "Not what this lesson asks",
  not_your_turn: "Not your turn",
  stale: "The game moved on",
  forbidden: "Not permitted",
  not_allowed: "Not available in this game",
  game_over: "The game is over",
  duplicate: "Already received",
  malformed: "Not understood",
  too_large: "Message too large",
  not_found: "No such game",
  busy: "Busy",
  rate_limited: "Too fast",
  time: "Out of time",
};

// ================================================================ the other side's moves, one at a time

/** At least this long between two moves of the other side (the AI's, an opponent's), so each is seen. */
const PACE_MS = 700;
const waiting = [];
let showing = false;
let lastOtherShown = 0;

/**
 * Show a state when its turn comes: a move by someone else, right after another
 * such move, waits until the one before has been seen (the AI's several moves
 * in a row play out one by one, never as a jump). With reduced motion, or for
 * this browser's own moves and bigger jumps (a reload), at once.
 */
async function showInTurn(state) {
  waiting.push(state);
  if (showing) return;
  showing = true;
  try {
    while (waiting.length) {
      const next = waiting.shift();
      const previous = ui.state;
      const byOther = !!previous && next.version === previous.version + 1 && !!next.last_move && !isMine(next.last_move.player);
      if (byOther && !reducedMotion()) {
        const wait = lastOtherShown + PACE_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      onState(next);
      if (byOther) lastOtherShown = Date.now();
    }
  } finally {
    showing = false;
  }
}

/** The server has no game at this address: say so plainly, with the way back, and stop. */
function showMissing() {
  ui.missing = true;
  $("game").hidden = true;
  $("missing").hidden = false;
  $("game-title").textContent = "No such game";
  $("connection").textContent = "";
  document.title = "No such game · quiltmaker";
  document.body.classList.remove("offline");
}

function onError(message) {
  if (message.code === "not_found" && !ui.state) {
    showMissing();
    return;
  }
  const intent = message.id ? ui.pending.get(message.id) : null;
  if (message.id) ui.pending.delete(message.id);
  if (message.code === "forbidden" && ui.seat === undefined) ui.seat = null; // the hello was refused: watching
  const title = ERROR_TITLES[message.code] || "Error";
  // A lesson's refusal speaks of the move in words; the notation would only distract.
  const what = intent && message.code !== "lesson" ? ` (${intent.text})` : "";
  say(`${title}${what}: ${message.message || message.code}`, "error");
}

/** Seats seen here at least once on this page: the next arrival is "back", not "joined". */
const seenHere = new Set();

/** Online: say when the other player opens the game, leaves it, and comes back. */
function noticePresence(previous, state) {
  if (state.mode !== "online" || state.result) return;
  for (const seat of [0, 1]) {
    if (isMine(seat)) continue;
    const here = !!state.presence?.[seat];
    const was = previous ? !!previous.presence?.[seat] : here;
    if (here && !was) banner(`${nameOf(seat)} ${seenHere.has(seat) ? "is back" : "joined the game"}.`, "presence", 6000);
    else if (!here && was) banner(`${nameOf(seat)} left the game.`, "presence", 8000);
    if (here) seenHere.add(seat);
  }
}

function onState(state) {
  const previous = ui.state;
  noticePresence(previous, state);
  // Where the moving things are before the new state is drawn (only for a live, one-move step).
  const motion = ui.replay.ply === null ? capture(previous, state) : null;
  ui.state = state;
  const changed = !previous || previous.version !== state.version;
  if (changed) {
    // A new position: whatever was in hand or hinted belongs to the old one.
    if (ui.hold) cancelHold(null);
    ui.cursor = null;
    ui.hint = null;
    ui.confirming = null;
    ui.arrivedAt = Date.now(); // the last move's squares and token are drawn arriving for a moment
    if (previous) {
      say("", "info"); // what the line said was about the position before
      noticeChanges(previous, state);
    }
    if (afterAck && state.version >= afterAck.version) {
      if (!state.result) say(afterAck.words, "ok");
      afterAck = null;
    }
  }
  // A spectator of a live game whose replay shows the latest move follows on.
  if (ui.replay.ply !== null && ui.replay.ply >= (state.moves || []).length) ui.replay.ply = null;
  if (changed) {
    // After a keyboard placement the focus sat on a quilt: bring it back to the patches.
    queueMicrotask(() => {
      const active = document.activeElement;
      if (active?.classList?.contains("quilt-board") && !active.classList.contains("acting")) {
        (find(".offer.affordable") || $("advance", HTMLButtonElement))?.focus();
      }
    });
  }
  if (state.result && !(previous && previous.result)) {
    ui.replay.analysisState = "idle";
    ui.replay.analysis = null;
    ui.replay.positions = null;
  }
  if (state.result && ui.replay.analysisState === "idle") loadAnalysis();
  if (state.rematch && !(previous && previous.rematch)) onRematch(state.rematch, !!previous);
  render();
  play(motion);
  soundFor(previous, state);
}

/** The next game exists: keep this seat's token for it, and go there if this browser asked for it. */
function onRematch(id, live) {
  const entry = storedEntry();
  if (entry && entry.token && !loadGames()[id]) {
    // The server moved each token to the other seat (pass-and-play keeps both).
    const seat = typeof entry.seat === "number" ? 1 - entry.seat : entry.seat;
    saveGame(id, { token: entry.token, seat, created: Date.now() });
  }
  const asked = rematchAcked || [...ui.pending.values()].some((intent) => intent.kind === "rematch");
  if (asked) {
    location.assign(`/game/${encodeURIComponent(id)}`);
  } else if (live) {
    // Only an online game has an opponent in another browser; elsewhere it was this player in another tab.
    const who = ui.state?.mode === "online" && typeof ui.seat === "number" ? "Your opponent has" : ui.seat === null ? "The players have" : "You have";
    banner(`${who} started a rematch: follow the link under the final score.`, "rematch", 15000);
  }
}

/** Banners for events worth a pause: the bonus area and the end of the game. */
function noticeChanges(previous, state) {
  if (previous.bonus === -1 && state.bonus !== -1 && state.bonus !== null && state.bonus !== undefined) {
    const who = isMine(state.bonus) ? "You complete" : `${nameOf(state.bonus)} completes`;
    const takes = isMine(state.bonus) ? "take" : "takes";
    banner(`${who} a ${bonusArea()} area and ${takes} the bonus: +${ui.catalogue.bonus_points} points.`, "bonus", 12000);
  }
  if (!previous.result && state.result) {
    const winner = state.result.winner;
    banner(`Game over: ${nameOf(winner)} ${isMine(winner) && ui.seat !== "both" ? "(you) " : ""}wins.`, "over", 15000);
  }
}

function onHint(message) {
  ui.hint = { ...message, version: message.version ?? ui.state?.version };
  say("", "info");
  ui.pending.delete(message.id);
  render();
}

async function copyText(text, what) {
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
      if (!ok) throw new Error("the browser refused");
    }
    say(`${what} copied.`, "ok");
  } catch (error) {
    say(`Could not copy the ${what.toLowerCase()} (${error.message}): select it and copy it by hand.`, "error");
  }
}

// ================================================================ wiring

function bindControls() {
  $("advance", HTMLButtonElement).addEventListener("click", advance);
  $("undo", HTMLButtonElement).addEventListener("click", () => sendIntent({ type: "undo" }, { kind: "undo", text: "undo" }));
  $("hint", HTMLButtonElement).addEventListener("click", () => {
    sendIntent({ type: "hint" }, { kind: "hint", text: "hint" });
    say("Asking for a hint…", "info");
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
    render();
  });
  startAttention();
  startChat();
  startClocks((state) => { if (ui.state && state.version >= ui.state.version) showInTurn(state); });
  $("claim").addEventListener("click", () => sendIntent({ type: "claim" }, { kind: "claim", text: "claim" }));
  const sound = $("sound-setting", HTMLInputElement);
  sound.checked = soundOn();
  sound.addEventListener("change", () => setSoundOn(sound.checked));
  $("rotate").addEventListener("click", () => turnHold(1));
  $("flip").addEventListener("click", () => flipHold());
  $("place").addEventListener("click", () => placeHold());
  $("cancel").addEventListener("click", () => cancelHold());
  $("copy-invite").addEventListener("click", () => copyText($("invite-link", HTMLAnchorElement).href, "Invitation link"));
  $("copy-spectate").addEventListener("click", () => copyText($("spectate-link", HTMLAnchorElement).href, "Spectator link"));
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
      ui.hold.drag = null;
      $("floater").hidden = true;
      document.body.classList.remove("dragging");
    }
  });
  document.addEventListener("keydown", onGlobalKey);
  document.addEventListener("contextmenu", onContextMenu);
  window.addEventListener("wheel", onWheel, { passive: false });
}

main().catch((error) => say(`The page failed to start: ${error.message}`, "error"));
