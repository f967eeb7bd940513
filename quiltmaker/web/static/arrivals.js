// @ts-check
// A state from the server, shown in its turn: the other side's moves one at a time
// (never as a jump), then what changed (who came or left, the bonus, the end of the
// game, a rematch), with the move's motion, its sound and, in a background tab, the
// notification that it is this browser's turn.
import { $, find, loadGames, saveGame } from "./common.js";
import { t } from "./i18n.js";
import { bonusArea, isMine, nameOf, reducedMotion, storedEntry, ui, update } from "./store.js";
import { banner, say } from "./notices.js";
import { cancelHold } from "./hand.js";
import { loadAnalysis } from "./review.js";
import { capture, play } from "./motion.js";
import { soundFor } from "./sound.js";
import { noticeTurn } from "./attention.js";

/** @typedef {import("./contract").GameState} GameState */

/** At least this long between two moves of the other side (the AI's, an opponent's), so each is seen. */
const PACE_MS = 700;

/**
 * Show a state when its turn comes: a move by someone else, right after another
 * such move, waits until the one before has been seen (the AI's several moves
 * in a row play out one by one, never as a jump). With reduced motion, or for
 * this browser's own moves and bigger jumps (a reload), at once.
 * @param {GameState} state
 * @param {number} at when it arrived (performance.now()): its running clock counts down from then, not from when it is shown
 */
export async function showInTurn(state, at) {
  const queued = ui.showing;
  update((page) => {
    page.waiting.push({ state, at });
    page.showing = true;
  });
  if (queued) return;
  try {
    while (ui.waiting.length) {
      const { state: next, at: arrived } = ui.waiting[0];
      const previous = ui.state;
      const byOther = !!previous && next.version === previous.version + 1 && !!next.last_move && !isMine(next.last_move.player);
      if (byOther && !reducedMotion()) {
        const wait = ui.lastOtherShown + PACE_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      update((page) => { page.waiting.shift(); });
      onState(next, arrived);
      if (byOther) update({ lastOtherShown: Date.now() });
    }
  } finally {
    update({ showing: false });
  }
}

/** Online: say when the other player opens the game, leaves it, and comes back. @param {GameState | null} previous @param {GameState} state */
function noticePresence(previous, state) {
  if (state.mode !== "online" || state.result) return;
  for (const seat of [0, 1]) {
    if (isMine(seat)) continue;
    const here = !!state.presence?.[seat];
    const was = previous ? !!previous.presence?.[seat] : here;
    const name = { name: nameOf(seat) };
    if (here && !was) banner(ui.seenHere.has(seat) ? t("{name} is back.", name) : t("{name} joined the game.", name), "presence", 6000);
    else if (!here && was) banner(t("{name} left the game.", name), "presence", 8000);
    if (here && !ui.seenHere.has(seat)) update((page) => { page.seenHere.add(seat); });
  }
}

/** @param {GameState} state @param {number} arrived when it came (performance.now()) */
function onState(state, arrived) {
  const previous = ui.state;
  noticePresence(previous, state);
  // Where the moving things are before the new state is drawn (only for a live, one-move step).
  const motion = ui.replay.ply === null ? capture(previous, state) : null;
  const changed = !previous || previous.version !== state.version;
  if (changed && ui.hold) cancelHold(null); // a new position: whatever was in hand belongs to the old one
  const acknowledged = changed && !!ui.afterAck && state.version >= ui.afterAck.version ? ui.afterAck : null;
  const over = !!state.result && !previous?.result;
  update((page) => {
    page.state = state;
    page.receivedAt = arrived; // the running clock counts down from its arrival (clock.js)
    if (changed) {
      // Whatever was hinted or about to be confirmed belongs to the old position too.
      page.cursor = null;
      page.hint = null;
      page.confirming = null;
      page.arrivedAt = Date.now(); // the last move's squares and token are drawn arriving for a moment
    }
    if (acknowledged) page.afterAck = null;
    // A spectator of a live game whose replay shows the latest move follows on.
    if (page.replay.ply !== null && page.replay.ply >= state.moves.length) page.replay.ply = null;
    if (over) page.replay = { ...page.replay, analysisState: "idle", analysis: null, positions: null };
  });
  if (changed && previous) {
    say("", "info"); // what the line said was about the position before
    noticeChanges(previous, state);
  }
  if (acknowledged && !state.result) say(acknowledged.words, "ok");
  if (changed) {
    // After a keyboard placement the focus sat on a quilt: bring it back to the patches.
    queueMicrotask(() => {
      const active = document.activeElement;
      if (active?.classList?.contains("quilt-board") && !active.classList.contains("acting")) {
        (find(".offer.affordable") || $("advance", HTMLButtonElement))?.focus();
      }
    });
  }
  if (state.result && ui.replay.analysisState === "idle") loadAnalysis();
  if (state.rematch && !(previous && previous.rematch)) onRematch(state.rematch, !!previous);
  play(motion);
  soundFor(previous, state);
  noticeTurn();
}

/**
 * The next game exists: keep this seat's token for it, and go there if this browser asked for it.
 * @param {string} id the rematch's game @param {boolean} live it started while this page was open
 */
function onRematch(id, live) {
  const s = ui.state;
  if (!s) return; // called once a state is stored
  const entry = storedEntry();
  if (entry && entry.token && !loadGames()[id]) {
    // The server moved each token to the other seat (pass-and-play keeps both).
    const seat = typeof entry.seat === "number" ? s.rematch_seats[entry.seat] : entry.seat;
    saveGame(id, { token: entry.token, seat, created: Date.now() });
  }
  const asked = ui.rematchAcked || [...ui.pending.values()].some((intent) => intent.kind === "rematch");
  if (asked) {
    location.assign(`/game/${encodeURIComponent(id)}`);
  } else if (live) {
    // Only an online game has an opponent in another browser; elsewhere it was this player in another tab.
    const words = ui.state?.mode === "online" && typeof ui.seat === "number" ? t("Your opponent has started a rematch: follow the link under the final score.")
      : ui.seat === null ? t("The players have started a rematch: follow the link under the final score.")
        : t("You have started a rematch: follow the link under the final score.");
    banner(words, "rematch", 15000);
  }
}

/** Banners for events worth a pause: the bonus area and the end of the game. @param {GameState} previous @param {GameState} state */
function noticeChanges(previous, state) {
  if (previous.bonus === -1 && state.bonus !== -1 && state.bonus !== null && state.bonus !== undefined) {
    const values = { name: nameOf(state.bonus), area: bonusArea(), points: ui.catalogue?.bonus_points ?? "" };
    banner(isMine(state.bonus) ? t("You complete a {area} area and take the bonus: +{points} points.", values)
      : t("{name} completes a {area} area and takes the bonus: +{points} points.", values), "bonus", 12000);
  }
  if (!previous.result && state.result) {
    const winner = state.result.winner;
    // What was news during the game is not at its end: the result takes their place.
    update((page) => { page.banners = page.banners.filter((b) => b.kind !== "clock" && b.kind !== "bonus"); });
    const name = isMine(winner) && ui.seat !== "both" ? t("{name} (you)", { name: nameOf(winner) }) : nameOf(winner);
    banner(t("Game over: {name} wins.", { name }), "over", 15000);
  }
}
