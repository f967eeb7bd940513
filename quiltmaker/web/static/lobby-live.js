// @ts-check
// The lobby's live part: the challenges to accept, the games being played, who is online
// (pushed by the server over /ws/lobby whenever they change), and quick match: a seek the
// page polls every second until the server pairs it, with the computer offered after a while.
// Who may accept what, and who is paired with whom, the server decides.
import { $, api, drawnAs, el, errorText, fill, saveGame } from "./common.js";
import { listed, t, tn } from "./i18n.js";
import { GameSocket } from "./socket.js";
import { lobby, update } from "./lobby-store.js";

/** @typedef {import("./contract").Paired} Paired */
/** @typedef {import("./contract").Waiting} Waiting */

// The server holds a waiting seek's poll for up to two seconds and answers it the moment the seek is paired,
// so the page asks again almost at once: it hears of its opponent without waiting for a timer.
const POLL_MS = 100;

/** @param {string} text */
function say(text, kind = "info") {
  const line = $("quick-message");
  line.textContent = text;
  line.dataset.kind = kind;
}

/** Keep the seat and open the game: the same as creating one. @param {string} game @param {string} token @param {0 | 1 | "both"} seat */
function openSeat(game, token, seat) {
  saveGame(game, { token, seat, created: Date.now() });
  location.assign(`/game/${encodeURIComponent(game)}`);
}

// ---------------------------------------------------------------- drawing

/** The live lobby and the quick match card, as the store holds them. */
export function renderLive() {
  const clocks = lobby.catalogue?.clocks.presets ?? [];
  const select = $("quick-clock", HTMLSelectElement);
  if (clocks.length && !select.options.length) {
    fill(select, clocks.map((p) => el("option", { value: p.control, selected: p.control === "10+5" }, p.words)));
  }
  $("quick-start", HTMLButtonElement).disabled = !select.options.length; // no clock to ask for until the catalogue came
  $("quick-rated-field").hidden = !lobby.account; // a rated quick match needs an account
  const waiting = lobby.seek?.waiting ?? null;
  $("quick-form").hidden = !!lobby.seek;
  $("quick-waiting").hidden = !lobby.seek;
  $("quick-status").textContent = waiting
    ? t("Looking for an opponent rated {low} to {high}… ({seconds} s)", { low: waiting.rating - waiting.range, high: waiting.rating + waiting.range, seconds: Math.floor(Number(waiting.waited)) })
    : t("Looking for an opponent…");
  const offer = $("quick-computer", HTMLButtonElement);
  offer.hidden = !waiting || waiting.waited < waiting.fallback.after;
  if (waiting) offer.textContent = t("Nobody yet: play quiltmaker {level} (rated {rating}) instead", { level: waiting.fallback.level, rating: waiting.fallback.rating });
  renderChallenges();
}

function renderChallenges() {
  const live = lobby.live;
  if (!live || drawnAs($("challenge-list"), live)) return; // pushed each time it changes, drawn only then
  fill(
    $("challenge-list"),
    live.challenges.length
      ? live.challenges.map((c) =>
          el(
            "li",
            { "data-challenge": c.id },
            el("span", {}, el("strong", {}, c.by), ` (${c.rating}) · ${c.words} · ${c.rated ? t("rated") : t("casual")}`, c.for ? ` · ${t("for {name}", { name: c.for })}` : "", c.within ? ` · ${t("ratings ±{within}", { within: c.within })}` : ""),
            c.can_accept
              ? el("button", { type: "button", class: "primary", "data-testid": `accept-${c.id}`, onclick: () => accept(c.id) }, t("Accept"))
              : el("span", { class: "hint-text" }, c.why_not || ""),
          ),
        )
      : el("li", { class: "hint-text" }, t("No open challenges: offer one with the form (online, anyone from the lobby), or try a quick match.")),
  );
  fill(
    $("playing-list"),
    live.playing.length
      ? live.playing.map((g) => el("li", {}, el("a", { href: `/game/${encodeURIComponent(g.id)}` }, t("{first} vs {second}", { first: g.names[0], second: g.names[1] })), ` · ${g.clock || t("no clock")}${g.rated ? ` · ${t("rated")}` : ""}`))
      : el("li", { class: "hint-text" }, t("No games from the lobby being played right now.")),
  );
  $("online-now").textContent =
    (live.online.length ? t("Online now: {names}.", { names: listed(live.online) }) : t("Nobody signed in is online right now.")) +
    (live.seeking ? ` ${tn("{n} looking for a quick match.", "{n} looking for a quick match.", live.seeking)}` : "");
}

/** @param {string} id */
async function accept(id) {
  try {
    const body = /** @type {import("./contract").SeatTaken} */ ((await api(`/api/games/${encodeURIComponent(id)}/accept`, { json: {} })).body);
    openSeat(body.id ?? id, body.token, body.seat);
  } catch (error) {
    say(t("Could not accept: {error}", { error: errorText(error) }), "error");
  }
}

// ---------------------------------------------------------------- quick match

async function startSeek() {
  say("");
  const rated = !!lobby.account && $("quick-rated", HTMLInputElement).checked;
  try {
    const { body } = await api("/api/quickmatch", { json: { clock: $("quick-clock", HTMLSelectElement).value, rated } });
    const seek = /** @type {import("./contract").Seek} */ (body);
    if (seek.paired) { // someone was waiting for exactly this: the seat came with the answer
      openSeat(seek.paired.game, seek.paired.token, seek.paired.seat);
      return;
    }
    update({ seek: { seek: seek.seek, secret: seek.secret, waiting: null } });
    poll();
  } catch (error) {
    say(t("Could not start looking: {error}", { error: errorText(error) }), "error");
  }
}

async function poll() {
  const ticket = lobby.seek;
  if (!ticket) return;
  try {
    const { body } = await api(`/api/quickmatch/${encodeURIComponent(ticket.seek)}/poll`, { json: { secret: ticket.secret } });
    const answer = /** @type {Waiting | Paired} */ (body);
    if (lobby.seek !== ticket) return; // withdrawn meanwhile
    if (answer.matched) {
      update({ seek: null });
      openSeat(answer.game, answer.token, answer.seat);
      return;
    }
    update({ seek: { ...ticket, waiting: answer } });
  } catch (error) {
    update({ seek: null });
    say(errorText(error), "error");
    return;
  }
  update({ pollTimer: window.setTimeout(poll, POLL_MS) });
}

/** @param {"cancel" | "computer"} kind */
async function stopSeek(kind) {
  const ticket = lobby.seek;
  if (!ticket) return;
  clearTimeout(lobby.pollTimer);
  update({ seek: null, pollTimer: 0 });
  try {
    const { body } = await api(`/api/quickmatch/${encodeURIComponent(ticket.seek)}/${kind}`, { json: { secret: ticket.secret } });
    const answer = /** @type {Paired | import("./contract").Withdrawn} */ (body);
    if (answer.matched) openSeat(answer.game, answer.token, answer.seat); // a person came after all, or the computer's game
  } catch (error) {
    say(errorText(error), "error");
  }
}

// ---------------------------------------------------------------- wiring

/** Wire the quick match card (the live lobby opens once the page knows who is signed in: connectLive). */
export function startLobbyLive() {
  $("quick-start").addEventListener("click", startSeek);
  $("quick-cancel").addEventListener("click", () => stopSeek("cancel"));
  $("quick-computer").addEventListener("click", () => stopSeek("computer"));
}

/**
 * Open the lobby's socket (again): the server sends the lobby as this viewer sees it (which
 * challenges they may accept, whether they are online), so a sign-in or sign-out opens it anew.
 */
export function connectLive() {
  lobby.liveSocket?.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new GameSocket(`${scheme}://${location.host}/ws/lobby`, () => ({ type: "hello" }), {
    message: (/** @type {{ type: string }} */ message) => {
      if (message.type === "lobby") update({ live: /** @type {import("./contract").Lobby} */ (message) });
    },
    status: () => {},
  });
  update({ liveSocket: socket });
  socket.connect();
}
