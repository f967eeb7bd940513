// @ts-check
// The lobby's live part: the challenges to accept, the games being played, who is online
// (pushed by the server over /ws/lobby whenever they change), and quick match: a seek the
// page polls every second until the server pairs it, with the computer offered after a while.
// Who may accept what, and who is paired with whom, the server decides.
import { $, api, el, fill, saveGame } from "./common.js";
import { GameSocket } from "./socket.js";

const POLL_MS = 1000;
/** @type {{seek: string, secret: string} | null} */
let seeking = null;
let pollTimer = 0;

function say(text, kind = "info") {
  const line = $("quick-message");
  line.textContent = text;
  line.dataset.kind = kind;
}

/** Keep the seat and open the game: the same as creating one. */
function openSeat(game, token, seat) {
  saveGame(game, { token, seat, created: Date.now() });
  location.assign(`/game/${encodeURIComponent(game)}`);
}

// ---------------------------------------------------------------- challenges, games being played, online

function showLobby(lobby) {
  const challenges = lobby.challenges || [];
  fill(
    $("challenge-list"),
    challenges.length
      ? challenges.map((c) =>
          el(
            "li",
            { "data-challenge": c.id },
            el("span", {}, el("strong", {}, c.by), ` (${c.rating}) · ${c.words} · ${c.rated ? "rated" : "casual"}`, c.for ? ` · for ${c.for}` : "", c.within ? ` · ratings ±${c.within}` : ""),
            c.can_accept
              ? el("button", { type: "button", class: "primary", "data-testid": `accept-${c.id}`, onclick: () => accept(c.id) }, "Accept")
              : el("span", { class: "hint-text" }, c.why_not || ""),
          ),
        )
      : el("li", { class: "hint-text" }, "No open challenges: offer one with the form (online, anyone from the lobby), or try a quick match."),
  );
  const playing = lobby.playing || [];
  fill(
    $("playing-list"),
    playing.length
      ? playing.map((g) => el("li", {}, el("a", { href: `/game/${encodeURIComponent(g.id)}` }, g.names.join(" vs ")), ` · ${g.clock || "no clock"}${g.rated ? " · rated" : ""}`))
      : el("li", { class: "hint-text" }, "No games from the lobby being played right now."),
  );
  const online = lobby.online || [];
  const seekers = lobby.seeking || 0;
  $("online-now").textContent =
    `${online.length ? `Online now: ${online.join(", ")}.` : "Nobody signed in is online right now."}` +
    (seekers ? ` ${seekers} looking for a quick match.` : "");
}

async function accept(id) {
  try {
    const { body } = await api(`/api/games/${encodeURIComponent(id)}/accept`, { json: {} });
    openSeat(body.id, body.token, body.seat);
  } catch (error) {
    say(`Could not accept: ${error.message}`, "error");
  }
}

// ---------------------------------------------------------------- quick match

function waitingShown(on) {
  $("quick-form").hidden = on;
  $("quick-waiting").hidden = !on;
}

async function startSeek() {
  say("");
  const rated = !$("quick-rated-field").hidden && $("quick-rated", HTMLInputElement).checked;
  try {
    const { body } = await api("/api/quickmatch", { json: { clock: $("quick-clock", HTMLSelectElement).value, rated } });
    seeking = { seek: body.seek, secret: body.secret };
    waitingShown(true);
    poll();
  } catch (error) {
    say(`Could not start looking: ${error.message}`, "error");
  }
}

async function poll() {
  if (!seeking) return;
  try {
    const { body } = await api(`/api/quickmatch/${encodeURIComponent(seeking.seek)}/poll`, { json: { secret: seeking.secret } });
    if (body.matched) {
      seeking = null;
      openSeat(body.game, body.token, body.seat);
      return;
    }
    $("quick-status").textContent = `Looking for an opponent rated ${body.rating - body.range} to ${body.rating + body.range}… (${Math.floor(body.waited)} s)`;
    const offer = $("quick-computer", HTMLButtonElement);
    offer.hidden = body.waited < body.fallback.after;
    offer.textContent = `Nobody yet: play quiltmaker ${body.fallback.level} (rated ${body.fallback.rating}) instead`;
  } catch (error) {
    seeking = null;
    waitingShown(false);
    say(error.message, "error");
    return;
  }
  pollTimer = window.setTimeout(poll, POLL_MS);
}

async function stopSeek(kind) {
  if (!seeking) return;
  const ticket = seeking;
  seeking = null;
  clearTimeout(pollTimer);
  try {
    const { body } = await api(`/api/quickmatch/${encodeURIComponent(ticket.seek)}/${kind}`, { json: { secret: ticket.secret } });
    if (body.matched) {
      openSeat(body.game, body.token, body.seat); // a person came after all, or the computer's game
      return;
    }
  } catch (error) {
    say(error.message, "error");
  }
  waitingShown(false);
}

/** Wire the quick match card and the live lobby; `clocks` are the catalogue's presets. */
export function startLobbyLive(clocks) {
  fill(
    $("quick-clock", HTMLSelectElement),
    (clocks?.presets || []).map((p) => el("option", { value: p.control, selected: p.control === "10+5" }, p.words)),
  );
  $("quick-start").addEventListener("click", startSeek);
  $("quick-cancel").addEventListener("click", () => stopSeek("cancel"));
  $("quick-computer").addEventListener("click", () => stopSeek("computer"));
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new GameSocket(`${scheme}://${location.host}/ws/lobby`, () => ({ type: "hello" }), {
    message: (message) => {
      if (message.type === "lobby") showLobby(message);
    },
    status: () => {},
  });
  socket.connect();
}

/** Signed in or not: a rated quick match needs an account. */
export function setQuickRated(signedIn) {
  $("quick-rated-field").hidden = !signedIn;
}
