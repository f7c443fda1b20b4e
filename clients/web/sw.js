// The service worker: the client installs as an app and says so kindly when the server cannot be
// reached. Pages (HTML) come from the network first; when it fails, the friendly offline page.
// Static files whose address carries their version (?v=…) come from the cache first; the other
// static files from the network first (a new client is seen at once), the cache kept for when it
// fails.
// The socket (/ws), records, logs and every JSON answer are never cached: they are the table's
// live truth. Bump VERSION when this file's rules change: the old caches are dropped.
// Solo in the pocket (/pocket.html, issue 42) keeps Pyodide, the engine zip and its page in a
// cache named by their version (offline/pocket-files.js, built by make): the page fills it on a
// first visit, a new version's service worker refills it at install, and its files are served
// from it first (Pyodide's lock file too, though it is JSON).
const VERSION = "v2";
const CACHE = `cuarenta-${VERSION}`;
try {
  importScripts("/offline/pocket-files.js");
} catch { /* not built: no pocket */ }
/** @type {{version: string, engine: string, files: string[], shell: string[]} | undefined} */
const POCKET = /** @type {any} */ (self).POCKET;
const POCKET_CACHE = POCKET ? `cuarenta-pocket-${POCKET.version}` : "";
const POCKET_FIRST = new Set(POCKET ? [...POCKET.files, new URL(POCKET.engine, location.href).pathname] : []);
const OFFLINE = "/offline.html";
const SHELL = [OFFLINE, "/manifest.webmanifest", "/icons/icon.svg?v=1", "/icons/icon-192.png?v=1"];
const STATIC = /^\/(js|i18n|icons|vendor|offline)\/|^\/[\w-]+\.(css|svg|png|webmanifest)$/;
const NEVER = /^\/(ws|record|watch-log|replayed|healthz|readyz|metrics)(\/|$)|\.json$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(keepPocket)
    .then(() => self.skipWaiting()));
});

/** A person who kept the pocket once gets its new version before this worker takes over. */
async function keepPocket() {
  if (!POCKET || !(await caches.keys()).some((name) => name.startsWith("cuarenta-pocket-"))) return;
  await (await caches.open(POCKET_CACHE)).addAll([...POCKET.files, POCKET.engine, ...POCKET.shell]);
}

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("cuarenta-") && n !== CACHE && n !== POCKET_CACHE)
      .map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (POCKET_FIRST.has(url.pathname)) {
    event.respondWith(caches.match(request).then((kept) => kept || fetch(request)));
    return;
  }
  if (NEVER.test(url.pathname)) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(async () => (await caches.match(request, { ignoreSearch: true }))
      || caches.match(OFFLINE)));
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

// Notifications with the page closed (Web Push, issue 41). The payload is the server's notice:
// its kind, the page to open (/me?open=<table>: /me knows the person's seat there and goes to the
// move), the table, the deadline and a short public text; never a key. The title is in the
// language the pages last used (kept by /me in the "prefs" cache), Spanish by default.
// A friend_invite opens /me?invite=<table> (the join key is fetched there, over the person's own
// socket); a night_round opens the person's table of that round.
const TITLES = {
  es: { your_turn: "Te toca en Cuarenta", deadline_near: "Queda una hora para tu jugada",
    friend_invite: "Una invitación a Cuarenta", night_round: "Empieza tu ronda en el club" },
  en: { your_turn: "Your turn at Cuarenta", deadline_near: "One hour left for your move",
    friend_invite: "An invitation to Cuarenta", night_round: "Your club round starts" },
  pt: { your_turn: "Sua vez no Cuarenta", deadline_near: "Falta uma hora para sua jogada",
    friend_invite: "Um convite para o Cuarenta", night_round: "Começa sua rodada no clube" },
};
/** The titles of a turn whose side missed its last deadline at a forfeit table (warning
 * "forfeit_next"): the next missed turn loses the game, and the title says so. */
const WARNED = {
  es: { your_turn: "Te toca: un turno más sin jugar y se pierde la partida",
    deadline_near: "Queda una hora: un turno más sin jugar y se pierde la partida" },
  en: { your_turn: "Your turn: one more missed turn forfeits the game",
    deadline_near: "One hour left: one more missed turn forfeits the game" },
  pt: { your_turn: "Sua vez: mais um turno sem jogar e a partida está perdida",
    deadline_near: "Falta uma hora: mais um turno sem jogar e a partida está perdida" },
};
/** The body around the notice's public text ({text}: the inviter's name, the club's name;
 * {pace}: a club round's, as the club page says it in i18n's clubnight.pace.*). */
const BODIES = {
  es: { friend_invite: "{text} te invita a una mesa", night_round: "{text}: tu mesa te espera ({pace})" },
  en: { friend_invite: "{text} invites you to a table", night_round: "{text}: your table is waiting ({pace})" },
  pt: { friend_invite: "{text} convida você para uma mesa", night_round: "{text}: sua mesa espera por você ({pace})" },
};
/** A club round's pace by its seconds a move (0: live). */
const PACES = {
  es: { 0: "en vivo", 3600: "por turnos, 1 hora por jugada", 43200: "por turnos, 12 horas por jugada",
    86400: "por turnos, 24 horas por jugada", 259200: "por turnos, 3 días por jugada" },
  en: { 0: "live", 3600: "turn-based, 1 hour a move", 43200: "turn-based, 12 hours a move",
    86400: "turn-based, 24 hours a move", 259200: "turn-based, 3 days a move" },
  pt: { 0: "ao vivo", 3600: "por turnos, 1 hora por jogada", 43200: "por turnos, 12 horas por jogada",
    86400: "por turnos, 24 horas por jogada", 259200: "por turnos, 3 dias por jogada" },
};

self.addEventListener("push", (event) => {
  /** @type {{kind?: string, url?: string, table?: string, detail?: string, warning?: string, pace?: number | null}} */
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch (error) {
    notice = {};
  }
  event.waitUntil(pageLanguage().then((lang) => {
    const titles = TITLES[lang] || TITLES.es;
    const warned = notice.warning === "forfeit_next" ? (WARNED[lang] || WARNED.es)[notice.kind || ""] : null;
    const title = warned || titles[notice.kind || ""] || titles.your_turn;
    const around = (BODIES[lang] || BODIES.es)[notice.kind || ""];
    const pace = (PACES[lang] || PACES.es)[notice.pace ?? 0] || "";
    const body = around && notice.detail
      ? around.replace("{text}", notice.detail).replace(" ({pace})", pace ? ` (${pace})` : "") : notice.detail || "";
    return self.registration.showNotification(title, {
      body,
      tag: notice.table ? `table-${notice.table}` : "cuarenta", // one per table: the newest
      renotify: true,
      icon: "/icons/icon-192.png?v=1",
      data: { url: safeUrl(notice.url) },
    });
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(safeUrl(event.notification.data && event.notification.data.url), location.origin);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((client) => new URL(client.url).pathname === "/me" && "navigate" in client);
    return open ? open.navigate(url.href).then((client) => client && client.focus())
      : self.clients.openWindow(url.href);
  }));
});

/** Only a page of this site opens from a notification. @param {unknown} url */
function safeUrl(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith("//") ? url : "/me";
}

/** The language the pages last used (``/__lang`` in the "prefs" cache, kept by /me), else es. */
async function pageLanguage() {
  const kept = await caches.match("/__lang");
  return kept ? (await kept.text()).slice(0, 2) : "es";
}
