// @ts-check
// Words to the player: the message line, the screen reader's announcements, banners.
import { $, uniqueId } from "./common.js";
import { update } from "./store.js";

/** The message line. @param {string} text @param {string} [kind] "info", "ok" or "error" */
export function say(text, kind = "info") {
  const node = $("message");
  node.textContent = text;
  node.dataset.kind = kind;
  // Errors interrupt a screen reader; the rest waits its turn.
  node.setAttribute("aria-live", kind === "error" ? "assertive" : "polite");
}

/** Said by a screen reader only. @param {string} text */
export function announce(text) {
  $("announce").textContent = text;
}

/** A banner shown for `ms` milliseconds. @param {string} text @param {string} kind @param {number} ms */
export function banner(text, kind, ms) {
  const id = uniqueId();
  update((page) => { page.banners.push({ id, text, kind }); });
  setTimeout(() => update((page) => { page.banners = page.banners.filter((b) => b.id !== id); }), ms);
}
