// @ts-check
// The game page's one store (page-store.js) and what follows from it: whose seat
// this is, whether it may act, what the server lists as legal, which position to
// draw. Modules read `ui` and change it only through `update(change)`, which draws
// the page again; the entry module installs the renderer. Nothing here knows the
// rules: legality is what the server lists.
import { loadGames } from "./common.js";
import { t } from "./i18n.js";
import { createStore } from "./page-store.js";

/** @typedef {import("./page").GamePage} GamePage */
/** @typedef {import("./contract").GameState} GameState */
/** @typedef {import("./contract").Buy} Buy */
/** @typedef {import("./contract").Legal} Legal */
/** @typedef {import("./contract").Judgement} Judgement */

/**
 * A position as the page draws it (`view()`): the live game's or a replayed one's board,
 * which ply it is, the live game's forecast and a replayed position's analysis.
 * @typedef {Pick<import("./contract").ReplayPosition, "quilts" | "times" | "buttons" | "income" | "on_top" | "shared_space"
 *   | "specials" | "circle" | "offered" | "scores" | "score_breakdown" | "to_move" | "bonus" | "last_move"> & {
 *   live: boolean, ply: number, forecast: number[] | null, analysed: import("./contract").AnalysedPosition | null }} ShownBoard
 */

/** @type {GamePage} */
const initial = {
  id: "",                 // game id, from the URL
  catalogue: null,        // GET /api/catalogue
  patches: new Map(),     // patch id -> catalogue entry
  seat: undefined,        // from welcome: 0, 1, "both", null (spectator); undefined before
  state: null,            // latest server state
  receivedAt: 0,
  connection: "connecting",
  socket: null,
  hold: null,             // the patch in hand
  cursor: null,           // keyboard cursor for a special patch
  hint: null,             // last hint reply, for the state version it was asked in
  pending: new Map(),     // intent id -> what it was
  banners: [],            // transient banners
  replay: { ply: null, want: undefined, positions: null, positionsLoading: false, analysis: null, analysisState: "idle", analysisError: null },
  quilts: [],             // built quilt boards, one per seat
  frontSeat: null,        // on a phone, the quilt tapped to be drawn large (null: this browser's own)
  missing: false,         // the server has no game at this address
  confirming: null,       // a move decided but not sent yet
  ending: null,           // "resign" or "abort" asked for, waiting for its confirmation
  arrivedAt: 0,           // when the newest state was shown (Date.now()), for its arrival animation
  afterAck: null,
  rematchAcked: false,
  waiting: [],
  showing: false,
  early: null,
  lastOtherShown: 0,
  seenHere: new Set(),
  chat: [],
  warned: new Set(),
  refreshed: -1,
  notified: -1,
  wheelAt: 0,
  audio: null,
};

const store = createStore(initial);
/** The game page's state, read-only: change it with `update`. */
export const ui = store.state;
export const { update, setRenderer } = store;

const CONFIRM_KEY = "quiltmaker.confirm-moves";
const ARRIVAL_MS = 600;

/** A touch screen: words say "tap", not "click", and name no keys. @returns {boolean} */
export function touchScreen() {
  return window.matchMedia("(pointer: coarse)").matches;
}

/** The player asked their system for less motion: no animation, no pacing. @returns {boolean} */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * Whether `state` follows `previous` by exactly one new move (not an undo, a rematch or a jump).
 * @param {GameState} previous @param {GameState} state
 */
export function oneMoveLater(previous, state) {
  return state.version === previous.version + 1 && (state.moves || []).length === (previous.moves || []).length + 1;
}

/** Whether what the last move changed is still arriving (drawn with its animation). */
export function arriving() {
  return !reducedMotion() && Date.now() - ui.arrivedAt < ARRIVAL_MS && ui.replay.ply === null;
}

/**
 * Whether a move waits for "Confirm" before it is sent: the player's choice, kept
 * in this browser; without one, on for online games (a move there cannot be taken back).
 */
export function confirmsMoves() {
  const choice = localStorage.getItem(CONFIRM_KEY);
  if (choice === "on" || choice === "off") return choice === "on";
  return ui.state?.mode === "online";
}

/** @param {boolean} on */
export function setConfirmsMoves(on) {
  localStorage.setItem(CONFIRM_KEY, on ? "on" : "off");
  update({}); // the choice is kept by the browser: draw what follows from it
}

export function storedEntry() {
  return loadGames()[ui.id] || null;
}

/** "7x7": the size of the bonus area, as the catalogue gives it ("" before it has come). */
export function bonusArea() {
  const size = ui.catalogue?.bonus_size;
  return size === undefined ? "" : `${size}x${size}`;
}

/** A seat's player's name (null, no seat: "player null"). @param {number | null} seat */
export function nameOf(seat) {
  const names = ui.state?.names || [];
  return (seat === null ? undefined : names[seat]) || t("player {seat}", { seat: String(seat) });
}

/** @param {number | null | undefined} seat */
export function isMine(seat) {
  return ui.seat === "both" || (ui.seat !== null && ui.seat !== undefined && ui.seat === seat);
}

/** @param {number | null} seat */
export function isAiSeat(seat) {
  return !!ui.state?.ai && ui.state.ai.seat === seat;
}

/** Why this browser cannot act now, for the message line (null when it can). @returns {string | null} */
export function whyNotAct() {
  const s = ui.state;
  if (ui.seat === null) return t("You are watching: spectators cannot play.");
  if (s && s.status === "waiting") return t("Waiting for your friend to open the invitation link.");
  if (s && (s.result || s.status === "over" || s.status === "aborted")) return t("The game is over.");
  if (ui.replay.ply !== null) return t("You are looking at an earlier position: go to the last move to play.");
  return canAct() ? null : t("It is not your turn.");
}

/** May this browser act now: its seat is the one the rules let move (the state's may_move), and it shows the game as it
 * stands, not an earlier position. (The server has the last word: this only decides what to offer.) @returns {boolean} */
export function canAct() {
  const s = ui.state;
  if (!s || ui.replay.ply !== null || s.to_move === null || s.to_move === undefined) return false;
  return isMine(s.to_move) && !!s.may_move[s.to_move];
}

/** @returns {Legal} */
export function legal() {
  return ui.state?.legal || { advance: null, buys: [], specials: [] };
}

/** @param {number} patchId @returns {Buy | null} */
export function buyEntry(patchId) {
  return (legal().buys || []).find((b) => b.patch === patchId) || null;
}

/** Anchors the server allows for this patch in orientation `oi`. @param {number} patchId @param {number} oi @returns {number[]} */
export function legalAnchors(patchId, oi) {
  const buy = buyEntry(patchId);
  const patch = ui.patches.get(patchId);
  if (!buy || !buy.affordable || !patch) return [];
  const entry = (buy.orientations || []).find(
    (o) => patch.transforms[o.transform] === oi,
  );
  return entry ? entry.anchors : [];
}

/** @param {Buy} buy */
export function canPlace(buy) {
  return (buy.orientations || []).some((o) => (o.anchors || []).length > 0);
}

export function specialsPending() {
  return canAct() && (legal().specials || []).length > 0;
}

/** The position to draw: the live state, or a replayed past position. @returns {ShownBoard | null} */
export function view() {
  const s = ui.state;
  const k = ui.replay.ply;
  const shown = k === null ? null : ui.replay.positions?.[k];
  if (!shown || k === null) {
    return s
      ? { live: true, ply: (s.moves || []).length, quilts: s.quilts, times: s.times, buttons: s.buttons, income: s.income,
          on_top: s.on_top, shared_space: s.shared_space, specials: s.specials, circle: s.circle, offered: s.offered, scores: s.scores,
          score_breakdown: s.score_breakdown, forecast: s.forecast, to_move: s.to_move, bonus: s.bonus, last_move: s.last_move, analysed: null }
      : null;
  }
  // A past position, as the server drew it (GET /api/games/{id}/positions): the page rebuilds nothing.
  const analysed = ui.replay.analysis?.positions?.find((p) => p.ply === k) || ui.replay.analysis?.positions?.[k] || null;
  return {
    live: false, ply: k, quilts: shown.quilts, times: shown.times, buttons: shown.buttons, income: shown.income,
    on_top: shown.on_top, shared_space: shown.shared_space, specials: shown.specials, circle: shown.circle, offered: shown.offered, scores: shown.scores,
    score_breakdown: shown.score_breakdown, forecast: null, to_move: shown.to_move, bonus: shown.bonus, last_move: shown.last_move, analysed,
  };
}

/**
 * The marked move (a blunder or mistake, by the server's analysis) that the replay's
 * position leads into, or null: the replay shows the position before it, and the better move.
 * @returns {Judgement | null}
 */
export function shownJudgement() {
  const k = ui.replay.ply;
  if (k === null) return null;
  return (ui.replay.analysis?.judgements || []).find((j) => j.ply === k + 1) || null;
}

export function replayAvailable() {
  const s = ui.state;
  return !!s && s.mode !== "puzzle" && (!!s.result || ui.seat === null) && (s.moves || []).length > 0;
}

/** The position the replay is at or on its way to. @returns {number} */
export function replayTarget() {
  const total = (ui.state?.moves || []).length;
  if (ui.replay.want !== undefined && ui.replay.want !== null) return ui.replay.want;
  return ui.replay.ply === null ? total : ui.replay.ply;
}

// ================================================================ the board

/** The quilt's size, as the catalogue gives it (0 before it has come). */
export function boardSize() {
  return ui.catalogue?.board_size ?? 0;
}

/** The name of the square at (row, col), as the catalogue gives it (the core's names). @param {number} row @param {number} col */
export function squareName(row, col) {
  return ui.catalogue?.squares[row]?.[col] ?? "";
}
