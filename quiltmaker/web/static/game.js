// The game page: draws what the server sends and turns clicks, drags and
// keys into intents. It holds no rules: a placement is green because the
// server listed it in `legal`, and every refusal comes back as an `error`
// message that is shown to the player.
import {
  ApiError, BOARD, SEAT_COLOURS, api, el, fill, icon, loadGames, patchColour, plural, saveGame,
  shapeNode, squareName, tokenBadge, uniqueId,
} from "./common.js";
import { GameSocket } from "./socket.js";
import { buildQuilt, cellsOverlay, paintQuilt } from "./quilt.js";
import { evalGraph, spinner } from "./replay.js";

// ================================================================ the one state object

const ui = {
  id: null,               // game id, from the URL
  catalogue: null,        // GET /api/catalogue
  patches: new Map(),     // patch id -> catalogue entry
  seat: undefined,        // from welcome: 0, 1, "both", null (spectator); undefined before
  state: null,            // latest server state
  connection: "connecting",
  hold: null,             // the patch in hand: {patch, oi, row, col, drag}
  cursor: null,           // keyboard cursor for a special patch: {row, col}
  hint: null,             // last hint reply, for the state version it was asked in
  pending: new Map(),     // intent id -> {kind, text}
  banners: [],            // transient banners: {id, text, kind, until}
  replay: { ply: null, positions: null, positionsLoading: false, analysis: null, analysisState: "idle", analysisError: null },
  quilts: [],             // built quilt boards, one per seat
  lastMovesLength: 0,
};

let socket = null;
const $ = (id) => document.getElementById(id);

// ================================================================ start

async function main() {
  const match = /^\/game\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) {
    say("This page needs a game id in its address: /game/ID.", "error");
    return;
  }
  ui.id = decodeURIComponent(match[1]);
  const spectate = `${location.origin}/game/${encodeURIComponent(ui.id)}`;
  $("spectate-link").href = spectate;
  $("spectate-link").textContent = spectate;
  $("download-txt").href = `/api/games/${encodeURIComponent(ui.id)}/record.txt`;
  $("download-json").href = `/api/games/${encodeURIComponent(ui.id)}/record.json`;
  $("download-txt").setAttribute("download", `quiltmaker-${ui.id}.txt`);
  $("download-json").setAttribute("download", `quiltmaker-${ui.id}.json`);
  document.title = `quiltmaker game ${ui.id}`;

  for (const seat of [0, 1]) buildPlayerPanel(seat);
  bindControls();

  await joinIfInvited();
  await loadCatalogue();
  renderHelp();

  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new GameSocket(
    `${scheme}://${location.host}/ws/games/${encodeURIComponent(ui.id)}`,
    () => ({ type: "hello", token: storedEntry()?.token ?? null }),
    { message: onMessage, status: onConnection },
  );
  socket.connect();
}

function storedEntry() {
  return loadGames()[ui.id] || null;
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
    say(`You joined the game as player ${body.seat}.`, "info");
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
      onState(message.state);
      break;
    case "ack": {
      const intent = ui.pending.get(message.id);
      ui.pending.delete(message.id);
      if (intent && intent.kind === "move") say(`Played ${intent.text}.`, "ok");
      else if (intent && intent.kind === "undo") say("Move taken back.", "ok");
      break;
    }
    case "hint":
      onHint(message);
      break;
    case "error":
      onError(message);
      break;
    default:
      // Unknown messages are shown, never dropped silently.
      say(`The server sent an unexpected message (${String(message.type)}).`, "error");
  }
}

const ERROR_TITLES = {
  illegal: "Not allowed",
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
};

function onError(message) {
  const intent = message.id ? ui.pending.get(message.id) : null;
  if (message.id) ui.pending.delete(message.id);
  if (message.code === "forbidden" && ui.seat === undefined) ui.seat = null; // the hello was refused: watching
  const title = ERROR_TITLES[message.code] || "Error";
  const what = intent ? ` (${intent.text})` : "";
  say(`${title}${what}: ${message.message || message.code}`, "error");
}

function onState(state) {
  const previous = ui.state;
  ui.state = state;
  const changed = !previous || previous.version !== state.version;
  if (changed) {
    // A new position: whatever was in hand or hinted belongs to the old one.
    if (ui.hold) cancelHold(null);
    ui.cursor = null;
    ui.hint = null;
    if (previous) noticeChanges(previous, state);
  }
  // A spectator of a live game whose replay shows the latest move follows on.
  if (ui.replay.ply !== null && ui.replay.ply >= (state.moves || []).length) ui.replay.ply = null;
  if (changed) {
    // After a keyboard placement the focus sat on a quilt: bring it back to the patches.
    queueMicrotask(() => {
      const active = document.activeElement;
      if (active?.classList?.contains("quilt-board") && !active.classList.contains("acting")) {
        (document.querySelector(".offer.affordable") || $("advance"))?.focus();
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
}

/** The next game exists: keep this seat's token for it, and go there if this browser asked for it. */
function onRematch(id, live) {
  const entry = storedEntry();
  if (entry && entry.token && !loadGames()[id]) {
    // The server moved each token to the other seat (pass-and-play keeps both).
    const seat = typeof entry.seat === "number" ? 1 - entry.seat : entry.seat;
    saveGame(id, { token: entry.token, seat, created: Date.now() });
  }
  const asked = [...ui.pending.values()].some((intent) => intent.kind === "rematch");
  if (asked) {
    location.assign(`/game/${encodeURIComponent(id)}`);
  } else if (live) {
    // Only an online game has an opponent in another browser; elsewhere it was this player in another tab.
    const who = ui.state?.mode === "online" && typeof ui.seat === "number" ? "Your opponent has" : ui.seat === null ? "The players have" : "You have";
    banner(`${who} started a rematch: follow the link under the final score.`, "rematch", 15000);
  }
}

/** "7x7": the size of the bonus area, as the catalogue gives it. */
function bonusArea() {
  return `${ui.catalogue.bonus_size}x${ui.catalogue.bonus_size}`;
}

/** Banners for events worth a pause: the bonus area and the end of the game. */
function noticeChanges(previous, state) {
  if (previous.bonus === -1 && state.bonus !== -1 && state.bonus !== null && state.bonus !== undefined) {
    const who = isMine(state.bonus) ? "You complete" : `${nameOf(state.bonus)} completes`;
    banner(`${who} a ${bonusArea()} area and takes the bonus: +${ui.catalogue.bonus_points} points.`, "bonus", 12000);
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

// ================================================================ helpers on the state

function nameOf(seat) {
  const names = ui.state?.names || [];
  return names[seat] || `player ${seat}`;
}

/** "your" for this browser's own seat, else "Ada's". */
function possessive(seat) {
  return ui.seat === seat ? "your" : `${nameOf(seat)}'s`;
}

function isMine(seat) {
  return ui.seat === "both" || (ui.seat !== null && ui.seat !== undefined && ui.seat === seat);
}

function isAiSeat(seat) {
  return !!ui.state?.ai && ui.state.ai.seat === seat;
}

/** May this browser act now? (The server has the last word: this only decides
 * what to offer.) */
// Why this browser cannot act now, for the message line (null when it can).
function whyNotAct() {
  const s = ui.state;
  if (ui.seat === null) return "You are watching: spectators cannot play.";
  if (s && s.status === "waiting") return "Waiting for your friend to open the invitation link.";
  if (s && (s.result || s.status === "over")) return "The game is over.";
  if (ui.replay.ply !== null) return "You are looking at an earlier position: go to the last move to play.";
  return canAct() ? null : "It is not your turn.";
}

function canAct() {
  const s = ui.state;
  if (!s || s.result || s.status === "waiting" || s.status === "over" || s.status === "finished") return false;
  if (ui.replay.ply !== null || s.to_move === null || s.to_move === undefined) return false;
  if (isAiSeat(s.to_move)) return false;
  return isMine(s.to_move);
}

function legal() {
  return ui.state?.legal || { advance: null, buys: [], specials: [] };
}

function buyEntry(patchId) {
  return (legal().buys || []).find((b) => b.patch === patchId) || null;
}

/** Anchors the server allows for this patch in orientation `oi`. */
function legalAnchors(patchId, oi) {
  const buy = buyEntry(patchId);
  const patch = ui.patches.get(patchId);
  if (!buy || !buy.affordable || !patch) return [];
  const entry = (buy.orientations || []).find(
    (o) => patch.transforms[o.transform] === oi,
  );
  return entry ? entry.anchors : [];
}

function canPlace(buy) {
  return (buy.orientations || []).some((o) => (o.anchors || []).length > 0);
}

function specialsPending() {
  return canAct() && (legal().specials || []).length > 0;
}

// ================================================================ what to draw: live or replayed

/** The position to draw: the live state, or a replayed past position. */
function view() {
  const s = ui.state;
  const k = ui.replay.ply;
  const shown = k === null ? null : ui.replay.positions?.[k];
  if (!shown) {
    return s
      ? { live: true, ply: (s.moves || []).length, quilts: s.quilts, times: s.times, buttons: s.buttons, income: s.income,
          on_top: s.on_top, specials: s.specials, circle: s.circle, offered: s.offered, scores: s.scores,
          forecast: s.forecast, to_move: s.to_move, bonus: s.bonus }
      : null;
  }
  // A past position, as the server drew it (GET /api/games/{id}/positions): the page rebuilds nothing.
  const analysed = ui.replay.analysis?.positions?.find((p) => p.ply === k) || ui.replay.analysis?.positions?.[k] || null;
  return {
    live: false, ply: k, quilts: shown.quilts, times: shown.times, buttons: shown.buttons, income: shown.income,
    on_top: shown.on_top, specials: shown.specials, circle: shown.circle, offered: shown.offered, scores: shown.scores,
    forecast: null, to_move: shown.to_move, bonus: shown.bonus, analysed,
  };
}

// ================================================================ render

function render() {
  const v = view();
  keepFocus(() => {
    renderHeader();
    renderBanners();
    renderTrack(v);
    renderCircle(v);
    renderPlayers(v);
    renderTurn(v);
    renderActions();
    renderHintBox();
    renderLinks();
    renderResult();
    renderReplay();
    renderMoves();
    renderOverlays();
  });
}

/** Re-rendering replaces buttons; put keyboard focus back on their successor. */
function keepFocus(draw) {
  const active = document.activeElement;
  const key = active && active !== document.body ? active.dataset.focusKey || active.id : null;
  draw();
  if (key && !document.contains(active)) {
    let next = document.querySelector(`[data-focus-key="${CSS.escape(key)}"]`) || document.getElementById(key);
    // The focused patch was bought: move to the patches now on offer.
    if (!next && key.startsWith("offer-")) next = document.querySelector(".offer");
    if (next) next.focus({ preventScroll: true });
  }
}

function renderHeader() {
  const s = ui.state;
  $("version").textContent = s ? `v${s.version}` : "";
  if (!s) return;
  const modes = { ai: `against quiltmaker ${s.ai?.level ?? ""}`.trim(), local: "pass-and-play", online: "online" };
  const seat = ui.seat === "both" ? "you play both seats" : ui.seat === null ? "you are watching" : ui.seat === undefined ? "" : `you are player ${ui.seat}`;
  fill(
    $("game-title"),
    el("strong", {}, `${nameOf(0)} vs ${nameOf(1)}`),
    ` · ${modes[s.mode] || s.mode} · ${s.variant} track${seat ? ` · ${seat}` : ""}`,
  );
}

// ---------------------------------------------------------------- banners

function banner(text, kind, ms) {
  const id = uniqueId();
  ui.banners.push({ id, text, kind });
  renderBanners();
  setTimeout(() => {
    ui.banners = ui.banners.filter((b) => b.id !== id);
    renderBanners();
  }, ms);
}

function renderBanners() {
  const items = [];
  const s = ui.state;
  if (s && ui.replay.ply !== null) {
    items.push(
      el("div", { class: "banner replay-banner", "data-testid": "replay-banner" },
        `Replay: the position after move ${ui.replay.ply} of ${(s.moves || []).length}. `,
        el("button", { type: "button", class: "link-button", onclick: () => setReplay(null) }, "Back to the game")),
    );
  } else if (s && s.pending > 0 && !s.result) {
    if (specialsPending()) {
      items.push(el("div", { class: "banner special-banner", "data-testid": "special-banner", role: "alert" },
        el("strong", {}, "You earned a special patch: place it."),
        " Click any empty square of your quilt (or focus your quilt, move with the arrow keys and press Enter)."));
    } else {
      items.push(el("div", { class: "banner special-banner", "data-testid": "special-banner" },
        `${nameOf(s.to_move)} earned a special 1x1 patch and is placing it.`));
    }
  }
  for (const b of ui.banners) items.push(el("div", { class: `banner ${b.kind}-banner`, "data-testid": `${b.kind}-banner` }, b.text));
  fill($("banners"), items);
}

// ---------------------------------------------------------------- time track

function renderTrack(v) {
  const track = $("track");
  const s = ui.state;
  if (!v || !ui.catalogue) return;
  const last = ui.catalogue.last_space;
  const variant = s?.variant || ui.catalogue.default_variant;
  const income = new Set(s?.income_spaces || ui.catalogue.tracks?.[variant]?.income_spaces || []);
  const specials = new Set(v.specials || []);
  const cells = [];
  for (let space = 0; space <= last; space++) {
    const here = v.times ? [0, 1].filter((p) => v.times[p] === space) : [];
    // With both tokens on one space, the one on top is drawn last (above).
    if (here.length === 2 && v.on_top === 0) here.reverse();
    const tokens = here.map((p) => {
      const top = here.length === 2 && p === v.on_top;
      return el("span", { class: `track-token token token-${p}${top ? " on-top" : ""}`, title: `${nameOf(p)}${top ? " (on top)" : ""}`, "data-testid": `token-${p}` }, String(p));
    });
    const parts = [];
    if (income.has(space)) parts.push("button income");
    if (specials.has(space)) parts.push("special patch");
    for (const p of here) parts.push(`${nameOf(p)}'s token${here.length === 2 && p === v.on_top ? " (on top)" : ""}`);
    cells.push(
      el("div", {
        class: `track-space${income.has(space) ? " income" : ""}${specials.has(space) ? " has-special" : ""}${space % 10 === 0 ? " tens" : ""}`,
        role: "listitem",
        "data-space": space,
        "aria-label": `space ${space}${parts.length ? `: ${parts.join(", ")}` : ""}`,
      },
      el("span", { class: "space-number" }, String(space)),
      el("span", { class: "space-marks", "aria-hidden": "true" },
        income.has(space) ? el("span", { class: "mark-income", title: "button income" }, "◉") : null,
        specials.has(space) ? el("span", { class: "mark-special", title: "special patch" }, "■") : null),
      el("span", { class: `space-tokens${here.length === 2 ? " stacked" : ""}` }, tokens)),
    );
  }
  fill(track, cells);
  let caption = "";
  if (v.times) {
    caption = `${nameOf(0)} (0) on space ${v.times[0]}, ${nameOf(1)} (1) on space ${v.times[1]}.`;
    if (v.times[0] === v.times[1]) {
      const mover = v.times[0] < last ? " and moves first" : "";
      caption += ` Same space: ${possessive(v.on_top)} token is on top${mover}.`;
    }
  } else if (!v.live) {
    caption = ui.replay.analysisState === "loading" ? "Times of past positions are being computed…" : "Times of past positions come with the analysis at the end of the game.";
  }
  $("track-caption").textContent = caption;
}

// ---------------------------------------------------------------- the patch circle

function patchFacts(patch) {
  return `costs ${plural(patch.cost, "button")}, ${patch.time} time, income ${patch.income}, ${plural(patch.size ?? patch.orientations[0].cells.length, "square")}`;
}

let circleKey = "";
function renderCircle(v) {
  const box = $("circle");
  if (!v || !ui.catalogue) return;
  const offered = new Set(v.offered || []);
  const acting = v.live && canAct() && !specialsPending();
  // Rebuild only when something shown changed: replacing the offer under a
  // finger would break its touch drag (the pointer is captured by that element).
  const key = JSON.stringify([v.circle, v.offered, acting, v.live && legal().buys, ui.state?.version]);
  if (key === circleKey && box.childElementCount) {
    for (const node of box.querySelectorAll(".offer")) {
      const held = !!ui.hold && ui.hold.patch === Number(node.dataset.patch);
      node.classList.toggle("held", held);
      node.setAttribute("aria-pressed", held ? "true" : "false");
    }
    return;
  }
  circleKey = key;
  const items = (v.circle || []).map((id, index) => {
    const patch = ui.patches.get(id);
    if (!patch) return el("span", { class: "circle-item" }, `#${id}`);
    const isOffered = offered.has(id);
    const facts = el("span", { class: "facts" },
      el("span", { class: "fact cost", title: "cost in buttons" }, `${patch.cost}◉`),
      el("span", { class: "fact time", title: "time" }, `${patch.time}`, icon("time")),
      el("span", { class: `fact income${patch.income ? "" : " none"}`, title: "button income" }, `+${patch.income}`));
    if (!isOffered) {
      return el("span", { class: "circle-item", "data-patch": id, role: "img", "aria-label": `patch ${id}, ${index + 1} in the circle: ${patchFacts(patch)}` },
        shapeNode(id, patch.orientations[0].cells, 8), facts);
    }
    const buy = v.live ? buyEntry(id) : null;
    // Pickable: affordable and placeable somewhere (the server lists the anchors).
    const affordable = acting && buy && buy.affordable && canPlace(buy);
    const reason = v.live && buy && !(buy.affordable && canPlace(buy)) ? buy.reason || "cannot be bought now" : "";
    const held = ui.hold && ui.hold.patch === id;
    const label = `Patch ${id} on offer: ${patchFacts(patch)}.` +
      (affordable ? " Press Enter to pick it up." : reason ? ` Cannot buy: ${reason}.` : acting ? "" : " Not your turn.");
    return el("button", {
      type: "button",
      class: `circle-item offer${affordable ? " affordable" : ""}${held ? " held" : ""}${reason ? " unaffordable" : ""}`,
      "data-testid": `offer-${id}`,
      "data-patch": id,
      "data-focus-key": `offer-${id}`,
      "data-affordable": affordable ? "true" : "false",
      "aria-disabled": affordable ? "false" : "true",
      "aria-pressed": held ? "true" : "false",
      "aria-label": label,
      title: reason || (affordable ? "Pick up, then place it on your quilt" : ""),
    },
    shapeNode(id, patch.orientations[0].cells, 13),
    facts,
    reason ? el("span", { class: "reason" }, reason) : null);
  });
  if (!items.length) items.push(el("p", { class: "caption" }, "The circle is empty."));
  fill(box, items);
}

// ---------------------------------------------------------------- players and quilts

function buildPlayerPanel(seat) {
  const panel = $(`player-${seat}`);
  const head = el("header", { class: "player-head" });
  const stats = el("dl", { class: "stats" });
  panel.append(head, stats);
  const quilt = buildQuilt(panel, seat);
  ui.quilts[seat] = { ...quilt, head, stats, panel };
  quilt.board.addEventListener("keydown", (event) => onBoardKey(event, seat));
  quilt.board.addEventListener("focus", () => onBoardFocus(seat));
}

function stat(label, value, testid, title) {
  return [el("dt", { title }, label), el("dd", { "data-testid": testid }, value === null || value === undefined ? "–" : String(value))];
}

function renderPlayers(v) {
  const s = ui.state;
  for (const seat of [0, 1]) {
    const q = ui.quilts[seat];
    const grid = v?.quilts?.[seat];
    const empty = paintQuilt(q, grid);
    if (!s) continue;
    const toMove = v.to_move === seat && !s.result;
    q.panel.classList.toggle("to-move", toMove);
    q.panel.style.setProperty("--seat-colour", SEAT_COLOURS[seat]);
    const tags = [];
    if (isAiSeat(seat)) tags.push(el("span", { class: "tag" }, "computer"));
    else if (ui.seat === seat) tags.push(el("span", { class: "tag you" }, "you"));
    if (toMove) tags.push(el("span", { class: "tag move" }, "to move"));
    if (v.live && s.bonus === seat) tags.push(el("span", { class: "tag bonus", title: `completed a ${bonusArea()} area first` }, `${bonusArea()} bonus +${ui.catalogue.bonus_points}`));
    fill(q.head, tokenBadge(seat), el("h2", { class: "player-name" }, nameOf(seat)), el("span", { class: "seat-label" }, `player ${seat}`), tags);
    const penalty = ui.catalogue.empty_square_penalty;
    fill(q.stats,
      stat("Buttons", v.buttons?.[seat], `buttons-${seat}`, "buttons held: money now, points at the end"),
      stat("Income", v.income?.[seat], `income-${seat}`, "buttons paid each time you cross a button-income space"),
      stat("Space", v.times?.[seat], `space-${seat}`, "position on the time track"),
      stat("Empty", `${empty} (−${empty * penalty})`, `empty-${seat}`, `empty squares, ${penalty} points each at the end`),
      stat("Score now", v.scores?.[seat], `score-${seat}`, "the score if the game ended now"),
      stat("Forecast", v.forecast?.[seat], `forecast-${seat}`, "the score if this player only advanced from now on, collecting income"),
    );
    const acting = v.live && canAct() && s.to_move === seat;
    q.board.classList.toggle("acting", acting);
    q.board.classList.toggle("placing-special", acting && specialsPending());
    q.board.tabIndex = acting || ui.seat === seat ? 0 : -1;
    q.board.setAttribute("aria-label", boardLabel(seat, acting));
  }
}

function boardLabel(seat, acting) {
  let text = `Quilt of ${nameOf(seat)}`;
  if (acting && ui.hold) text += ": arrow keys move the patch, R turns, F flips, Enter places, Escape cancels";
  else if (acting && specialsPending()) text += ": place your special patch; arrow keys choose a square, Enter places it";
  return text;
}

// ---------------------------------------------------------------- whose turn

let turnKey = "";
function renderTurn(v) {
  const s = ui.state;
  const node = $("turn");
  // The turn box is a live region: redraw it only when it says something new,
  // so a screen reader does not repeat it after every message.
  const key = JSON.stringify([s?.version, s?.status, v?.live, ui.seat, ui.connection === "open", s?.ai?.thinking]);
  if (key === turnKey) return;
  turnKey = key;
  if (!s) {
    node.textContent = ui.connection === "open" ? "Waiting for the game…" : "Connecting to the game…";
    return;
  }
  if (s.result) {
    const w = s.result.winner;
    fill(node, el("p", { class: "turn-main" }, tokenBadge(w), ` Game over: ${nameOf(w)} wins${ui.seat === w ? " (you)" : ""}.`));
  } else if (s.status === "waiting") {
    fill(node, el("p", { class: "turn-main" }, "Waiting for your friend to open the invitation."));
  } else if (!v.live) {
    fill(node, el("p", { class: "turn-main" }, "Replaying a past position."), el("p", { class: "turn-reason" }, "Go to the last move to play on."));
  } else {
    const p = s.to_move;
    const who = canAct() ? (ui.seat === "both" ? `${nameOf(p)}'s turn (player ${p})` : "Your turn") : `${nameOf(p)} to move`;
    fill(node,
      el("p", { class: "turn-main" }, tokenBadge(p), ` ${who}`),
      s.turn_reason ? el("p", { class: "turn-reason" }, `Why: ${s.turn_reason}.`.replace(/\.\.$/, ".")) : null,
      ui.seat === null ? el("p", { class: "turn-reason" }, "You are watching this game.") : null);
  }
  // Also while it is simply the computer's turn: a page that connects before
  // the server has started the computer's search gets thinking: false.
  // The tab's title says when it is your turn, for a game left in the background.
  document.title = `${canAct() ? "● Your turn · " : s.result ? "Game over · " : ""}${nameOf(0)} vs ${nameOf(1)} · quiltmaker`;
  const thinking = !!s.ai && !s.result && (!!s.ai.thinking || (s.status === "playing" && s.to_move === s.ai.seat));
  const ai = $("ai-thinking");
  ai.hidden = !thinking;
  if (thinking) fill(ai, el("span", { class: "spinner", "aria-hidden": "true" }), ` ${nameOf(s.ai.seat)} is thinking…`);
}

// ---------------------------------------------------------------- action buttons

function renderActions() {
  const s = ui.state;
  const advance = $("advance");
  const player = ui.seat !== null && ui.seat !== undefined;
  const live = ui.replay.ply === null;
  const act = canAct() && ui.connection === "open";
  const a = legal().advance;
  if (a && s && !s.result) {
    advance.textContent = `Advance ${plural(a.spaces, "space")} · +${plural(a.buttons, "button")}`;
    advance.setAttribute("aria-label", `Advance ${plural(a.spaces, "space")} and take ${plural(a.buttons, "button")} (key A)`);
  } else {
    advance.textContent = "Advance";
    advance.setAttribute("aria-label", "Advance (not possible now)");
  }
  advance.disabled = !(act && a);
  advance.hidden = !player || !!s?.result;
  const undo = $("undo");
  undo.hidden = !(player && s && s.undo && !s.result && live);
  undo.disabled = ui.connection !== "open";
  const hint = $("hint");
  hint.hidden = !(player && s && s.hints && !s.result && live);
  hint.disabled = !act;

  const holding = !!ui.hold;
  $("hold-controls").hidden = !holding;
  if (holding) {
    const patch = ui.patches.get(ui.hold.patch);
    const o = patch.orientations[ui.hold.oi];
    const ok = holdIsLegal();
    fill($("hold-label"),
      `Patch ${ui.hold.patch} (${o.transform}) at ${squareName(ui.hold.row, ui.hold.col)}: `,
      el("strong", { class: ok ? "ok" : "bad" }, ok ? "fits ✓" : "not allowed here ✗"));
  }
}

function renderHintBox() {
  const box = $("hint-box");
  const h = ui.hint;
  if (!h || h.version !== ui.state?.version) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const prob = typeof h.win_probability === "number" ? `${Math.round(h.win_probability * 100)}%` : "?";
  const margin = typeof h.expected_margin === "number" ? `${h.expected_margin >= 0 ? "+" : ""}${h.expected_margin.toFixed(1)}` : "?";
  fill(box,
    el("p", {}, el("strong", {}, "Hint: "), h.best_move_words, el("code", {}, ` ${h.best_move}`)),
    el("p", { class: "caption" }, `Chance of winning with it: ${prob}; expected margin ${margin} points.`),
    el("button", { type: "button", class: "link-button", onclick: () => { ui.hint = null; render(); } }, "dismiss"));
}

// ---------------------------------------------------------------- links

function renderLinks() {
  const s = ui.state;
  const entry = storedEntry();
  const waiting = s && s.mode === "online" && s.status === "waiting";
  const invite = $("invite");
  invite.hidden = !(waiting && entry && entry.invite);
  if (!invite.hidden) {
    const link = `${location.origin}/game/${encodeURIComponent(ui.id)}?invite=${encodeURIComponent(entry.invite)}`;
    $("invite-link").href = link;
    $("invite-link").textContent = link;
  }
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

// ---------------------------------------------------------------- the end: score breakdown

function renderResult() {
  const s = ui.state;
  const box = $("result");
  if (!s || !s.result) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const r = s.result;
  const b = r.breakdown || [];
  const penalty = ui.catalogue.empty_square_penalty;
  const row = (label, get, cls = "") =>
    el("tr", { class: cls }, el("th", { scope: "row" }, label), [0, 1].map((p) => el("td", { "data-testid": `result-${cls || label.split(" ")[0].toLowerCase()}-${p}` }, b[p] ? get(b[p], p) : "–")));
  const signed = (n) => (n > 0 ? `−${n}` : n < 0 ? `−${-n}` : "0");
  fill(box,
    el("h2", { class: "panel-title" }, "Final score"),
    el("p", { class: "winner" }, tokenBadge(r.winner), ` ${nameOf(r.winner)} wins${(r.scores || []).length === 2 ? `, ${r.scores[r.winner]} to ${r.scores[1 - r.winner]}` : ""}.`),
    r.tiebreak ? el("p", { class: "tiebreak", "data-testid": "tiebreak" }, `Tied on points: ${nameOf(r.winner)} wins the tie-break by reaching space ${ui.catalogue.last_space} first.`) : null,
    el("table", { class: "score-table" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), [0, 1].map((p) => el("th", { scope: "col" }, tokenBadge(p), ` ${nameOf(p)}`)))),
      el("tbody", {},
        row("Buttons", (x) => x.buttons),
        row(`${bonusArea()} bonus`, (x) => (x.bonus ? `+${x.bonus}` : "0"), "bonus"),
        row("Empty squares", (x) => x.empty, "empty"),
        row(`Penalty (${penalty} each)`, (x) => signed(Math.abs(x.penalty)), "penalty"),
        row("Total", (x) => x.total, "total"))),
    rematchOffer());
}

/** A link to the rematch once it exists; before that, the button that starts it (players only). */
function rematchOffer() {
  const s = ui.state;
  if (s.rematch) {
    const watching = ui.seat === null || ui.seat === undefined;
    return el("p", { class: "rematch", "data-testid": "rematch-started" },
      "The rematch has started, seats swapped: ",
      el("a", { href: `/game/${encodeURIComponent(s.rematch)}`, "data-testid": "rematch-link" }, watching ? "watch it" : "play it"),
      ".");
  }
  if (ui.seat === null || ui.seat === undefined) return null;
  return el("p", { class: "rematch" },
    el("button", {
      type: "button", class: "primary", "data-testid": "rematch",
      onclick: () => sendIntent({ type: "rematch" }, { kind: "rematch", text: "rematch" }),
    }, "Rematch"),
    " the same players, seats swapped: the side that moved second starts.");
}

// ---------------------------------------------------------------- replay

function replayAvailable() {
  const s = ui.state;
  return !!s && (!!s.result || ui.seat === null) && (s.moves || []).length > 0;
}

function renderReplay() {
  const box = $("replay");
  const s = ui.state;
  box.hidden = !replayAvailable();
  if (box.hidden) return;
  const total = (s.moves || []).length;
  const k = ui.replay.ply === null ? total : ui.replay.ply;
  $("replay-position").textContent = `move ${k} of ${total}${ui.replay.ply === null ? " (current)" : ""}`;
  $("replay-first").disabled = k === 0;
  $("replay-prev").disabled = k === 0;
  $("replay-next").disabled = k >= total;
  $("replay-last").disabled = k >= total;
  const evalBox = $("eval");
  const a = ui.replay;
  const positions = a.analysis?.positions || [];
  const evaluated = positions.some((p) => typeof p.win_probability_player0 === "number");
  if (evaluated) {
    const current = Math.min(k, positions.length - 1);
    const here = positions[current];
    const pct = typeof here?.win_probability_player0 === "number" ? Math.round(here.win_probability_player0 * 100) : null;
    fill(evalBox,
      evalGraph(positions, current, [nameOf(0), nameOf(1)], (ply) => setReplay(ply)),
      el("p", { class: "caption", "data-testid": "eval-caption" },
        pct === null ? "" : `After move ${current}: ${nameOf(0)} ${pct}% to win` +
          (typeof here.expected_margin_player0 === "number" ? `, expected margin ${here.expected_margin_player0 >= 0 ? "+" : ""}${here.expected_margin_player0.toFixed(1)}` : "") +
          (here.best_move ? `; best move here: ${here.best_move}` : "") + "."));
  } else if (a.analysisState === "error") {
    fill(evalBox, el("p", { class: "message", "data-kind": "error" }, `Analysis unavailable: ${a.analysisError}`),
      el("button", { type: "button", onclick: () => loadAnalysis() }, "Try again"));
  } else if (s.result && a.analysisState === "loading") {
    fill(evalBox, spinner("Analysing every position for the evaluation graph… (this can take a while)"));
  } else if (!s.result) {
    fill(evalBox, el("p", { class: "caption" }, "The evaluation graph comes when the game is over."));
  } else {
    fill(evalBox);
  }
}

/** Go to position `ply` (null or the last one: the live game). */
async function setReplay(ply) {
  const s = ui.state;
  if (!s) return;
  const total = (s.moves || []).length;
  if (ply !== null) ply = Math.max(0, Math.min(total, ply));
  if (ply === null || ply >= total) {
    ui.replay.ply = null;
    ui.replay.want = undefined;
    render();
    return;
  }
  if (ui.hold) cancelHold(null);
  // Remember the wanted position at once, so quick key presses add up while
  // the record is still loading.
  ui.replay.want = ply;
  const have = ui.replay.positions?.length ?? 0;
  if (have <= ply || (!s.result && have <= total)) {
    if (ui.replay.positionsLoading) return; // the load in flight goes to the latest wanted position
    const ok = await loadPositions();
    if (!ok) {
      ui.replay.want = undefined;
      return;
    }
  }
  const want = ui.replay.want;
  ui.replay.want = undefined;
  if (want === null || want === undefined) return;
  ui.replay.ply = Math.min(want, ui.replay.positions.length - 1);
  if ((ui.replay.analysis?.positions?.length ?? 0) <= total && ui.replay.analysisState !== "loading") loadAnalysis();
  render();
}

/** The position the replay is at or on its way to. */
function replayTarget() {
  const total = (ui.state?.moves || []).length;
  if (ui.replay.want !== undefined && ui.replay.want !== null) return ui.replay.want;
  return ui.replay.ply === null ? total : ui.replay.ply;
}

async function loadPositions() {
  if (ui.replay.positionsLoading) return false;
  ui.replay.positionsLoading = true;
  try {
    const { body } = await api(`/api/games/${encodeURIComponent(ui.id)}/positions`);
    ui.replay.positions = body.positions;
    return true;
  } catch (error) {
    say(`Could not load the game's positions: ${error.message}`, "error");
    return false;
  } finally {
    ui.replay.positionsLoading = false;
  }
}

/**
 * Fetch the analysis. While the server computes it (202), the reply already
 * has every position's times and buttons, which the replay uses at once;
 * the evaluations follow. Finished games poll until they come; a game still
 * in play is fetched once (its analysis changes with every move).
 */
async function loadAnalysis() {
  if (ui.replay.analysisState === "loading") return;
  const poll = !!ui.state?.result;
  ui.replay.analysisState = "loading";
  renderReplay();
  const started = Date.now();
  try {
    for (;;) {
      const { status, body } = await api(`/api/games/${encodeURIComponent(ui.id)}/analysis`);
      if (body && Array.isArray(body.positions)) ui.replay.analysis = body;
      if (status !== 202 || !poll) break;
      if (Date.now() - started > 5 * 60 * 1000) throw new Error("it is taking too long; try again later");
      render();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    ui.replay.analysisState = "done";
  } catch (error) {
    ui.replay.analysisState = "error";
    ui.replay.analysisError = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  }
  render();
}

// ---------------------------------------------------------------- move list

function renderMoves() {
  const list = $("moves");
  const moves = ui.state?.moves || [];
  const replaying = replayAvailable();
  const current = ui.replay.ply;
  const items = moves.map((m, i) =>
    el("li", {
      class: `move${current !== null && i === current - 1 ? " current" : ""}`,
      "data-ply": m.ply,
      value: m.ply,
      tabindex: replaying ? "0" : null,
      role: replaying ? "button" : null,
      "aria-label": replaying ? `Move ${m.ply}, ${nameOf(m.player)}: ${m.move}, ${m.summary || ""}. Show the position after it.` : null,
      onclick: replaying ? () => setReplay(i + 1) : null,
      onkeydown: replaying ? (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); setReplay(i + 1); } } : null,
    },
    tokenBadge(m.player, "small"),
    el("code", { class: "move-text" }, m.move),
    el("span", { class: "move-summary" }, m.summary || "")));
  if (!items.length) items.push(el("li", { class: "caption empty-list" }, "No moves yet."));
  fill(list, items);
  if (moves.length !== ui.lastMovesLength && current === null) list.scrollTop = list.scrollHeight;
  ui.lastMovesLength = moves.length;
  if (current !== null) list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
}

// ---------------------------------------------------------------- help

function renderHelp() {
  const c = ui.catalogue || {};
  const size = c.bonus_size;
  fill($("help-list"),
    el("li", {}, el("span", { class: "mark-income" }, "◉"), " Each time your token crosses a button space on the time track, you are paid your quilt's ", el("strong", {}, "income"), ": the buttons printed on your patches."),
    el("li", {}, el("strong", {}, "Advancing"), " moves you just past your opponent and earns one button per space moved."),
    el("li", {}, "Buttons pay for patches and are your points at the end; each ", el("strong", {}, "empty square"), ` costs ${c.empty_square_penalty} points.`),
    el("li", {}, `The first to cover a whole ${size}x${size} area takes the `, el("strong", {}, "bonus"), `: ${c.bonus_points} points.`),
    el("li", {}, el("strong", {}, "Score now"), " is the score if the game ended now; ", el("strong", {}, "forecast"), " adds what the player would still collect by only advancing."),
    el("li", {}, "Placing: pick a patch up, then turn it (R, right-click or wheel) and flip it (F); green means it fits."));
}

// ================================================================ the patch in hand

function startHold(patchId, how) {
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
  ui.hold = { patch: patchId, oi, row: Math.floor(start / BOARD), col: start % BOARD, drag: null, via: how };
  clampHold();
  announce(`Picked up patch ${patchId}. ${holdDescription()}`);
  render();
}

function cancelHold(reason = "Patch put back.") {
  if (!ui.hold) return;
  ui.hold = null;
  $("floater").hidden = true;
  document.body.classList.remove("dragging");
  if (reason) announce(reason);
  render();
}

function holdPatch() {
  return ui.hold ? ui.patches.get(ui.hold.patch) : null;
}

function holdOrientation() {
  const patch = holdPatch();
  return patch ? patch.orientations[ui.hold.oi] : null;
}

/** Keep the whole patch inside the quilt. */
function clampHold() {
  const o = holdOrientation();
  if (!o) return;
  ui.hold.row = Math.max(0, Math.min(BOARD - o.height, ui.hold.row));
  ui.hold.col = Math.max(0, Math.min(BOARD - o.width, ui.hold.col));
}

function holdIsLegal() {
  if (!ui.hold) return false;
  return legalAnchors(ui.hold.patch, ui.hold.oi).includes(ui.hold.row * BOARD + ui.hold.col);
}

function holdDescription() {
  const o = holdOrientation();
  if (!o) return "";
  return `Orientation ${o.transform} at ${squareName(ui.hold.row, ui.hold.col)}: ${holdIsLegal() ? "fits" : "not allowed here"}.`;
}

function turnHold(quarterTurns) {
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

function flipHold() {
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
function placeHold() {
  if (!ui.hold) return;
  const o = holdOrientation();
  const text = `${ui.hold.patch}${o.transform}@${squareName(ui.hold.row, ui.hold.col)}`;
  sendMove(text);
}

function sendMove(text) {
  sendIntent({ type: "move", move: text }, { kind: "move", text });
}

function sendIntent(message, intent) {
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

// ---------------------------------------------------------------- overlays: ghost, hint, cursor

function renderOverlays() {
  for (const seat of [0, 1]) {
    const q = ui.quilts[seat];
    const parts = [];
    const s = ui.state;
    const live = ui.replay.ply === null;
    if (live && s && ui.hint && ui.hint.version === s.version && s.to_move === seat) {
      const cells = ui.hint.best_move_cells;
      if (cells?.length) parts.push(cellsOverlay(cells, "hint-mark", { "data-testid": "hint-mark" }));
    }
    if (live && ui.hold && s && s.to_move === seat) parts.push(ghostNode());
    if (live && ui.cursor && s && s.to_move === seat && specialsPending()) {
      parts.push(cellsOverlay([[ui.cursor.row, ui.cursor.col]], "cursor-mark", { "data-testid": "special-cursor" }));
    }
    fill(q.overlay, parts);
  }
}

/** The ghost: the patch in hand at its anchor, green where the server allows it. */
function ghostNode() {
  const o = holdOrientation();
  const ok = holdIsLegal();
  const unit = 100 / BOARD;
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

// ================================================================ pointer input

/** The square under a point of the acting quilt, or null; `slack` squares around it count as on it. */
function squareAt(seat, x, y, slack = 0.6) {
  const rect = ui.quilts[seat].board.getBoundingClientRect();
  const size = rect.width / BOARD;
  const col = Math.floor((x - rect.left) / size);
  const row = Math.floor((y - rect.top) / size);
  if (col < -slack * 2 || row < -slack * 2 || col >= BOARD + slack * 2 || row >= BOARD + slack * 2) return null;
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

function onOfferPointerDown(event) {
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
  offer.focus({ preventScroll: true });
  startHold(id, "pointer");
  ui.hold.drag = { startX: event.clientX, startY: event.clientY, moved: false, type: event.pointerType };
  document.body.classList.add("dragging");
}

function onPointerMove(event) {
  if (!ui.hold) return;
  const drag = ui.hold.drag;
  if (drag && !drag.moved && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) > 6) drag.moved = true;
  const over = aimAt(event.clientX, event.clientY, event.pointerType);
  showFloater(event.clientX, event.clientY, !!drag && drag.moved && !over);
}

function onPointerUp(event) {
  if (!ui.hold || event.button !== 0) return;
  const drag = ui.hold.drag;
  const s = ui.state;
  const target = event.target instanceof Element ? event.target : null;
  const overBoard = s && !!target?.closest(`[data-testid="quilt-${s.to_move}"]`) || (s && isOverBoard(event));
  if (drag) {
    ui.hold.drag = null;
    document.body.classList.remove("dragging");
    $("floater").hidden = true;
    if (!drag.moved) return; // a click on the offer: keep holding, wait for a click on the quilt
    if (overBoard) {
      aimAt(event.clientX, event.clientY, event.pointerType);
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
function onWheel(event) {
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

function onContextMenu(event) {
  if (!ui.hold) return;
  event.preventDefault(); // right-click turns the patch in hand
  turnHold(1);
  aimAt(event.clientX, event.clientY, "mouse");
}

/** A click on an empty square places a pending special patch. */
function onBoardClick(event) {
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
  sendMove(listed ? listed.move : `S@${name}`);
}

// ================================================================ keyboard

function onBoardFocus(seat) {
  const s = ui.state;
  if (!s || seat !== s.to_move || ui.hold || !specialsPending() || ui.cursor) return;
  const first = (legal().specials || [])[0];
  const at = first ? first.cell : [4, 4];
  ui.cursor = { row: at[0], col: at[1] };
  renderOverlays();
  announce(`Special patch: ${squareName(ui.cursor.row, ui.cursor.col)}. Arrow keys move, Enter places.`);
}

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

function onBoardKey(event, seat) {
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
      ui.cursor.row = Math.max(0, Math.min(BOARD - 1, ui.cursor.row + step[0]));
      ui.cursor.col = Math.max(0, Math.min(BOARD - 1, ui.cursor.col + step[1]));
      const value = s.quilts[seat][ui.cursor.row][ui.cursor.col];
      announce(`${squareName(ui.cursor.row, ui.cursor.col)}: ${value === null ? "empty" : "covered"}.`);
      renderOverlays();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      placeSpecial(squareName(ui.cursor.row, ui.cursor.col));
    }
  }
}

function onOfferKey(event) {
  const offer = event.target.closest?.(".offer");
  if (!offer) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    // Arrow keys move between the patches on offer.
    const offers = [...document.querySelectorAll(".offer")];
    const i = offers.indexOf(offer) + (event.key === "ArrowRight" ? 1 : -1);
    if (offers[i]) {
      event.preventDefault();
      offers[i].focus();
    }
  }
}

/** A keyboard "click" (Enter or Space) on an offer picks the patch up and moves to the quilt. */
function onOfferClick(event) {
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
  return target instanceof Element && !!target.closest("input, textarea, select, [contenteditable]");
}

function onGlobalKey(event) {
  if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
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
      document.querySelector(`[data-testid="offer-${patch}"]`)?.focus();
      return;
    }
  }
  if (key === "Escape" && ui.replay.ply !== null) {
    setReplay(null);
    return;
  }
  if ((key === "a" || key === "A") && !ui.hold && canAct() && legal().advance) {
    event.preventDefault();
    advance();
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

function advance() {
  const a = legal().advance;
  if (!a) return;
  sendMove(a.move || "A");
}

// ================================================================ wiring

function bindControls() {
  $("advance").addEventListener("click", advance);
  $("undo").addEventListener("click", () => sendIntent({ type: "undo" }, { kind: "undo", text: "undo" }));
  $("hint").addEventListener("click", () => {
    sendIntent({ type: "hint" }, { kind: "hint", text: "hint" });
    say("Asking for a hint…", "info");
  });
  $("rotate").addEventListener("click", () => turnHold(1));
  $("flip").addEventListener("click", () => flipHold());
  $("place").addEventListener("click", () => placeHold());
  $("cancel").addEventListener("click", () => cancelHold());
  $("copy-invite").addEventListener("click", () => copyText($("invite-link").href, "Invitation link"));
  $("copy-spectate").addEventListener("click", () => copyText($("spectate-link").href, "Spectator link"));
  $("replay-first").addEventListener("click", () => setReplay(0));
  $("replay-prev").addEventListener("click", () => setReplay(replayTarget() - 1));
  $("replay-next").addEventListener("click", () => setReplay(replayTarget() + 1));
  $("replay-last").addEventListener("click", () => setReplay(null));

  const circle = $("circle");
  circle.addEventListener("pointerdown", onOfferPointerDown);
  circle.addEventListener("keydown", onOfferKey);
  circle.addEventListener("click", onOfferClick);
  for (const seat of [0, 1]) ui.quilts[seat].board.addEventListener("click", onBoardClick);
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

// ================================================================ messages to the player

function say(text, kind = "info") {
  const node = $("message");
  node.textContent = text;
  node.dataset.kind = kind;
  // Errors interrupt a screen reader; the rest waits its turn.
  node.setAttribute("aria-live", kind === "error" ? "assertive" : "polite");
}

function announce(text) {
  $("announce").textContent = text;
}

main().catch((error) => say(`The page failed to start: ${error.message}`, "error"));
