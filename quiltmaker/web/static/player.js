// @ts-check
// A player's page: each family's rating, its history as a graph, and the games played, each linked to its replay.
// Everything comes from GET /api/players/{name}; the page computes no rating. Its state is
// one store (page-store.js), drawn by drawPlayer() after every change.
import { t, tn, wireLanguageSwitch } from "./i18n.js";
import { $, api, el, errorText, fill } from "./common.js";
import { createStore } from "./page-store.js";

/** @typedef {import("./contract").Profile} Profile */
/** @typedef {import("./contract").Rating} Rating */
/** @typedef {import("./contract").RatingChange} RatingChange */
/** @typedef {import("./contract").GameSummary} GameSummary */

/** @type {Record<string, string>} */
const FAMILY_NAMES = { realtime: t("Real-time"), correspondence: t("Correspondence") };
/** @type {Record<string, string>} */
const FAMILY_COLOURS = { realtime: "#0072B2", correspondence: "#D55E00" };

const store = createStore(/** @type {import("./page").PlayerPage} */ ({ profile: null, error: null }));
const page = store.state;

/** @param {Rating} r */
function ratingText(r) {
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

/** @param {Profile["ratings"]} ratings */
function showRatings(ratings) {
  fill(
    $("rating-cards"),
    Object.entries(ratings).map(([family, r]) =>
      el(
        "div",
        { class: "rating-card", "data-testid": `rating-${family}` },
        el("div", { class: "hint-text" }, FAMILY_NAMES[family] || family),
        el("div", { class: "big", title: t("deviation ±{rd}", { rd: r.rd }) }, ratingText(r)),
        el("div", { class: "hint-text" }, r.games ? `${tn("{n} rated game", "{n} rated games", r.games)}${r.provisional ? ` · ${t("provisional")}` : ""}` : t("no rated games yet")),
      ),
    ),
  );
}

/**
 * The rating after each rated game, one line per family, as an SVG graph with its numbers in a table for screen readers.
 * @param {RatingChange[]} history
 */
function showHistory(history) {
  const box = $("rating-history");
  if (!history.length) {
    fill(box, el("p", { class: "hint-text" }, t("No rated games yet.")));
    return;
  }
  const width = 720;
  const height = 220;
  const pad = { left: 44, right: 12, top: 12, bottom: 24 };
  const values = history.flatMap((h) => [h.before, h.after]);
  const low = Math.floor((Math.min(...values) - 20) / 50) * 50;
  const high = Math.ceil((Math.max(...values) + 20) / 50) * 50;
  // Slot 0 is before the first rated game, slot i + 1 after game i: even one game draws a line, from where it began.
  const x = (/** @type {number} */ slot) => pad.left + (slot / history.length) * (width - pad.left - pad.right);
  const y = (/** @type {number} */ v) => pad.top + (1 - (v - low) / (high - low)) * (height - pad.top - pad.bottom);
  const ns = "http://www.w3.org/2000/svg";
  /** @param {string} tag @param {Record<string, string | number>} attrs @param {string} [text] */
  const node = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-graph", role: "img", "aria-label": t("Rating after each rated game") });
  for (const tick of [low, (low + high) / 2, high]) {
    svg.append(node("line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: y(tick), y2: y(tick) }));
    svg.append(node("text", { x: 4, y: y(tick) + 4 }, String(Math.round(tick))));
  }
  for (const family of Object.keys(FAMILY_NAMES)) {
    const points = /** @type {[RatingChange, number][]} */ (history.map((h, i) => [h, i])).filter(([h]) => h.family === family);
    if (!points.length) continue;
    const [first, start] = points[0];
    const d = `M${x(start).toFixed(1)},${y(first.before).toFixed(1)} ` + points.map(([h, i]) => `L${x(i + 1).toFixed(1)},${y(h.after).toFixed(1)}`).join(" ");
    svg.append(node("path", { class: "line", d, stroke: FAMILY_COLOURS[family] }));
    svg.append(node("circle", { cx: x(start), cy: y(first.before), r: 3, fill: "#fff", stroke: FAMILY_COLOURS[family] }));
    for (const [h, i] of points) svg.append(node("circle", { cx: x(i + 1), cy: y(h.after), r: 3, fill: FAMILY_COLOURS[family] }));
  }
  const table = el(
    "table",
    { class: "visually-hidden" },
    el("caption", {}, t("Rating after each rated game")),
    el("tr", {}, el("th", {}, t("Game")), el("th", {}, t("Family")), el("th", {}, t("Before")), el("th", {}, t("After"))),
    history.map((h, i) => el("tr", {}, el("td", {}, String(i + 1)), el("td", {}, FAMILY_NAMES[h.family]), el("td", {}, String(h.before)), el("td", {}, String(h.after)))),
  );
  fill(box, svg, table);
}

/** @param {GameSummary} game @param {GameSummary["seat"]} seat */
function resultText(game, seat) {
  if (game.status === "aborted") return t("aborted");
  if (!game.result) return game.status === "waiting" ? t("waiting for the opponent") : t("being played");
  const mine = seat === "both" ? null : Number(seat);
  if (mine === null) return t("{name} won", { name: game.names[game.result.winner] });
  const won = game.result.winner === mine;
  if (game.result.by === "time") return won ? t("won on time") : t("lost on time");
  if (game.result.by === "resignation") return won ? t("won by resignation") : t("lost by resignation");
  if (game.result.by === "claim") return won ? t("won by claim") : t("lost: past the days for a move");
  return won ? t("won") : t("lost");
}

/** @param {GameSummary[]} games */
function showGames(games) {
  const list = $("played");
  if (!games.length) {
    fill(list, el("li", { class: "hint-text" }, t("No games yet.")));
    return;
  }
  fill(
    list,
    games.map((game) => {
      const seat = game.seat;
      const mine = seat === "both" ? null : Number(seat);
      const opponent = mine === null ? t("{first} vs {second}", { first: game.names[0], second: game.names[1] }) : t("against {name}", { name: game.names[1 - mine] });
      const change = mine !== null ? game.rating?.changes?.[mine] : null;
      const delta = change ? change[1] - change[0] : null;
      return el(
        "li",
        {},
        el("a", { href: `/game/${encodeURIComponent(game.id)}` }, opponent),
        ` · ${resultText(game, seat)}`,
        game.clock ? ` · ${game.clock}` : "",
        game.rating ? ` · ${t("rated")}` : "",
        delta !== null ? el("span", { class: `rating-change ${delta >= 0 ? "up" : "down"}` }, ` ${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`) : null,
      );
    }),
  );
}

/** The page, from the store. */
function drawPlayer() {
  const profile = page.profile;
  if (page.error) {
    $("player-title").textContent = t("No such player");
    $("player-message").textContent = page.error;
  }
  if (!profile) return;
  document.title = `${profile.name} · quiltmaker`;
  $("player-title").textContent = profile.name;
  showRatings(profile.ratings);
  showHistory(profile.history);
  showGames(profile.games);
  $("more-games").hidden = !profile.more;
}

/** The profile, or (``before``: the last game listed) its next page of games added to those shown. @param {string | null} before */
async function load(before) {
  const name = decodeURIComponent(location.pathname.split("/").pop() || "");
  try {
    const next = /** @type {Profile} */ ((await api(`/api/players/${encodeURIComponent(name)}${before ? `?before=${encodeURIComponent(before)}` : ""}`)).body);
    store.update({ profile: before && page.profile ? { ...next, games: [...page.profile.games, ...next.games] } : next });
  } catch (error) {
    store.update({ error: errorText(error) });
  }
}

async function main() {
  store.setRenderer(drawPlayer);
  $("more-games").addEventListener("click", () => load(page.profile?.more ?? null));
  await load(null);
}

main();
wireLanguageSwitch();
