// @ts-check
// Your turn while the tab is in the background: the favicon shows it, and, if
// the player allowed it, the browser's Notification API says so once per turn.
import { $ } from "./common.js";
import { t } from "./i18n.js";
import { canAct, nameOf, ui, update } from "./store.js";

const NOTIFY_KEY = "quiltmaker.notify";
// The app's icon, and the same with a dot (both drawn by scripts/make-icons.py).
const ICON_IDLE = "/static/icons/icon.svg";
const ICON_TURN = "/static/icons/icon-turn.svg";

function notifying() {
  return localStorage.getItem(NOTIFY_KEY) === "on" && "Notification" in window && Notification.permission === "granted";
}

/** The favicon: a dot while it is this browser's turn (drawn with the page). */
export function renderAttention() {
  // Only a turn that someone else's move brings is worth a notification: not in a lesson or at one shared screen.
  const mode = ui.state?.mode;
  $("notify-setting-label").hidden = !("Notification" in window) || !mode || mode === "lesson" || mode === "local" || mode === "puzzle";
  const icon = document.querySelector("link[rel=icon]");
  if (icon instanceof HTMLLinkElement) {
    const href = canAct() ? ICON_TURN : ICON_IDLE;
    if (icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }
}

/** A state has been shown: in a background tab, say once that it is this browser's turn now. */
export function noticeTurn() {
  const s = ui.state;
  if (s && canAct() && document.hidden && notifying() && ui.notified !== s.version) {
    update({ notified: s.version });
    new Notification(t("Your turn in quiltmaker"), { body: t("{first} vs {second}: it is your move.", { first: nameOf(0), second: nameOf(1) }), tag: `quiltmaker-${s.id}` });
  }
}

/** The "notify me" setting: asks the browser's permission when turned on. */
export function startAttention() {
  const box = $("notify-setting", HTMLInputElement);
  box.checked = notifying();
  box.addEventListener("change", async () => {
    if (box.checked && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") box.checked = false;
    }
    localStorage.setItem(NOTIFY_KEY, box.checked ? "on" : "off");
  });
}
