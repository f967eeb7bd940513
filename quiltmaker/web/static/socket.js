// @ts-check
// The game's WebSocket: one connection, re-opened with backoff when it drops.
// Every (re)connection starts with the hello message, so a reloaded or
// reconnected page gets its seat and the current state back.

import { t } from "./i18n.js";

const MIN_DELAY = 500;
const MAX_DELAY = 10000;

/** @typedef {"connecting" | "open" | "reconnecting" | "closed"} SocketStatus */
/**
 * What a page does with its socket's news: `M` is what its server sends (the JSON is not
 * checked here), and a reply that is not JSON comes as a "malformed" error.
 * @template M
 * @typedef {object} SocketHandlers
 * @property {(message: M | import("./contract").Refused) => void} message each message the server sends, parsed
 * @property {(status: SocketStatus, attempts?: number, reason?: string) => void} status the connection's
 *   state, with the attempts made so far and why it dropped
 */

/** @template M the messages its server sends */
export class GameSocket {
  /**
   * @param {string} url        ws(s)://host/ws/games/{id} (or the lobby's)
   * @param {() => object} hello returns the hello message to send on each connection
   * @param {SocketHandlers<M>} handlers
   */
  constructor(url, hello, handlers) {
    this.url = url;
    this.hello = hello;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.delay = MIN_DELAY;
    this.attempts = 0;
    /** @type {number | undefined} the pending reconnection */
    this.timer = undefined;
    this.stopped = false;
    window.addEventListener("online", () => this.reconnectNow());
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.handlers.status(this.attempts === 0 ? "connecting" : "reconnecting", this.attempts);
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (error) {
      this.scheduleReconnect(String(error));
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = MIN_DELAY;
      this.attempts = 0;
      ws.send(JSON.stringify(this.hello()));
      this.handlers.status("open");
    });
    ws.addEventListener("message", (event) => {
      /** @type {M} */
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        this.handlers.message({ type: "error", code: "malformed", message: t("the server sent something that is not JSON") });
        return;
      }
      this.handlers.message(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return; // an old socket closing after a reconnect
      this.ws = null;
      // 4404: the server says the game does not exist; retrying cannot help.
      if (event.code === 4404) this.stopped = true;
      if (this.stopped) {
        this.handlers.status("closed", 0, event.reason || (event.code === 4404 ? t("no such game") : ""));
        return;
      }
      this.scheduleReconnect(event.reason || t("code {code}", { code: event.code }));
    });
    // "error" is always followed by "close", which does the reconnecting.
  }

  /** @param {string} reason */
  scheduleReconnect(reason) {
    this.attempts += 1;
    this.handlers.status("reconnecting", this.attempts, reason);
    clearTimeout(this.timer);
    // Exponential backoff with jitter, so many pages do not reconnect in step.
    const wait = this.delay * (0.75 + Math.random() * 0.5);
    this.delay = Math.min(this.delay * 2, MAX_DELAY);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  reconnectNow() {
    if (this.stopped || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    this.delay = MIN_DELAY;
    this.connect();
  }

  get open() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a message; returns false (and sends nothing) while disconnected. @param {object} message */
  send(message) {
    if (!this.ws || !this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Connect again (soon: the usual reconnection's first wait), to be sent the whole state on connecting. */
  resync() {
    if (this.ws) this.ws.close(4000, "resync");
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}
