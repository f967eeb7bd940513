// @ts-check
// The lobby: create a game, list the games this browser holds a seat in.
import { $, api, el, fill, forgetGame, formatNumber, loadGames, saveGame } from "./common.js";
import { lessonGames, openLesson, startLesson } from "./lessons.js";
import { startAccount } from "./account.js";
import { setQuickRated, startLobbyLive } from "./lobby-live.js";

const form = $("new-game", HTMLFormElement);
const modeSelect = $("mode", HTMLSelectElement);
const levelSelect = $("level", HTMLSelectElement);
const levelDescription = $("level-description");
const seatSelect = $("seat", HTMLSelectElement);
const clockSelect = $("clock", HTMLSelectElement);
const message = $("lobby-message");
const gamesBox = $("your-games");

let levels = [];
let lessons = []; // {number, title}, from the catalogue
let signedIn = false;
let lessonDone = {}; // lesson number -> whether this browser's game of it is done (the server says)

function say(text, kind = "info") {
  message.textContent = text;
  message.dataset.kind = kind;
}

// ---------------------------------------------------------------- the form

/** Show only the fields that mean something for the chosen mode. */
function updateFields() {
  const mode = modeSelect.value;
  $("level-field").hidden = mode !== "ai";
  $("seat-field").hidden = mode === "local";
  $("name0-label").textContent = mode === "local" ? "First player's name" : "Your name";
  $("name1-label").textContent = mode === "online" ? "Your friend's name" : "Second player's name";
  const clocked = mode === "online" || mode === "ai";
  $("clock-field").hidden = !clocked;
  $("custom-clock").hidden = !clocked || clockSelect.value !== "custom";
  // A rated game needs a clock and an account (the server checks both again).
  $("rated-field").hidden = !clocked || !clockSelect.value || !signedIn;
  $("rated-hint").hidden = !clocked || !clockSelect.value || signedIn;
  // Online: who may take the second seat (a lobby challenge needs a clock).
  const offer = $("offer", HTMLSelectElement).value;
  $("offer-field").hidden = mode !== "online";
  $("opponent").hidden = mode !== "online" || offer !== "named";
  $("within").hidden = mode !== "online" || offer !== "open";
  $("offer-hint").hidden = mode !== "online" || offer === "invite" || !!clockSelect.value;
  $("name1-field").hidden = mode === "ai" || (mode === "online" && offer !== "invite");
}

/** The time controls the server offers (its catalogue), then a custom one. */
function showClocks(clocks) {
  const presets = Array.isArray(clocks?.presets) ? clocks.presets : [];
  fill(
    clockSelect,
    el("option", { value: "" }, "no clock"),
    presets.map((preset) => el("option", { value: preset.control }, preset.words)),
    el("option", { value: "custom" }, "custom real-time…"),
  );
}

/** The clock asked for: a preset's name, "minutes+seconds" for a custom one (the server checks its bounds), or null. */
function chosenClock() {
  if (!["online", "ai"].includes(modeSelect.value) || !clockSelect.value) return null;
  if (clockSelect.value !== "custom") return clockSelect.value;
  const minutes = Number($("clock-minutes", HTMLInputElement).value);
  const increment = Number($("clock-increment", HTMLInputElement).value);
  return `${Number.isFinite(minutes) ? Math.round(minutes * 100) / 100 : 0}+${Number.isFinite(increment) ? Math.round(increment) : 0}`;
}

function describeLevel() {
  const level = levels.find((l) => l.name === levelSelect.value);
  levelDescription.textContent = level && level.description ? level.description : "";
}

async function loadLevels() {
  try {
    const { body } = await api("/api/catalogue");
    levels = Array.isArray(body.levels) ? body.levels : [];
    lessons = Array.isArray(body.lessons) ? body.lessons : [];
    showClocks(body.clocks);
    startLobbyLive(body.clocks);
    showLessons();
    if (levels.length) {
      fill(
        levelSelect,
        levels.map((level) => el("option", { value: level.name }, typeof level.rating === "number" ? `${level.name} (rated ${level.rating})` : level.name)),
      );
      // A link may choose the level (the tutorial's last lesson sends a new player to the beginner).
      const wanted = new URLSearchParams(location.search).get("level");
      levelSelect.value = levels.some((l) => l.name === wanted) ? wanted : levels.some((l) => l.name === "casual") ? "casual" : levels[0].name;
    }
    describeLevel();
  } catch (error) {
    say(`Could not load the list of computer levels: ${error.message}`, "error");
  }
}

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
  let names;
  if (mode === "local") names = [name0 || "First player", name1 || "Second player"];
  else {
    // Names are seen by both players and read in the third person ("Host is
    // behind on the time track"), so the default is never "You".
    const mine = name0 || (mode === "ai" ? "Player" : "Host");
    const other = mode === "ai" ? "" : name1 || "Guest";
    names = seat === 0 ? [mine, other] : [other, mine];
  }
  const request = { mode, variant: $("variant", HTMLSelectElement).value, seed: null, seat, names };
  if (mode === "ai") request.level = levelSelect.value;
  const clock = chosenClock();
  if (clock) request.clock = clock;
  if (clock && signedIn && $("rated", HTMLInputElement).checked) request.rated = true;
  const offer = $("offer", HTMLSelectElement).value;
  if (mode === "online" && offer !== "invite") {
    request.offer = offer;
    if (offer === "named") request.opponent = $("opponent", HTMLInputElement).value.trim();
    const within = $("within", HTMLSelectElement).value;
    if (offer === "open" && within) request.within = Number(within);
  }
  submit.disabled = true;
  say("Creating the game…");
  try {
    const { body } = await api("/api/games", { json: request });
    const entry = { token: body.token, seat: body.seat, created: Date.now() };
    if (body.invite) entry.invite = body.invite;
    saveGame(body.id, entry);
    location.assign(`/game/${encodeURIComponent(body.id)}`);
  } catch (error) {
    say(`The game could not be created: ${error.message}`, "error");
    submit.disabled = false;
  }
}

// ---------------------------------------------------------------- the leaderboard

async function showLeaderboard(family) {
  for (const tab of document.querySelectorAll("#leaderboard .tab")) tab.setAttribute("aria-pressed", String(/** @type {HTMLElement} */ (tab).dataset.family === family));
  const list = $("leaderboard-list");
  try {
    const { body } = await api(`/api/leaderboard?family=${encodeURIComponent(family)}`);
    fill(
      list,
      (body.entries || []).map((entry) =>
        el(
          "li",
          { class: entry.computer ? "computer" : "" },
          entry.computer ? el("span", {}, entry.name) : el("a", { href: `/player/${encodeURIComponent(entry.name)}` }, entry.name),
          " ",
          el("strong", { class: "rating" }, String(entry.rating)),
          entry.computer ? el("span", { class: "tag" }, "computer") : el("span", { class: "hint-text" }, ` ${entry.games} games`),
        ),
      ),
    );
  } catch (error) {
    fill(list, el("li", { class: "message", "data-kind": "error" }, `Could not load the leaderboard: ${error.message}`));
  }
}

// ---------------------------------------------------------------- learn to play

function showLessons() {
  const held = lessonGames();
  const list = $("lesson-list");
  fill(
    list,
    lessons.map((lesson) => {
      const state = lessonDone[lesson.number] ? "done" : held[lesson.number] ? "started" : "new";
      const label = { done: "done", started: "in progress", new: "" }[state];
      return el(
        "li",
        { class: `lesson-item ${state}`, "data-testid": `lesson-${lesson.number}` },
        el("button", { type: "button", class: "link-button", onclick: () => go(() => openLesson(lesson.number)) }, lesson.title),
        label ? el("span", { class: "game-meta" }, state === "done" ? `✓ ${label}` : label) : null,
        state === "done" ? el("button", { type: "button", class: "link-button", "aria-label": `Play lesson ${lesson.number} again`, onclick: () => go(() => startLesson(lesson.number)) }, "again") : null,
      );
    }),
  );
  // Where to go on: the first lesson not done yet.
  const next = lessons.find((lesson) => !lessonDone[lesson.number]);
  const button = $("learn-start", HTMLButtonElement);
  const started = lessons.some((lesson) => held[lesson.number]);
  button.hidden = !lessons.length;
  button.textContent = !next ? "Play every lesson again" : started ? `Continue: lesson ${next.number}, ${next.title}` : "Start the first lesson";
  button.onclick = () => go(() => (next ? openLesson(next.number) : startLesson(1)));
}

async function go(action) {
  try {
    await action();
  } catch (error) {
    const line = $("learn-message");
    line.textContent = `The lesson could not be opened: ${error.message}`;
    line.dataset.kind = "error";
  }
}

// ---------------------------------------------------------------- your games

function describeStatus(game) {
  if (game.status === "corrupt") return "damaged on the server: it cannot be opened";
  if (game.status === "aborted") return "aborted: no result";
  if (game.result) {
    const winner = game.result.winner;
    const names = game.names || [];
    // The winner's score first: "Gus won, −56 to −77".
    const scores = game.result.scores;
    const score = scores ? `, ${formatNumber(scores[winner])} to ${formatNumber(scores[1 - winner])}` : "";
    if (game.result.by === "resignation") return `finished: ${names[winner] ?? `player ${winner}`} won by resignation`;
    if (game.result.by === "time") return `finished: ${names[winner] ?? `player ${winner}`} won on time`;
    return `finished: ${names[winner] ?? `player ${winner}`} won${score}`;
  }
  if (game.status === "waiting") return "waiting for your friend to join";
  if (game.to_move === null || game.to_move === undefined) return game.status || "";
  const names = game.names || [];
  return `${names[game.to_move] ?? `player ${game.to_move}`} to move`;
}

const MODE_NAMES = { ai: "against the computer", local: "pass-and-play", online: "online" };

async function showGames() {
  const stored = loadGames();
  const lessonIds = new Set(Object.values(lessonGames()));
  await showLessonProgress(lessonIds);
  // Lesson games are listed under "Learn to play", not here.
  const local = Object.keys(stored).filter((id) => !stored[id].lesson && !lessonIds.has(id));
  // Signed in: the account's games too, playable here without a token of this browser.
  let held = [];
  if (signedIn) {
    try {
      held = (await api("/api/account/games")).body.games || [];
    } catch {
      held = [];
    }
  }
  for (const game of held) if (!stored[game.id]) stored[game.id] = { seat: game.seat === "both" ? "both" : Number(game.seat), fromAccount: true };
  const ids = [...local, ...held.map((g) => g.id).filter((id) => !local.includes(id) && !lessonIds.has(id))];
  if (!ids.length) {
    fill(gamesBox, el("p", { class: "hint-text" }, "No games yet: start one with the form."));
    return;
  }
  fill(gamesBox, el("p", { class: "hint-text" }, el("span", { class: "spinner", "aria-hidden": "true" }), " Loading your games…"));
  let summaries = [];
  try {
    const query = ids.map(encodeURIComponent).join(",");
    const { body } = await api(`/api/games?ids=${query}`);
    summaries = (body && body.games) || [];
  } catch (error) {
    fill(gamesBox, el("p", { class: "message", "data-kind": "error" }, `Could not load your games: ${error.message}`));
    return;
  }
  const byId = new Map(summaries.map((g) => [g.id, g]));
  // Newest first: the server's creation time, else when this browser stored it.
  const order = ids.slice().sort((a, b) => created(byId.get(b), stored[b]) - created(byId.get(a), stored[a]));
  const list = el("ul", { class: "game-list" });
  for (const id of order) {
    const game = byId.get(id);
    const seat = stored[id].seat;
    const seatText = seat === "both" ? "both seats" : seat === null || seat === undefined ? "watching" : `you play as ${game?.names?.[seat] ?? "one seat"}`;
    const title = game ? (game.names || []).join(" vs ") || id : id;
    const forget = el(
      "button",
      {
        type: "button",
        class: "link-button",
        "aria-label": `Forget game ${title} in this browser`,
        onclick: () => {
          forgetGame(id);
          showGames();
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
          game ? `${MODE_NAMES[game.mode] || game.mode}${game.clock ? ` (${game.clock})` : ""} · ${describeStatus(game)} · ${seatText}` : "not found on this server",
        ),
        forget,
      ),
    );
  }
  fill(gamesBox, list);
}

async function showLessonProgress(lessonIds) {
  if (!lessonIds.size) return;
  try {
    const { body } = await api(`/api/games?ids=${[...lessonIds].map(encodeURIComponent).join(",")}`);
    lessonDone = {};
    for (const game of body.games || []) if (game.lesson?.done) lessonDone[game.lesson.number] = true;
  } catch {
    // Progress is a convenience: without it the lessons are listed as not done.
  }
  showLessons();
}

function created(game, entry) {
  if (game && game.created) {
    const t = typeof game.created === "number" ? game.created * (game.created < 1e12 ? 1000 : 1) : Date.parse(game.created);
    if (!Number.isNaN(t)) return t;
  }
  return (entry && entry.created) || 0;
}

modeSelect.addEventListener("change", updateFields);
clockSelect.addEventListener("change", updateFields);
$("offer").addEventListener("change", updateFields);
levelSelect.addEventListener("change", describeLevel);
form.addEventListener("submit", createGame);
updateFields();
loadLevels();
startAccount((account) => {
  signedIn = !!account;
  setQuickRated(signedIn);
  if (account) $("profile-link", HTMLAnchorElement).href = `/player/${encodeURIComponent(account.name)}`;
  updateFields();
  showGames();
});
for (const tab of document.querySelectorAll("#leaderboard .tab")) {
  tab.addEventListener("click", () => showLeaderboard(/** @type {HTMLElement} */ (tab).dataset.family || "realtime"));
}
showLeaderboard("realtime");
