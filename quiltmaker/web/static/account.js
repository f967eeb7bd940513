// @ts-check
// The lobby's account card: sign up (taking this browser's guest games along),
// sign in and out, here or everywhere, and the password. The session is an
// HttpOnly cookie the page never sees; the server says who is signed in.
import { $, api, loadGames } from "./common.js";

/** @type {((account: {name: string} | null) => void) | null} */
let onChange = null;

function say(text, kind = "info") {
  const line = $("account-message");
  line.textContent = text;
  line.dataset.kind = kind;
}

function show(account) {
  $("signed-out").hidden = !!account;
  $("signed-in").hidden = !account;
  $("account-shown").textContent = account ? account.name : "";
  $("password-username", HTMLInputElement).value = account ? account.name : "";
  onChange?.(account);
}

function credentials() {
  return { name: $("account-name", HTMLInputElement).value.trim(), password: $("account-password", HTMLInputElement).value };
}

/** Take the seats this browser holds into the account: each seat's token proves it. */
async function claimGuestGames() {
  const games = Object.entries(loadGames())
    .filter(([, entry]) => entry && typeof entry.token === "string")
    .map(([id, entry]) => ({ id, token: entry.token }));
  if (!games.length) return 0;
  const { body } = await api("/api/account/claim", { json: { games } });
  return (body.claimed || []).length;
}

async function act(action, done) {
  try {
    const { body } = await action();
    show(body.account);
    say(await done(body.account), "ok");
  } catch (error) {
    say(error.message, "error");
  }
}

/** Wire the card; `changed(account)` is told whenever who is signed in changes (the lobby lists their games). */
export async function startAccount(changed) {
  onChange = changed;
  $("account-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    act(() => api("/api/account/signin", { json: credentials() }), async (account) => `Welcome back, ${account.name}.`);
  });
  $("sign-up").addEventListener("click", () =>
    act(
      () => api("/api/account/signup", { json: credentials() }),
      async (account) => {
        const claimed = await claimGuestGames();
        const taken = claimed === 1 ? "1 game of this browser now belongs" : `${claimed} games of this browser now belong`;
        return `Welcome, ${account.name}.${claimed ? ` ${taken} to your account.` : ""}`;
      },
    ),
  );
  $("sign-out").addEventListener("click", () => act(() => api("/api/account/signout", { json: {} }), async () => "Signed out."));
  $("sign-out-everywhere").addEventListener("click", () =>
    act(() => api("/api/account/signout-everywhere", { json: {} }), async () => "Signed out on every browser."),
  );
  $("password-form", HTMLFormElement).addEventListener("submit", (event) => {
    event.preventDefault();
    const change = { current: $("password-current", HTMLInputElement).value, new: $("password-new", HTMLInputElement).value };
    act(() => api("/api/account/password", { json: change }), async () => "Password changed: every other browser is signed out.");
  });
  try {
    const { body } = await api("/api/account");
    show(body.account);
  } catch {
    show(null);
  }
}
