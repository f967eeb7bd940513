// @ts-check
// The lobby: create a game, list the games this browser holds a seat in. Its state is
// in one store (lobby-store.js), drawn by drawLobby() after every change.
import { t, tn, wireLanguageSwitch } from "./i18n.js";
import { $, api, drawnAs, el, errorText, fill, findAll, forgetGame, formatNumber, loadGames, saveGame } from "./common.js";
import { lessonGames, openLesson, startLesson } from "./lessons.js";
import { renderAccount, startAccount } from "./account.js";
import { connectLive, renderLive, startLobbyLive } from "./lobby-live.js";
import { lobby, setRenderer, update } from "./lobby-store.js";
import { showPuzzleCard } from "./puzzles.js";

/** @typedef {import("./contract").GameSummary} GameSummary */
/** @typedef {import("./contract").DamagedGame} DamagedGame */

const form = $("new-game", HTMLFormElement);
const modeSelect = $("mode", HTMLSelectElement);
const levelSelect = $("level", HTMLSelectElement);
const levelDescription = $("level-description");
const seatSelect = $("seat", HTMLSelectElement);
const clockSelect = $("clock", HTMLSelectElement);
const message = $("lobby-message");
const gamesBox = $("your-games");

/** @param {string} text */
function say(text, kind = "info") {
  message.textContent = text;
  message.dataset.kind = kind;
}

// ---------------------------------------------------------------- the form

/** The whole lobby, from the store. */
function drawLobby() {
  renderFields();
  renderLevels();
  renderLessons();
  renderGames();
  renderLeaderboard();
  renderAccount();
  renderLive();
}

/** @type {Record<string, [string, string]>} a game's names for fields left empty, by mode, shown as their placeholders;
 * read by both sides in the third person ("Host is behind on the time track"), so never "You" */
const DEFAULT_NAMES = { ai: [t("Player"), ""], local: [t("First player"), t("Second player")], online: [t("Host"), t("Guest")] };
const LEVEL_KEY = "quiltmaker.level";

/** The form's choices that decide which of its fields show, into the store. */
function readForm() {
  update({ form: { mode: modeSelect.value, clock: clockSelect.value, offer: $("offer", HTMLSelectElement).value, level: levelSelect.value } });
}

/** Show only the fields that mean something for the chosen mode. */
function renderFields() {
  const { mode, clock, offer } = lobby.form;
  const signedIn = !!lobby.account;
  $("level-field").hidden = mode !== "ai";
  $("seat-field").hidden = mode === "local";
  $("name0-label").textContent = mode === "local" ? t("First player's name") : t("Your name");
  $("name1-label").textContent = mode === "online" ? t("Your friend's name") : t("Second player's name");
  // The placeholders are the names a game gets when the fields are left empty.
  const [first, second] = DEFAULT_NAMES[mode] ?? DEFAULT_NAMES.ai;
  $("name0", HTMLInputElement).placeholder = first;
  $("name1", HTMLInputElement).placeholder = second;
  const clocked = mode === "online" || mode === "ai";
  $("clock-field").hidden = !clocked;
  $("custom-clock").hidden = !clocked || clock !== "custom";
  // A rated game needs a clock and an account (the server checks both again).
  $("rated-field").hidden = !clocked || !clock || !signedIn;
  $("rated-hint").hidden = !clocked || !clock || signedIn;
  // Online: who may take the second seat (a lobby challenge needs a clock).
  $("offer-field").hidden = mode !== "online";
  $("opponent").hidden = mode !== "online" || offer !== "named";
  $("within").hidden = mode !== "online" || offer !== "open";
  $("offer-hint").hidden = mode !== "online" || offer === "invite" || !!clock;
  $("name1-field").hidden = mode === "ai" || (mode === "online" && offer !== "invite");
  levelDescription.textContent = lobby.catalogue?.levels.find((l) => l.name === lobby.form.level)?.description ?? "";
}

/** The catalogue's time controls and levels, built once it has come (rebuilt, a select would lose the choice). */
function renderLevels() {
  const catalogue = lobby.catalogue;
  if (!catalogue || form.dataset.built) return;
  form.dataset.built = "catalogue"; // what the selects offer, kept by the form itself
  fill(
    clockSelect,
    el("option", { value: "" }, t("no clock")),
    catalogue.clocks.presets.map((preset) => el("option", { value: preset.control }, preset.words)),
    el("option", { value: "custom" }, t("custom real-time…")),
  );
  clockSelect.value = lobby.form.clock;
  const levels = catalogue.levels;
  if (!levels.length) return;
  fill(levelSelect, levels.map((level) => el("option", { value: level.name }, t("{level} (rated {rating})", { level: level.name, rating: level.rating }))));
  levelSelect.value = lobby.form.level;
}

/** The clock asked for: a preset's name, "minutes+seconds" for a custom one (the server checks its bounds), or null. */
function chosenClock() {
  if (!["online", "ai"].includes(modeSelect.value) || !clockSelect.value) return null;
  if (clockSelect.value !== "custom") return clockSelect.value;
  const minutes = Number($("clock-minutes", HTMLInputElement).value);
  const increment = Number($("clock-increment", HTMLInputElement).value);
  return `${Number.isFinite(minutes) ? Math.round(minutes * 100) / 100 : 0}+${Number.isFinite(increment) ? Math.round(increment) : 0}`;
}

async function loadCatalogue() {
  try {
    const catalogue = /** @type {import("./contract").Catalogue} */ ((await api("/api/catalogue")).body);
    const levels = catalogue.levels;
    // A link may choose the level (the tutorial's last lesson sends a new player to the beginner).
    const wanted = new URLSearchParams(location.search).get("level");
    // Otherwise the level last played from this browser, and for a first visit the gentlest (the catalogue's first).
    const level = levels.find((l) => l.name === wanted) ?? levels.find((l) => l.name === localStorage.getItem(LEVEL_KEY)) ?? levels[0];
    update({ catalogue, form: { ...lobby.form, level: level ? level.name : "" } });
  } catch (error) {
    say(t("Could not load the list of computer levels: {error}", { error: errorText(error) }), "error");
  }
}

/** @param {SubmitEvent} event */
async function createGame(event) {
  event.preventDefault();
  const submit = $("create-game", HTMLButtonElement);
  const mode = modeSelect.value;
  const seatValue = seatSelect.value;
  const name0 = $("name0", HTMLInputElement).value.trim();
  const name1 = $("name1", HTMLInputElement).value.trim();
  // The server reads `names` by seat. With a random seat the lobby draws it
  // itself, so the names can be put in the right order.
  const seat = mode === "local" ? null : seatValue === "random" ? (Math.random() < 0.5 ? 0 : 1) : Number(seatValue);
  const [first, second] = DEFAULT_NAMES[mode] ?? DEFAULT_NAMES.ai;
  let names;
  if (mode === "local") names = [name0 || first, name1 || second];
  else {
    const mine = name0 || first;
    const other = mode === "ai" ? "" : name1 || second;
    names = seat === 0 ? [mine, other] : [other, mine];
  }
  /** @type {Record<string, unknown>} */
  const request = { mode, variant: $("variant", HTMLSelectElement).value, seed: null, seat, names };
  if (mode === "ai") { request.level = levelSelect.value; localStorage.setItem(LEVEL_KEY, levelSelect.value); }
  const clock = chosenClock();
  if (clock) request.clock = clock;
  if (clock && lobby.account && $("rated", HTMLInputElement).checked) request.rated = true;
  const offer = $("offer", HTMLSelectElement).value;
  if (mode === "online" && offer !== "invite") {
    request.offer = offer;
    if (offer === "named") request.opponent = $("opponent", HTMLInputElement).value.trim();
    const within = $("within", HTMLSelectElement).value;
    if (offer === "open" && within) request.within = Number(within);
  }
  submit.disabled = true;
  say(t("Creating the game…"));
  try {
    const body = /** @type {import("./contract").SeatTaken} */ ((await api("/api/games", { json: request })).body);
    const id = body.id ?? "";
    saveGame(id, { token: body.token, seat: body.seat, created: Date.now(), ...(body.invite ? { invite: body.invite } : {}) });
    location.assign(`/game/${encodeURIComponent(id)}`);
  } catch (error) {
    say(t("The game could not be created: {error}", { error: errorText(error) }), "error");
    submit.disabled = false;
  }
}

// ---------------------------------------------------------------- the leaderboard

/** @param {string} family */
async function loadLeaderboard(family) {
  update({ leaderboard: { family, entries: lobby.leaderboard.family === family ? lobby.leaderboard.entries : null, error: null } });
  try {
    const board = /** @type {import("./contract").Leaderboard} */ ((await api(`/api/leaderboard?family=${encodeURIComponent(family)}`)).body);
    if (lobby.leaderboard.family === family) update({ leaderboard: { family, entries: board.entries, error: null } });
  } catch (error) {
    if (lobby.leaderboard.family === family) update({ leaderboard: { family, entries: null, error: errorText(error) } });
  }
}

function renderLeaderboard() {
  const { family, entries, error } = lobby.leaderboard;
  const list = $("leaderboard-list");
  if (drawnAs(list, lobby.leaderboard)) return; // each part is drawn again only when it changed: a focused link keeps its focus
  for (const tab of findAll("#leaderboard .tab")) tab.setAttribute("aria-pressed", String(tab.dataset.family === family));
  if (error) {
    fill(list, el("li", { class: "message", "data-kind": "error" }, t("Could not load the leaderboard: {error}", { error })));
  } else if (entries) {
    fill(
      list,
      entries.map((entry) =>
        el(
          "li",
          { class: entry.computer ? "computer" : "" },
          entry.computer ? el("span", {}, entry.name) : el("a", { href: `/player/${encodeURIComponent(entry.name)}` }, entry.name),
          " ",
          el("strong", { class: "rating" }, String(entry.rating)),
          entry.computer ? el("span", { class: "tag" }, t("computer")) : el("span", { class: "hint-text" }, ` ${tn("{n} game", "{n} games", entry.games ?? 0)}`),
        ),
      ),
    );
  }
}

// ---------------------------------------------------------------- learn to play

function renderLessons() {
  const lessons = lobby.catalogue?.lessons ?? [];
  const lessonDone = lobby.lessonDone;
  const held = lessonGames();
  if (drawnAs($("lesson-list"), [lessons, lessonDone, held])) return;
  const list = $("lesson-list");
  fill(
    list,
    lessons.map((lesson) => {
      const state = lessonDone[lesson.number] ? "done" : held[lesson.number] ? "started" : "new";
      const label = { done: t("done"), started: t("in progress"), new: "" }[state];
      return el(
        "li",
        { class: `lesson-item ${state}`, "data-testid": `lesson-${lesson.number}` },
        el("button", { type: "button", class: "link-button", onclick: () => go(() => openLesson(lesson.number)) }, lesson.title),
        label ? el("span", { class: "game-meta" }, state === "done" ? `✓ ${label}` : label) : null,
        state === "done" ? el("button", { type: "button", class: "link-button", "aria-label": t("Play lesson {number} again", { number: lesson.number }), onclick: () => go(() => startLesson(lesson.number)) }, t("again")) : null,
      );
    }),
  );
  // Where to go on: the first lesson not done yet.
  const next = lessons.find((lesson) => !lessonDone[lesson.number]);
  const button = $("learn-start", HTMLButtonElement);
  const started = lessons.some((lesson) => held[lesson.number]);
  button.hidden = !lessons.length;
  button.textContent = !next ? t("Play every lesson again") : started ? t("Continue: lesson {number}, {title}", { number: next.number, title: next.title }) : t("Start the first lesson");
  button.onclick = () => go(() => (next ? openLesson(next.number) : startLesson(1)));
}

/** @param {() => Promise<void>} action */
async function go(action) {
  try {
    await action();
  } catch (error) {
    const line = $("learn-message");
    line.textContent = t("The lesson could not be opened: {error}", { error: errorText(error) });
    line.dataset.kind = "error";
  }
}

// ---------------------------------------------------------------- your games

/** @param {GameSummary | DamagedGame} game */
function describeStatus(game) {
  if (game.status === "corrupt") return t("damaged on the server: it cannot be opened");
  if (game.status === "aborted") return t("aborted: no result");
  if (game.result) {
    const { winner, scores, by } = game.result; // the winner's score first: "Gus won, −56 to −77"
    const name = (game.names || [])[winner] ?? t("player {seat}", { seat: winner });
    const early = /** @type {Record<string, string>} */ ({ resignation: t("finished: {name} won by resignation", { name }), time: t("finished: {name} won on time", { name }),
      claim: t("finished: {name} won by claim (the opponent went past the days for a move)", { name }) })[by];
    if (early || !scores) return early || t("finished: {name} won", { name });
    return t("finished: {name} won, {score} to {other}", { name, score: formatNumber(scores[winner]), other: formatNumber(scores[1 - winner]) });
  }
  if (game.status === "waiting") return t("waiting for your friend to join");
  if (game.to_move === null || game.to_move === undefined) return game.status || "";
  const names = game.names || [];
  return t("{name} to move", { name: names[game.to_move] ?? t("player {seat}", { seat: game.to_move }) });
}

/** @type {Record<string, string>} */
const MODE_NAMES = { ai: t("against the computer"), local: t("pass-and-play"), online: t("online") };

/**
 * This browser's games and, signed in, the account's (playable here without a token of this
 * browser), with the server's summaries; the lessons' progress on the way.
 */
async function loadHeldGames() {
  const stored = loadGames();
  const lessonIds = new Set(Object.values(lessonGames()));
  await loadLessonProgress(lessonIds);
  // Lesson games are listed under "Learn to play", not here; a puzzle is a puzzle, not a game to resume.
  const local = Object.keys(stored).filter((id) => !stored[id].lesson && !stored[id].puzzle && !lessonIds.has(id));
  /** @type {GameSummary[]} */
  let held = [];
  if (lobby.account) {
    try {
      held = /** @type {import("./contract").AccountGames} */ ((await api("/api/account/games")).body).games;
    } catch {
      held = [];
    }
  }
  /** @type {Record<string, import("./page").SeatHeld>} */
  const seats = {};
  for (const game of held) seats[game.id] = game.seat;
  for (const id of local) seats[id] = stored[id].seat;
  const created = Object.fromEntries(local.map((id) => [id, stored[id].created ?? 0]));
  const ids = [...local, ...held.map((g) => g.id).filter((id) => !local.includes(id) && !lessonIds.has(id))];
  const games = { ids, seats, stored: created, summaries: [], error: null };
  if (!ids.length) {
    update({ games: { ...games, state: "done" } });
    return;
  }
  update({ games: { ...games, state: "loading" } });
  try {
    const query = ids.map(encodeURIComponent).join(",");
    const list = /** @type {import("./contract").GameList} */ ((await api(`/api/games?ids=${query}`)).body);
    update({ games: { ...games, state: "done", summaries: list.games } });
  } catch (error) {
    update({ games: { ...games, state: "error", error: errorText(error) } });
  }
}

function renderGames() {
  if (drawnAs(gamesBox, lobby.games)) return;
  const { state, ids, seats, stored, summaries, error } = lobby.games;
  if (state === "error") {
    fill(gamesBox, el("p", { class: "message", "data-kind": "error" }, t("Could not load your games: {error}", { error })));
    return;
  }
  if (!ids.length) {
    fill(gamesBox, el("p", { class: "hint-text" }, t("No games yet: start one with the form.")));
    return;
  }
  if (state === "loading") {
    fill(gamesBox, el("p", { class: "hint-text" }, el("span", { class: "spinner", "aria-hidden": "true" }), ` ${t("Loading your games…")}`));
    return;
  }
  const byId = new Map(summaries.map((g) => [g.id, g]));
  // Newest first: the server's creation time, else when this browser stored it.
  const order = ids.slice().sort((a, b) => created(byId.get(b), stored[b]) - created(byId.get(a), stored[a]));
  const list = el("ul", { class: "game-list" });
  for (const id of order) {
    const game = byId.get(id);
    const summary = game && game.status !== "corrupt" ? game : null;
    const seat = seats[id];
    const oneSeat = t("one seat");
    const seatText = seat === "both" ? t("both seats") : seat === null || seat === undefined ? t("watching") : t("you play as {name}", { name: summary?.names[seat] ?? oneSeat });
    const title = summary ? (summary.names.length ? t("{first} vs {second}", { first: summary.names[0], second: summary.names[1] }) : id) : id;
    const forget = el(
      "button",
      {
        type: "button",
        class: "link-button",
        "aria-label": t("Forget game {title} in this browser", { title }),
        onclick: () => {
          forgetGame(id);
          update({ games: { ...lobby.games, ids: lobby.games.ids.filter((other) => other !== id) } });
        },
      },
      "forget",
    );
    list.append(
      el(
        "li",
        { "data-game": id },
        el("a", { href: `/game/${encodeURIComponent(id)}`, "data-testid": `open-${id}` }, title),
        el(
          "span",
          { class: "game-meta" },
          game ? `${summary ? `${MODE_NAMES[summary.mode] || summary.mode}${summary.clock ? ` (${summary.clock})` : ""} · ` : ""}${describeStatus(game)} · ${seatText}` : t("not found on this server"),
        ),
        forget,
      ),
    );
  }
  fill(gamesBox, list);
}

/** @param {Set<string>} lessonIds */
async function loadLessonProgress(lessonIds) {
  if (!lessonIds.size) return;
  try {
    const list = /** @type {import("./contract").GameList} */ ((await api(`/api/games?ids=${[...lessonIds].map(encodeURIComponent).join(",")}`)).body);
    /** @type {Record<number, boolean>} */
    const done = {};
    for (const game of list.games) if (game.status !== "corrupt" && game.lesson?.done) done[game.lesson.number] = true;
    update({ lessonDone: done });
  } catch {
    // Progress is a convenience: without it the lessons are listed as not done.
  }
}

/** @param {GameSummary | DamagedGame | undefined} game @param {number | undefined} stored when this browser stored it */
function created(game, stored) {
  if (game && game.status !== "corrupt" && game.created) {
    const t = Date.parse(game.created);
    if (!Number.isNaN(t)) return t;
  }
  return stored || 0;
}

setRenderer(drawLobby);
for (const control of [modeSelect, clockSelect, levelSelect, $("offer", HTMLSelectElement)]) control.addEventListener("change", readForm);
form.addEventListener("submit", createGame);
for (const tab of findAll("#leaderboard .tab")) tab.addEventListener("click", () => loadLeaderboard(tab.dataset.family || "realtime"));
readForm();
loadCatalogue();
startLobbyLive();
loadLeaderboard("realtime");
startAccount(() => {
  connectLive(); // the lobby as this viewer sees it now
  loadHeldGames();
  showPuzzleCard(); // and the puzzle rating
});
wireLanguageSwitch();
