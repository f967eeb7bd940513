// @ts-check
// The clocks of an online game. The server keeps the time: it charges each move,
// sends both clocks with every state, and ends the game when a real-time clock
// runs out. The page only counts the running clock down between two states, from
// the moment each state arrived (so a wrong clock on this computer changes nothing).

import { api, el, findAll } from "./common.js";
import { t, tn } from "./i18n.js";
import { isMine, nameOf, ui, update } from "./store.js";
import { banner } from "./notices.js";
import { lowTimeTone } from "./sound.js";

const TICK_MS = 200;

/** @typedef {import("./contract").Clock["kind"]} ClockKind */

/**
 * Seconds a seat has left now (null without a clock): the state's figure, less the time since it came if it runs.
 * @param {number} seat @returns {number | null}
 */
export function secondsLeft(seat) {
  const clock = ui.state?.clock;
  if (!clock) return null;
  const base = clock.remaining[seat];
  if (clock.running !== seat) return base;
  return Math.max(0, base - (performance.now() - ui.receivedAt) / 1000);
}

/**
 * A clock as players read it: 9:58, 1:02:03, 8.4 under ten seconds; days and hours for correspondence.
 * @param {number} seconds @param {ClockKind} kind
 */
export function clockText(seconds, kind) {
  if (kind === "correspondence" && seconds >= 3600) {
    const days = Math.floor(seconds / 86400);
    const hours = Math.floor((seconds % 86400) / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const dayCount = tn("{n} day", "{n} days", days);
    return days ? t("{days} {hours} h", { days: dayCount, hours }) : t("{hours} h {minutes} min", { hours, minutes });
  }
  if (seconds < 10) return (Math.floor(seconds * 10) / 10).toFixed(1);
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A seat's clock for its player's heading (null in a game without a clock); the ticker keeps it current. @param {number} seat */
export function clockBadge(seat) {
  if (!ui.state?.clock) return null;
  const badge = el("span", { class: "clock", "data-seat": String(seat), "data-testid": `clock-${seat}`, role: "timer" });
  paint(badge, seat);
  return badge;
}

/** @param {HTMLElement} badge @param {number} seat */
function paint(badge, seat) {
  if (!ui.state?.clock) return; // drawn only while the game has a clock
  const clock = ui.state.clock;
  const left = secondsLeft(seat) ?? 0;
  const text = clockText(left, clock.kind);
  if (badge.textContent !== text) badge.textContent = text;
  const running = clock.running === seat && !ui.state.result;
  badge.classList.toggle("running", running);
  badge.classList.toggle("low", running && left < clock.low);
  badge.classList.toggle("out", left <= 0);
  const values = { name: nameOf(seat), clock: clock.words, left: spoken(left, clock.kind) };
  badge.title = clock.started ? t("Time of {name} ({clock})", values) : t("Time of {name} ({clock}): the clocks start once each side has moved", values);
  badge.setAttribute("aria-label", running ? t("Clock of {name}: {left}, running", values) : t("Clock of {name}: {left}", values));
}

/** @param {number} seconds @param {ClockKind} kind */
function spoken(seconds, kind) {
  if (kind === "correspondence" && seconds >= 3600) return t("{time} left", { time: clockText(seconds, kind) });
  const whole = Math.ceil(seconds);
  const m = Math.floor(whole / 60);
  const s = whole % 60;
  const secondsLeft = tn("{n} second", "{n} seconds", s);
  const minutesLeft = tn("{n} minute", "{n} minutes", m);
  return m ? t("{minutes} {seconds} left", { minutes: minutesLeft, seconds: secondsLeft }) : t("{seconds} left", { seconds: secondsLeft });
}

/**
 * Redraw every clock, and warn this browser's player once when their own running clock gets low.
 * When the running clock reaches zero here, ask the server for the state again: it decides what
 * that means (a real-time game it ends itself; a correspondence game becomes claimable).
 * @param {(state: import("./contract").GameState) => void} onFresh
 */
function tick(onFresh) {
  if (!ui.state?.clock) return;
  const clock = ui.state.clock;
  for (const badge of findAll(".clock[data-seat]")) paint(badge, Number(badge.dataset.seat));
  const seat = clock.running;
  if (seat !== null && !ui.state.result && (secondsLeft(seat) ?? 1) <= 0 && ui.refreshed !== ui.state.version) {
    update({ refreshed: ui.state.version });
    const id = ui.state.id;
    setTimeout(async () => {
      try {
        const { body } = await api(`/api/games/${encodeURIComponent(id)}`);
        onFresh(/** @type {import("./contract").GameState} */ (body));
      } catch {
        update({ refreshed: -1 }); // try again on a later tick
      }
    }, clock.kind === "realtime" ? 1000 : 0); // a real-time game's end normally arrives by itself first
  }
  if (seat === null || ui.state.result || !isMine(seat) || ui.seat === "both") return;
  const left = secondsLeft(seat) ?? Infinity;
  const key = `${ui.state.id}:${seat}`;
  if (left < clock.low && left > 0 && !ui.warned.has(key)) {
    update((page) => { page.warned.add(key); });
    banner(t("Your clock: {left}.", { left: spoken(left, clock.kind) }), "clock", 6000);
    lowTimeTone();
  } else if (left >= clock.low && ui.warned.has(key)) {
    update((page) => { page.warned.delete(key); }); // an increment took it back up: warn again next time
  }
}

/**
 * Start the ticker; ``onFresh`` takes a state fetched when a clock ran out.
 * @param {(state: import("./contract").GameState) => void} onFresh
 */
export function startClocks(onFresh) {
  setInterval(() => tick(onFresh), TICK_MS);
}
