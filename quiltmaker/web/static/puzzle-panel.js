// @ts-check
// The puzzle panel of a puzzle game: the task, and once the one move is made the
// server's verdict, the best move (drawn on the board by board.js), the ratings,
// and the way on. Which moves solve it, and whether this one did, are the server's.
import { $, api, el, errorText, fill, saveGame } from "./common.js";
import { t, tn } from "./i18n.js";
import { ui } from "./store.js";
import { startPuzzle } from "./puzzles.js";

/** @param {string} how @param {() => Promise<void>} go */
function action(how, go) {
  return async () => {
    try {
      await go();
    } catch (error) {
      const message = $("message");
      message.textContent = `${how}: ${errorText(error)}`;
      message.dataset.kind = "error";
    }
  };
}

export function renderPuzzle() {
  const panel = $("puzzle");
  const puzzle = ui.state?.puzzle;
  panel.hidden = !puzzle;
  if (!puzzle) return;
  const key = JSON.stringify(puzzle);
  if (panel.dataset.key === key) return; // unchanged: keep focus as it is
  panel.dataset.key = key;
  panel.classList.toggle("answered", !!puzzle.answer);
  const a = puzzle.answer;
  const kinds = { win: t("Win from here"), "only-move": t("The only move"), bonus: t("The 7x7 bonus") };
  fill(
    panel,
    el("h2", { class: "panel-title", id: "puzzle-title" }, t("Puzzle: {kind}", { kind: kinds[puzzle.kind] }), el("span", { class: "puzzle-rating" }, ` · ${t("rated {rating}", { rating: puzzle.rating })}`)),
    a
      ? [
          el("p", { class: `puzzle-verdict ${a.solved ? "solved" : "missed"}`, "data-testid": "puzzle-verdict", role: "status" },
            el("strong", {}, `${a.solved ? t("Solved.") : t("Not this time.")} `), t("Your move, {move}, {outcome}.", { move: a.played_words, outcome: a.played_outcome })),
          el("p", { "data-testid": "puzzle-solution" }, solutionWords(a), a.solved ? "" : [" ", el("strong", {}, t("Marked on the board."))]),
          a.player_rating
            ? el("p", { class: "puzzle-rating-change", "data-testid": "puzzle-rating-change" },
              t("Your puzzle rating: {before} → {after} ({change}).", { before: a.player_rating.before, after: a.player_rating.after, change: signed(a.player_rating.after - a.player_rating.before) }))
            : el("p", { class: "hint-text" }, t("Sign in to have a puzzle rating: a guest's answers are not rated.")),
        ]
      : [
          el("p", { class: "puzzle-task", "data-testid": "puzzle-task" }, puzzle.task),
          el("p", { class: "hint-text" }, t("Every other move loses: the exact endgame solver has played each one to the end.")),
        ],
    el("div", { class: "lesson-actions" },
      a ? el("button", { type: "button", class: "primary", "data-testid": "next-puzzle", onclick: action(t("The next puzzle could not be started"), () => startPuzzle()) }, t("Next puzzle")) : null,
      a ? el("button", { type: "button", "data-testid": "puzzle-play-on", onclick: action(t("The game could not be started"), playOn) }, t("Play the position out against the computer")) : null,
      el("a", { href: "/#puzzles", "data-testid": "all-puzzles" }, t("Puzzles"))),
  );
}

/** What won, beside what was played. @param {import("./contract").PuzzleAnswer} a */
function solutionWords(a) {
  const count = a.solutions.length;
  const best = { move: a.best_words, outcome: a.best_outcome };
  if (!a.solved) {
    return count > 1
      ? tn("The move that wins: {move}, which {outcome} ({n} move wins).", "The move that wins: {move}, which {outcome} ({n} moves win).", count, best)
      : t("The move that wins: {move}, which {outcome}.", best);
  }
  if (count === 1) return t("It was the only move that wins.");
  if (a.played === a.best) return tn("It is the best of the {n} move that wins.", "It is the best of the {n} moves that win.", count);
  return tn("The best of the {n} move that wins: {move}, which {outcome}.", "The best of the {n} moves that win: {move}, which {outcome}.", count, best);
}

/** @param {number} n */
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

/** The puzzle's position, as a game against the computer ("what if", from its start). */
async function playOn() {
  const s = ui.state;
  if (!s) return;
  const { body } = await api("/api/games", { json: { mode: "ai", from_game: s.id, from_ply: 0 } });
  saveGame(body.id, { token: body.token, seat: body.seat, created: Date.now() });
  location.assign(`/game/${encodeURIComponent(body.id)}`);
}
