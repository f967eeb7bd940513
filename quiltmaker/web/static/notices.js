// @ts-check
// Words to the player: the message line, the screen reader's announcements, banners.
import { $, uniqueId } from "./common.js";
import { render, ui } from "./store.js";

export function say(text, kind = "info") {
  const node = $("message");
  node.textContent = text;
  node.dataset.kind = kind;
  // Errors interrupt a screen reader; the rest waits its turn.
  node.setAttribute("aria-live", kind === "error" ? "assertive" : "polite");
}

export function announce(text) {
  $("announce").textContent = text;
}

export function banner(text, kind, ms) {
  const id = uniqueId();
  ui.banners.push({ id, text, kind });
  render();
  setTimeout(() => {
    ui.banners = ui.banners.filter((b) => b.id !== id);
    render();
  }, ms);
}
