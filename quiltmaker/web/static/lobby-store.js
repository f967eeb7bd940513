// @ts-check
// The lobby's one store (page-store.js): the catalogue, who is signed in, the form's
// choices, this browser's games, the leaderboard, the live lobby and a quick match.
// The lobby's modules read `lobby` and change it only through `update(change)`, which
// draws the page again (lobby.js installs the drawing).
import { createStore } from "./page-store.js";

/** @type {import("./page").LobbyPage} */
const initial = {
  catalogue: null,
  account: undefined,
  form: { mode: "ai", clock: "", offer: "invite", level: "" },
  lessonDone: {},
  games: { state: "loading", ids: [], seats: {}, stored: {}, summaries: [], error: null },
  leaderboard: { family: "realtime", entries: null, error: null },
  live: null,
  seek: null,
  pollTimer: 0,
  liveSocket: null,
};

const store = createStore(initial);
/** The lobby's state, read-only: change it with `update`. */
export const lobby = store.state;
export const { update, setRenderer } = store;
