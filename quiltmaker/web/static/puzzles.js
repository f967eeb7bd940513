// @ts-check
// Puzzles from the front page and the game page: the set's size, this player's
// puzzle rating, and starting the next puzzle (the server chooses it and judges it).
import { $, api, errorText, fill, forgetGame, loadGames, plural, saveGame } from "./common.js";

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
      message.textContent = `The puzzle could not be started: ${errorText(error)}`;
      button.disabled = false;
    }
  };
  try {
    const set = /** @type {import("./contract").PuzzleSet} */ ((await api("/api/puzzles")).body);
    const player = set.player;
    fill($("puzzle-facts"), `${plural(set.count, "puzzle")} from real games, each answer proven by the exact endgame solver. `,
      player ? `Your puzzle rating: ${player.rating}${player.provisional ? " (provisional: too few answers yet to be sure)" : ""}, ${player.solved} solved of ${player.attempts}.`
        : "Sign in to have a puzzle rating.");
  } catch {
    // The card still starts a puzzle; its numbers wait for the next visit.
  }
}
