// @ts-check
// Every page registers the service worker (/sw.js): it keeps the static files for a fast start and shows the
// offline page when there is no network, which also makes the site installable as an app.

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch((error) => console.warn("no service worker:", error));
}
