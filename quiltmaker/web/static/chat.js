// @ts-check
// The chat of an online game, between its two players (spectators see none):
// lines come from the server, are shown as text (never as markup), and the
// player can turn the chat off (kept in this browser).
import { $, el, findAll } from "./common.js";
import { nameOf, ui } from "./store.js";
import { say } from "./notices.js";
import { sendChat } from "./intents.js";

const OFF_KEY = "quiltmaker.chat-off";
/** @type {{id: number, seat: number, text: string, at: string}[]} */
const lines = [];

export function chatOff() {
  return localStorage.getItem(OFF_KEY) === "on";
}

/** New lines from the server (each once, in order). */
export function onChatLines(fresh) {
  for (const line of fresh) if (!lines.some((l) => l.id === line.id)) lines.push(line);
  lines.sort((a, b) => a.id - b.id);
  renderChat();
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
  if (list.childElementCount !== lines.length) {
    list.replaceChildren(
      ...lines.map((line) => el("li", { class: `chat-line seat-${line.seat}` }, el("strong", {}, `${nameOf(line.seat)}: `), line.text)),
    );
    list.scrollTop = list.scrollHeight;
  }
}

function send(text) {
  const line = text.trim();
  if (!line) return;
  if (!sendChat(line)) say("Not connected: the line was not sent.", "error");
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
    renderChat();
  });
}
