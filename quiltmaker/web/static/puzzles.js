// @ts-check
// Puzzles from the front page and the game page: the set's size, this player's
// puzzle rating, and starting the next puzzle (the server chooses it and judges it).
import { $, api, errorText, fill, forgetGame, loadGames, saveGame } from "./common.js";
import { t, tn } from "./i18n.js";

/** Start a new puzzle (the server's choice, or `id`) and go to it; the puzzles this browser answered before are forgotten. @param {string} [id] */
export async function startPuzzle(id) {
  const { body } = await api("/api/puzzles", { json: id ? { puzzle: id } : {} });
  for (const [held, entry] of Object.entries(loadGames())) if (entry.puzzle) forgetGame(held);
  saveGame(body.id, { token: body.token, seat: body.seat, created: Date.now(), puzzle: true });
  location.assign(`/game/${encodeURIComponent(body.id)}`);
}

/** The front page's puzzle card: how many there are, the signed-in player's rating, and the button. */
export async function showPuzzleCard() {
  const button = $("puzzle-start", HTMLButtonElement);
  const message = $("puzzle-message");
  button.onclick = async () => {
    button.disabled = true;
    try {
      await startPuzzle();
    } catch (error) {
      message.textContent = t("The puzzle could not be started: {error}", { error: errorText(error) });
      button.disabled = false;
    }
  };
  try {
    const set = /** @type {import("./contract").PuzzleSet} */ ((await api("/api/puzzles")).body);
    const player = set.player;
    const rating = !player
      ? t("Sign in to have a puzzle rating.")
      : player.provisional
        ? t("Your puzzle rating: {rating} (provisional: too few answers yet to be sure), {solved} solved of {attempts}.", { rating: player.rating, solved: player.solved, attempts: player.attempts })
        : t("Your puzzle rating: {rating}, {solved} solved of {attempts}.", { rating: player.rating, solved: player.solved, attempts: player.attempts });
    fill($("puzzle-facts"), `${tn("{n} puzzle from real games, each answer proven by the exact endgame solver.", "{n} puzzles from real games, each answer proven by the exact endgame solver.", set.count)} `, rating);
  } catch {
    // The card still starts a puzzle; its numbers wait for the next visit.
  }
}
