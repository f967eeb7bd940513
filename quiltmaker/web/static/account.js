// @ts-check
// The lobby's account card: sign up (taking this browser's guest games along),
// sign in and out, here or everywhere, and the password. The session is an
// HttpOnly cookie the page never sees; the server says who is signed in.
import { $, api, errorText, loadGames } from "./common.js";
import { t, tn } from "./i18n.js";
import { lobby, update } from "./lobby-store.js";

/** @typedef {import("./contract").AccountView} AccountView */

/** @param {string} text */
function say(text, kind = "info") {
  const line = $("account-message");
  line.textContent = text;
  line.dataset.kind = kind;
}

/** The card as the store says: signed in (and as whom) or not. */
export function renderAccount() {
  const account = lobby.account;
  $("signed-out").hidden = !!account;
  $("signed-in").hidden = !account;
  $("account-shown").textContent = account ? account.name : "";
  $("password-username", HTMLInputElement).value = account ? account.name : "";
  $("profile-link", HTMLAnchorElement).href = account ? `/player/${encodeURIComponent(account.name)}` : "/";
}

/** @returns {{ name: string, password: string }} */
function credentials() {
  return { name: $("account-name", HTMLInputElement).value.trim(), password: $("account-password", HTMLInputElement).value };
}

/** Take the seats this browser holds into the account: each seat's token proves it. @returns {Promise<number>} */
async function claimGuestGames() {
  const games = Object.entries(loadGames())
    .filter(([, entry]) => entry && typeof entry.token === "string")
    .map(([id, entry]) => ({ id, token: entry.token }));
  if (!games.length) return 0;
  const { body } = await api("/api/account/claim", { json: { games } });
  return /** @type {import("./contract").Claimed} */ (body).claimed.length;
}

/**
 * Wire the card and ask who is signed in; `changed()` is called whenever that changes
 * (the lobby lists their games and asks for the lobby as they see it).
 * @param {() => void} changed
 */
export async function startAccount(changed) {
  /**
   * @param {() => Promise<{ body: AccountView }>} action
   * @param {(account: { name: string } | null) => Promise<string>} done what to say once it is done
   */
  async function act(action, done) {
    let answer;
    try {
      answer = (await action()).body;
    } catch (error) {
      say(errorText(error), "error");
      return;
    }
    update({ account: answer.account });
    try {
      say(await done(answer.account), "ok"); // a sign-up's guest games are claimed before the lobby lists them
    } catch (error) {
      say(errorText(error), "error");
    }
    changed();
  }
  $("account-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    act(() => api("/api/account/signin", { json: credentials() }), async (account) => t("Welcome back, {name}.", { name: account?.name ?? "" }));
  });
  $("sign-up").addEventListener("click", () =>
    act(
      () => api("/api/account/signup", { json: credentials() }),
      async (account) => {
        const claimed = await claimGuestGames();
        const name = account?.name ?? "";
        if (!claimed) return t("Welcome, {name}.", { name });
        return tn("Welcome, {name}. {n} game of this browser now belongs to your account.", "Welcome, {name}. {n} games of this browser now belong to your account.", claimed, { name });
      },
    ),
  );
  $("sign-out").addEventListener("click", () => act(() => api("/api/account/signout", { json: {} }), async () => t("Signed out.")));
  $("sign-out-everywhere").addEventListener("click", () =>
    act(() => api("/api/account/signout-everywhere", { json: {} }), async () => t("Signed out on every browser.")),
  );
  $("password-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    const change = { current: $("password-current", HTMLInputElement).value, new: $("password-new", HTMLInputElement).value };
    act(() => api("/api/account/password", { json: change }), async () => t("Password changed: every other browser is signed out."));
  });
  let account = null;
  try {
    account = /** @type {AccountView} */ ((await api("/api/account")).body).account;
  } catch {
    // Unknown: shown as signed out, and the server still decides what each request may do.
  }
  update({ account });
  changed();
}
