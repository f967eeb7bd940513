// @ts-check
// The tutorial's side of the browser: which lesson game this browser holds for
// each lesson, and starting one. Lessons, their steps and whether a step is
// done are the server's (GET /api/catalogue, the state's `lesson`).
import { api, loadGames, saveGame } from "./common.js";

const LESSONS_KEY = "quiltmaker.lessons";

/** The lesson games of this browser: {lessonNumber: gameId}, the latest game of each lesson. @returns {Record<string, string>} */
export function lessonGames() {
  try {
    const value = JSON.parse(localStorage.getItem(LESSONS_KEY) || "{}");
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    const seats = loadGames();
    // A lesson game whose seat this browser forgot cannot be resumed.
    return Object.fromEntries(Object.entries(value).filter(([, id]) => typeof id === "string" && seats[id]));
  } catch {
    return {}; // a corrupt entry must not break the page
  }
}

/** @param {number} number @param {string} id */
function rememberLesson(number, id) {
  localStorage.setItem(LESSONS_KEY, JSON.stringify({ ...lessonGames(), [number]: id }));
}

/** Start lesson `number` afresh on the server and go to it. @param {number} number */
export async function startLesson(number) {
  const { body } = await api("/api/games", { json: { mode: "lesson", lesson: number } });
  saveGame(body.id, { token: body.token, seat: body.seat, created: Date.now(), lesson: number });
  rememberLesson(number, body.id);
  location.assign(`/game/${encodeURIComponent(body.id)}`);
}

/** Open lesson `number` where this browser left it, or start it. @param {number} number */
export async function openLesson(number) {
  const id = lessonGames()[number];
  if (id) location.assign(`/game/${encodeURIComponent(id)}`);
  else await startLesson(number);
}
