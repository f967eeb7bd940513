// @ts-check
// Shared helpers of the lobby and the game page: the browser's own storage of
// seats, the HTTP API, square names, colours and small DOM helpers.
// Nothing here knows the rules of Patchwork: legality always comes from the server.

export const STORAGE_KEY = "quiltmaker.games";

/**
 * The quilt board as the catalogue describes it: its size and the letters of its
 * columns (square names are the core's: column letter, then row number).
 */
export const geometry = { size: 0, columns: "" };

/** Take the board's size and column letters from the catalogue, for the scripts and the style sheet. */
export function setBoard(catalogue) {
  geometry.size = catalogue.board_size;
  geometry.columns = catalogue.columns;
  document.documentElement.style.setProperty("--board", String(geometry.size));
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

/** All seats this browser holds: {gameId: {token, seat, invite?, created?}}. */
export function loadGames() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // a corrupt entry must not break the page
  }
}

export function saveGame(id, entry) {
  const games = loadGames();
  games[id] = { ...(games[id] || {}), ...entry };
  localStorage.setItem(STORAGE_KEY, JSON.stringify(games));
}

export function forgetGame(id) {
  const games = loadGames();
  delete games[id];
  localStorage.setItem(STORAGE_KEY, JSON.stringify(games));
}

// ---------------------------------------------------------------- HTTP

/** An error from the API, carrying the HTTP status and the server's message. */
export class ApiError extends Error {
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
    throw new ApiError(0, `cannot reach the server (${error.message})`);
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

/** The readable reason of a failed request, whatever shape the server gave it. */
function explain(body, response) {
  if (body && typeof body === "object") {
    if (typeof body.message === "string") return body.message;
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail)) {
      // FastAPI validation errors: [{loc, msg}, ...]
      return body.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
  }
  if (typeof body === "string" && body.length < 300) return body;
  return `${response.status} ${response.statusText}`;
}

// ---------------------------------------------------------------- squares

export function squareName(row, col) {
  return `${geometry.columns[col]}${row + 1}`;
}

// ---------------------------------------------------------------- colours

// Patch colours: 33 well separated hues (golden angle), light enough for the
// dark patch outlines to show. Colour is never the only cue: patches also get
// outlines, and the id is in each square's label.
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

/** Create an element: el("div", {class: "x", "data-testid": "y"}, child, "text", ...). */
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

/** Replace the children of a node. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A small token badge: a coloured shape with the seat number, never colour alone. */
export function tokenBadge(seat, extraClass = "") {
  return el("span", { class: `token token-${seat} ${extraClass}`.trim(), "aria-hidden": "true" }, String(seat));
}

/** A patch shape drawn as a small grid of cells; `cells` are [row, col] pairs. */
export function shapeNode(patchId, cells, cellSize) {
  const height = Math.max(...cells.map((c) => c[0])) + 1;
  const width = Math.max(...cells.map((c) => c[1])) + 1;
  const node = el("span", {
    class: "shape",
    "aria-hidden": "true",
    style: {
      gridTemplateColumns: `repeat(${width}, ${cellSize}px)`,
      gridTemplateRows: `repeat(${height}, ${cellSize}px)`,
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

/** A small drawn icon (no font has them all): "time" is an hourglass. */
export function icon(name) {
  return el("span", { class: `icon icon-${name}`, "aria-hidden": "true" });
}

/** A unique id for an intent (crypto.randomUUID needs a secure context). */
let intentCounter = 0;
export function uniqueId() {
  intentCounter += 1;
  const random = Math.random().toString(36).slice(2, 8);
  return `c${Date.now().toString(36)}-${intentCounter}-${random}`;
}

/**
 * A number as players read it: a true minus sign (−5, not -5), and with `sign` a plus on
 * positive numbers (+2.5); `digits` decimals.
 * @param {number} value
 * @param {{ sign?: boolean, digits?: number }} [options]
 */
export function formatNumber(value, { sign = false, digits = 0 } = {}) {
  const text = Math.abs(value).toFixed(digits);
  if (Number(text) === 0) return text;
  return value < 0 ? `−${text}` : sign ? `+${text}` : text;
}

export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}
