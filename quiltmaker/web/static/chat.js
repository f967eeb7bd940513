// @ts-check
// The chat of an online game, between its two players (spectators see none):
// lines come from the server, are shown as text (never as markup), and the
// player can turn the chat off (kept in this browser).
import { $, el, findAll } from "./common.js";
import { t } from "./i18n.js";
import { nameOf, ui, update } from "./store.js";
import { say } from "./notices.js";
import { sendChat } from "./intents.js";

const OFF_KEY = "quiltmaker.chat-off";

export function chatOff() {
  return localStorage.getItem(OFF_KEY) === "on";
}

/** New lines from the server (each once, in order). @param {import("./contract").ChatLine[]} fresh */
export function onChatLines(fresh) {
  const known = new Set(ui.chat.map((line) => line.id));
  const lines = [...ui.chat, ...fresh.filter((line) => !known.has(line.id))].sort((a, b) => a.id - b.id);
  update({ chat: lines });
}

export function renderChat() {
  const panel = $("chat");
  const s = ui.state;
  panel.hidden = !(s && s.mode === "online" && typeof ui.seat === "number");
  if (panel.hidden) return;
  const off = chatOff();
  $("chat-off", HTMLInputElement).checked = off;
  $("chat-body").hidden = off;
  const list = $("chat-lines");
  if (list.childElementCount !== ui.chat.length) {
    list.replaceChildren(
      ...ui.chat.map((line) => el("li", { class: `chat-line seat-${line.seat}` }, el("strong", {}, `${nameOf(line.seat)}: `), line.text)),
    );
    list.scrollTop = list.scrollHeight;
  }
}

/** @param {string} text */
function send(text) {
  const line = text.trim();
  if (!line) return;
  if (!sendChat(line)) say(t("Not connected: the line was not sent."), "error");
}

export function startChat() {
  const input = $("chat-text", HTMLInputElement);
  $("chat-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.value);
    input.value = "";
  });
  for (const button of findAll(".quick-phrases .phrase")) button.addEventListener("click", () => send(button.textContent || ""));
  $("chat-off", HTMLInputElement).addEventListener("change", (event) => {
    localStorage.setItem(OFF_KEY, /** @type {HTMLInputElement} */ (event.target).checked ? "on" : "off");
    update({}); // the choice is kept by the browser: draw what follows from it
  });
}
