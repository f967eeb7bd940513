// @ts-check
// Shared helpers of the lobby and the game page: the browser's own storage of
// seats, the HTTP API, square names, colours and small DOM helpers.
// Nothing here knows the rules of Patchwork: legality always comes from the server.

import { number, t } from "./i18n.js";

export const STORAGE_KEY = "quiltmaker.games";

/**
 * The style sheet's measures from the catalogue: the quilt's size and the time track's spaces.
 * @param {import("./contract").Catalogue} catalogue
 */
export function setBoard(catalogue) {
  document.documentElement.style.setProperty("--board", String(catalogue.board_size));
  document.documentElement.style.setProperty("--spaces", String(catalogue.last_space + 1));
}

/**
 * The element with this id, of the kind the caller names (`$("advance", HTMLButtonElement)`):
 * a page whose markup lost or changed an element fails here, by name, not later.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} [kind] HTMLElement when not given
 * @returns {T}
 */
export function $(id, kind) {
  const node = document.getElementById(id);
  if (!(node instanceof (kind || HTMLElement))) throw new Error(`the page has no ${kind ? kind.name : "element"} #${id}`);
  return /** @type {T} */ (node);
}

/**
 * The first element under `root` that matches a CSS selector, or null.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement | null}
 */
export function find(selector, root = document) {
  return root.querySelector(selector);
}

/**
 * Every element under `root` that matches a CSS selector.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
export function findAll(selector, root = document) {
  return /** @type {HTMLElement[]} */ ([...root.querySelectorAll(selector)]);
}

// ---------------------------------------------------------------- storage

/**
 * A seat this browser holds in a game: its token (none for a game listed from the account),
 * which seat, the invitation to pass on, when it was stored, whether it is a lesson's.
 * @typedef {{ token?: string, seat?: import("./page").SeatHeld, invite?: string, created?: number, lesson?: number, puzzle?: boolean, fromAccount?: boolean }} HeldGame
 */

/** All seats this browser holds, by game id. @returns {Record<string, HeldGame>} */
export function loadGames() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // a corrupt entry must not break the page
  }
}

/** @param {string} id @param {HeldGame} entry */
export function saveGame(id, entry) {
  const games = loadGames();
  games[id] = { ...(games[id] || {}), ...entry };
  localStorage.setItem(STORAGE_KEY, JSON.stringify(games));
}

/** @param {string} id */
export function forgetGame(id) {
  const games = loadGames();
  delete games[id];
  localStorage.setItem(STORAGE_KEY, JSON.stringify(games));
}

// ---------------------------------------------------------------- HTTP

/** What went wrong, in words, whatever was thrown. @param {unknown} error */
export function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/** An error from the API, carrying the HTTP status and the server's message. */
export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {unknown} [body] */
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * Fetch JSON; throws ApiError with the server's explanation on a non-2xx answer.
 * @param {string} path
 * @param {RequestInit & { json?: unknown }} [options] `json` is sent as the body of a POST
 * @returns {Promise<{ status: number, body: any }>}
 */
export async function api(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  const init = { ...options, headers };
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.body = JSON.stringify(options.json);
    headers["Content-Type"] = "application/json";
    delete init.json;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, t("cannot reach the server ({error})", { error: errorText(error) }));
  }
  let body = null;
  const text = await response.text();
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, explain(body, response), body);
  }
  return { status: response.status, body };
}

/**
 * The readable reason of a failed request, whatever shape the server gave it.
 * @param {any} body @param {Response} response
 */
function explain(body, response) {
  if (body && typeof body === "object") {
    if (typeof body.message === "string") return body.message;
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail)) {
      // FastAPI validation errors: [{loc, msg}, ...]
      return body.detail.map((/** @type {{ loc?: string[], msg: string }} */ d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
  }
  if (typeof body === "string" && body.length < 300) return body;
  return `${response.status} ${response.statusText}`;
}

// ---------------------------------------------------------------- colours

// Patch colours: 33 well separated hues (golden angle), light enough for the
// dark patch outlines to show. Colour is never the only cue: patches also get
// outlines, and the id is in each square's label.
/** @param {number} id */
export function patchColour(id) {
  const hue = Math.round((id * 137.508 + 20) % 360);
  const light = [72, 62, 80][id % 3];
  const sat = [55, 45, 60][id % 3];
  return `hsl(${hue} ${sat}% ${light}%)`;
}

// Token colours from the Okabe-Ito palette (safe for the common colour
// blindnesses); each token also has its own shape and a label.
export const SEAT_COLOURS = ["#0072B2", "#E69F00"];
export const SEAT_SHAPES = ["circle", "diamond"];

// ---------------------------------------------------------------- DOM

/**
 * What `el` and `fill` take as children: nodes, text, numbers, nothing, and lists of them.
 * @typedef {Node | string | number | boolean | null | undefined} Leaf
 * @typedef {Leaf | Leaf[]} Child
 */

/**
 * Create an element: el("div", {class: "x", "data-testid": "y"}, child, "text", ...).
 * Attributes: `class`, `style` (an object), `on...` (a listener), `text`, and any other
 * (true: present; null, undefined, false: left out).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "style" && typeof value === "object") Object.assign(node.style, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Whether `node` already shows what `inputs` describe, noting them on it when not: a part of
 * the page that is costly to draw (and to lay out again) redraws only when what it shows
 * changed, and keeps what it shows on its own element, not in a variable of a module.
 * @param {HTMLElement} node @param {unknown} inputs everything the drawing reads, as JSON
 */
export function drawnAs(node, inputs) {
  // undefined kept apart from null (JSON would write both as null): a seat not told yet is not a spectator's.
  const key = JSON.stringify(inputs, (_, value) => (value === undefined ? "(undefined)" : value));
  if (node.dataset.drawn === key) return true;
  node.dataset.drawn = key;
  return false;
}

/**
 * Set a node's text only when it changes: the page is drawn again after every change of its
 * store, and text written again would be read out again by a screen reader and churn the DOM.
 * @param {Node} node @param {string} text
 */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * Replace the children of a node.
 * @template {Element} N
 * @param {N} node
 * @param {...Child} children
 * @returns {N}
 */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A small token badge: a coloured shape with the seat number, never colour alone. @param {number} seat */
export function tokenBadge(seat, extraClass = "") {
  return el("span", { class: `token token-${seat} ${extraClass}`.trim(), "aria-hidden": "true" }, String(seat));
}

/**
 * A patch shape drawn as a small grid of cells.
 * @param {number} patchId
 * @param {readonly (readonly number[])[]} cells [row, col] pairs
 * @param {string} cellSize a CSS length (a custom property, so a phone's sheet can draw it smaller)
 */
export function shapeNode(patchId, cells, cellSize) {
  const height = Math.max(...cells.map((c) => c[0])) + 1;
  const width = Math.max(...cells.map((c) => c[1])) + 1;
  const node = el("span", {
    class: "shape",
    "aria-hidden": "true",
    style: {
      gridTemplateColumns: `repeat(${width}, ${cellSize})`,
      gridTemplateRows: `repeat(${height}, ${cellSize})`,
    },
  });
  for (const [r, c] of cells) {
    node.append(
      el("span", {
        class: "shape-cell",
        style: { gridRow: String(r + 1), gridColumn: String(c + 1), background: patchColour(patchId) },
      }),
    );
  }
  return node;
}

/** A small drawn icon (no font has them all): "time" is an hourglass. @param {string} name */
export function icon(name) {
  return el("span", { class: `icon icon-${name}`, "aria-hidden": "true" });
}

/** A unique id for an intent: 96 random bits (crypto.randomUUID needs a secure context; this does not). */
export function uniqueId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * A number as players read it: a true minus sign (−5, not -5), and with `sign` a plus on
 * positive numbers (+2.5); `digits` decimals.
 * @param {number} value
 * @param {{ sign?: boolean, digits?: number }} [options]
 */
export function formatNumber(value, { sign = false, digits = 0 } = {}) {
  const rounded = Number(Math.abs(value).toFixed(digits));
  const text = number(rounded, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
  if (rounded === 0) return text;
  return value < 0 ? `−${text}` : sign ? `+${text}` : text;
}


/**
 * A translated sentence whose <b>…</b> parts are drawn bold: the words stay one message, in the
 * translator's order; nothing else in it is read as markup.
 * @param {string} text
 * @returns {(string | HTMLElement)[]}
 */
export function withBold(text) {
  return text.split(/<b>(.*?)<\/b>/).map((part, index) => (index % 2 ? el("strong", {}, part) : part));
}
