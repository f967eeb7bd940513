// @ts-check
/// <reference lib="webworker" />
// The service worker (served as /sw.js, so that it sees the whole site): the static files cached when it
// installs, for a fast start; a page that cannot be fetched (no network) answered with the offline page.
// Games, the lobby and the API always go to the server: what they show must be the server's now.

const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
// Filled in when served (quiltmaker/web/install.py): the static files' hash, and the files to keep.
const VERSION = "@VERSION@";
const FILES = /** @type {string[]} */ (JSON.parse("@FILES@"));
const CACHE = `quiltmaker-${VERSION}`;
const OFFLINE = "/offline";

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([...FILES, OFFLINE]))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  // A new version's files replace the old ones at once: the pages open now load the new scripts on their next fetch.
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("quiltmaker-") && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.open(CACHE).then((cache) => cache.match(request)).then((kept) => kept || fetch(request)));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.open(CACHE).then((cache) => cache.match(OFFLINE)).then((page) => page || Response.error())));
  }
});
