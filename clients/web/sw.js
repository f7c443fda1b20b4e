// The service worker: the client installs as an app and says so kindly when the server cannot be
// reached. Pages (HTML) come from the network first; when it fails, the friendly offline page.
// Static files whose address carries their version (?v=…) come from the cache first; the other
// static files from the network first (a new client is seen at once), the cache kept for when it
// fails.
// The socket (/ws), records, logs and every JSON answer are never cached: they are the table's
// live truth. Bump VERSION when this file's rules change: the old caches are dropped.
const VERSION = "v1";
const CACHE = `cuarenta-${VERSION}`;
const OFFLINE = "/offline.html";
const SHELL = [OFFLINE, "/manifest.webmanifest", "/icons/icon.svg?v=1", "/icons/icon-192.png?v=1"];
const STATIC = /^\/(js|i18n|icons|vendor)\/|^\/[\w-]+\.(css|svg|png|webmanifest)$/;
const NEVER = /^\/(ws|record|watch-log|replayed|healthz|readyz|metrics)(\/|$)|\.json$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("cuarenta-") && n !== CACHE)
      .map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || NEVER.test(url.pathname)) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
  } else if (STATIC.test(url.pathname)) {
    event.respondWith(url.searchParams.has("v") ? cacheFirst(request) : networkFirst(request));
  }
});

/** @param {Request} request */
async function cacheFirst(request) {
  const cached = await caches.match(request);
  if (cached) return cached;
  const answer = await fetch(request);
  if (answer.ok) (await caches.open(CACHE)).put(request, answer.clone());
  return answer;
}

/** @param {Request} request */
async function networkFirst(request) {
  try {
    const answer = await fetch(request);
    if (answer.ok) (await caches.open(CACHE)).put(request, answer.clone());
    return answer;
  } catch (error) {
    const cached = await caches.match(request);
    if (cached) return cached;
    throw error;
  }
}
