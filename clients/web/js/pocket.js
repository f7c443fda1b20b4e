// @ts-check
// Solo in the pocket (pocket.html, issue 42): the two-player streak ladder (R14) against the
// engine's own bots, with no server, and beside it the free game (R14 libre-2p) against a bot
// of the person's choice, level 5 included (each mode keeps its own chica). The engine runs in a Web Worker (offline/engine_worker.js:
// Pyodide and the engine zip), so the page never blocks while a bot thinks; the run and every
// finished chica stay in IndexedDB (pocket-ladder.js). The page keeps the offline files in the
// service worker's pocket cache, named by their version (offline/pocket-files.js), so the next
// visit works with no connection at all.
import { h, renderInto } from "./dom.js";
import { formatNumber, t } from "../i18n/index.js";
import { pageChrome } from "./page-chrome.js";
import { cardBack, cardElement, cardName } from "./cards.js";
import { playsOf } from "./captures.js";
import { describeEvent } from "./event-text.js";
import { exposeForTests } from "./test-hooks.js";
import { registerWorker } from "./install.js";
import { FREE_LEVELS, freshFree, freshRun, keepChica, levelOf, loadFree, loadRun, outcomeOf, saveFree, saveRun,
  settled } from "./pocket-ladder.js";
import { syncChicas } from "./pocket-sync.js";
import { askedAt, engine, started as engineStarted } from "./pocket-engine.js";

/** @typedef {{type: string, seat?: number, card: string, take: string[]}} Play */
/** @typedef {{level: number, to_move: string | null, hand: string[], table: string[], scores: number[],
 *   piles: number[], hand_sizes: number[], undealt: number, dealer: number, turn: number | null,
 *   winner: number | string | null, legal: Play[], events: any[], record: object, finished: boolean}} Chica */
/** @typedef {{version: string, engine: string, files: string[], shell: string[]}} Pocket */

const POCKET = /** @type {Pocket} */ (/** @type {any} */ (globalThis).POCKET);
/** a bot's card stays in view a moment before the next one (?pace=MS: the tests' quick game) */
const BOT_PAUSE_MS = Number(new URLSearchParams(location.search).get("pace") ?? 450) || 0;
const PERSON = 0;
/** R14: the ladder's profile and the free game's */
const PROFILE = { ladder: "heads-up", free: "libre-2p" };
const MODE = "cuarenta.pocketMode";

/** @type {{prompt: () => Promise<unknown>} | null} the browser's install offer, kept for its moment */
let installEvent = null;
const INSTALL_ASKED = "cuarenta.pocketInstallAsked";

function installAsked() {
  try { return localStorage.getItem(INSTALL_ASKED) === "1"; } catch { return true; }
}

function rememberInstallAsked() {
  try { localStorage.setItem(INSTALL_ASKED, "1"); } catch { /* storage off: asked each visit */ }
}

/** Keep the offline files in the pocket cache (the service worker serves them from it). */
async function keepOffline() {
  if (!POCKET || !("caches" in globalThis)) return false;
  const cache = await caches.open(`cuarenta-pocket-${POCKET.version}`);
  const wanted = [...POCKET.files, POCKET.engine, ...POCKET.shell];
  const missing = [];
  for (const url of wanted) if (!(await cache.match(url))) missing.push(url);
  await cache.addAll(missing);
  return true;
}

function seed() {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** @param {HTMLElement} root */
export async function openPocket(root) {
  /** when the engine was asked for, the page opened, the engine started and the first deal
   * came (ms since the page began: the bench's figures) */
  const marks = { asked: askedAt, open: Math.round(performance.now()), started: 0, dealt: 0 };
  let run = freshRun();
  let free = freshFree();
  /** @type {"ladder" | "free"} the streak ladder or the free game, as last chosen here */
  let mode = "ladder";
  try { if (localStorage.getItem(MODE) === "free") mode = "free"; } catch { /* storage off: the ladder */ }
  /** @type {Chica | null} */
  let chica = null;
  /** @type {string | null} the hand card whose captures are offered */
  let chosen = null;
  let thinking = false;
  let switching = false;
  /** @type {string | null} what the engine is doing, once it is more than starting */
  let status = null;
  let failed = false;
  let offline = false;
  /** @type {number | null} the engine worker's start (Pyodide and the zip), in milliseconds */
  let startedMs = null;
  /** @type {{from: string, laps: Record<string, number>, kept: boolean | null} | null} how it started */
  let started = null;
  /** @type {{played: number, won: number, sent: number} | null} the server's pocket tally */
  let synced = null;
  /** @type {{text: string, kind: string}[]} */
  const log = [];
  /** the kept chica of the mode on screen (its record, level and seed) */
  const kept = () => (mode === "free" ? free.chica : run.chica);
  /** the bot's level in the chica on screen, or in the next one */
  const level = () => (mode === "free" ? free.chica?.level ?? free.level : levelOf(run));
  const names = { nameOf: (/** @type {number} */ seat) => (seat === PERSON ? t("seat.you") : t("pocket.bot", { level: level() })),
    teamOf: (/** @type {number} */ team) => (team === PERSON ? t("seat.you") : t("pocket.bot", { level: level() })), seats: 2,
    you: PERSON };
  const model = { get run() { return run; }, get free() { return free; }, get mode() { return mode; },
    get chica() { return chica; }, get thinking() { return thinking; },
    get status() { return status; }, get offline() { return offline; }, get synced() { return synced; },
    get startedMs() { return startedMs; }, get started() { return started; }, marks,
    sync };
  exposeForTests("__pocket", model);

  /** @param {Chica} next */
  function accept(next) {
    marks.dealt ||= Math.round(performance.now());
    chica = next;
    for (const event of next.events) {
      const told = describeEvent(event, names);
      if (told) log.push({ text: told.text, kind: told.kind });
    }
    log.splice(0, Math.max(0, log.length - 12));
  }

  async function save() {
    if (mode === "free") {
      if (chica && free.chica) free = { ...free, chica: { ...free.chica, record: chica.record } };
      await saveFree(free);
      return;
    }
    if (chica && run.chica) run = { ...run, chica: { ...run.chica, record: chica.record } };
    await saveRun(run);
  }

  /** The bot (and the clock) move until it is the person's turn or the game is over. */
  async function botsMove() {
    thinking = true;
    draw();
    let moved = false;
    while (chica && !chica.finished && chica.to_move !== "person") {
      // the bot thinks while the last card stays in view: a search within the pause costs nothing
      const [next] = await Promise.all([engine.ask("step"),
        new Promise((done) => setTimeout(done, BOT_PAUSE_MS))]);
      accept(next);
      moved = true;
      draw();
    }
    thinking = false;
    if (moved && chica && !chica.finished) navigator.vibrate?.(40); // your turn, where it can buzz
    await save();
    if (chica?.finished) await finish();
    draw();
  }

  /** Hand the finished chicas to the server, when one answers (never in the way of play). */
  /** @type {Promise<{played: number, won: number, sent: number} | null> | null} */
  let syncing = null;
  function sync() {
    syncing ??= syncChicas().catch(() => null).then((tally) => {
      syncing = null;
      if (tally) {
        synced = tally;
        draw();
      }
      return tally;
    });
    return syncing;
  }

  async function finish() {
    if (!chica) return;
    const { result, margin } = outcomeOf(chica.winner, chica.scores);
    if (mode === "free") { // not a rung of the ladder, never handed in
      free = { ...free, chica: null, last: { result, scores: chica.scores, level: level() } };
      await saveFree(free);
      return;
    }
    await keepChica({ level: level(), result, margin, scores: chica.scores, record: chica.record,
      finished: new Date().toISOString(), synced: false });
    run = settled(run, result, margin);
    await saveRun(run);
    if (navigator.onLine) sync();
  }

  async function deal() {
    const bot = mode === "free" ? free.level : levelOf(run);
    const packs = seed();
    log.length = 0;
    accept(await engine.ask("new", { seed: packs, level: bot, profile: PROFILE[mode] }));
    const dealt = { record: /** @type {Chica} */ (chica).record, level: bot, seed: packs };
    if (mode === "free") free = { ...free, chica: dealt };
    else run = { ...run, chica: dealt };
    await save();
    draw();
    if (chica?.to_move !== "person") await botsMove();
  }

  /** @param {Play} play */
  async function play(play) {
    if (thinking || !chica || chica.to_move !== "person") return;
    chosen = null;
    thinking = true; // at once: a second tap before the engine answers plays nothing
    draw();
    accept(await engine.ask("play", { action: play }));
    await botsMove();
  }

  /** A hand card: its only play at once; with several captures, the choice of which. @param {string} card */
  function pick(card) {
    if (!chica) return;
    const plays = playsOf(chica.legal, card);
    if (plays.length === 1) play(plays[0]);
    else {
      chosen = chosen === card ? null : card;
      draw();
    }
  }

  /** The chica kept for the mode on screen, taken up from its record; the ladder's first deal. */
  async function takeUp() {
    const chicaKept = kept();
    if (chicaKept) {
      accept(await engine.ask("resume", { record: chicaKept.record, level: chicaKept.level, seed: seed() }));
      draw();
      const resumed = /** @type {Chica | null} */ (chica); // set by accept
      if (resumed?.finished) await finish();
      else if (resumed?.to_move !== "person") await botsMove();
    } else if (mode === "ladder" && !run.last) {
      await deal();
    }
  }

  /** The streak ladder or the free game; the other's chica stays kept. @param {"ladder" | "free"} next */
  async function switchMode(next) {
    if (thinking || switching || next === mode || startedMs === null) return;
    switching = true; // one switch at a time: the engine holds one chica
    mode = next;
    try { localStorage.setItem(MODE, next); } catch { /* storage off */ }
    chica = null;
    chosen = null;
    log.length = 0;
    draw();
    try { await takeUp(); } finally { switching = false; }
    draw();
  }

  function newFreeGame() {
    if (free.chica && chica && !chica.finished && !globalThis.confirm(t("free.new.confirm"))) return;
    deal();
  }

  function startAfresh() {
    if (run.streak > 0 && !globalThis.confirm(t("solo.new.confirm", { streak: run.streak }))) return;
    if (run.chica || run.streak) run = settled(run, "abandoned", 0);
    deal();
  }

  /** @param {string} key @param {string} value @param {string} id */
  function stat(key, value, id) {
    return h("div.solo-stat", { dataset: { stat: id } },
      h("span.solo-stat-label", t(key)), h("span.solo-stat-value", value));
  }

  function resultLine() {
    const last = run.last;
    if (!last || run.chica) return null;
    const text = t(`solo.result.${last.result}`, { margin: last.margin, level: last.level,
      streak: last.streak, score: formatNumber(last.score), next: levelOf(run) });
    return h("div.solo-result", { dataset: { result: last.result } }, h("p", text),
      h("button#solo-next.btn.btn-primary", { type: "button", onclick: deal },
        t(last.result === "won" ? "solo.next" : "solo.again")));
  }

  function prompt() {
    if (!chica) return h("p.prompt.is-waiting", { role: "status" }, status ?? t("pocket.loading"));
    if (chica.finished) return h("p.prompt", t("pocket.over", { a: chica.scores[0], b: chica.scores[1] }));
    if (thinking || chica.to_move !== "person") return h("p.prompt.is-waiting", t("pocket.botThinks", { level: level() }));
    if (!chosen) return h("p.prompt", t("prompt.yourTurn"));
    return h("div.choices", playsOf(chica.legal, chosen).map((each) => h("button.btn", { type: "button",
      dataset: { take: each.take.join(" ") }, onclick: () => play(each) },
    each.take.length ? t("pocket.take", { cards: each.take.map(cardName).join(", ") }) : t("pocket.trail"))));
  }

  function felt() {
    if (!chica) return null;
    const mine = chica.to_move === "person" && !thinking && !chica.finished;
    const playable = new Set(chica.legal.map((a) => a.card));
    return h("section.pocket-table", { "aria-label": t("pocket.table") },
      h("div.pocket-bot", { role: "img", "aria-label": t("pocket.botHand", { count: chica.hand_sizes[1] }) },
        Array.from({ length: chica.hand_sizes[1] }, () => cardBack())),
      h("div.felt.pocket-felt",
        h("p.pocket-scores", t("pocket.scores", { a: chica.scores[0], b: chica.scores[1],
          pa: chica.piles[0], pb: chica.piles[1] })),
        chica.table.length
          ? h("div.table-cards", chica.table.map((code) => cardElement(code)))
          : h("p.felt-empty", t("pocket.emptyTable"))),
      h("div.action-bar", prompt()),
      h("div.hand.pocket-hand", chica.hand.map((code) => cardElement(code, mine && playable.has(code)
        ? { onPick: pick, pressed: chosen === code, marks: ["playable"] } : {}))),
      h("ol.log.pocket-log", { "aria-live": "polite" }, log.map((line) => h(`li.log-${line.kind}`, line.text))));
  }

  /** The table while the engine starts: the deck on the felt, where the deal will come, and
   * what is happening in words a player uses (the first start on a device is the long one). */
  function waiting() {
    const starting = startedMs === null && !failed;
    return h("section.pocket-table.pocket-waiting", { "aria-label": t("pocket.table"), "aria-busy": String(starting) },
      h("div.felt.pocket-felt",
        starting ? h("div.pocket-deck", { "aria-hidden": "true" }, cardBack(), cardBack(), cardBack()) : null,
        h("p.loading", { role: "status" }, status ?? t("pocket.loading")),
        starting ? h("p.hint.pocket-first-time", t("pocket.firstTime")) : null));
  }

  /** The install offer: once, after a first finished chica, between chicas (never over the table). */
  function installOffer() {
    if (!installEvent || !run.last || run.chica || installAsked()) return null;
    return h("p.pocket-install", h("button#pocket-install.btn.btn-small", { type: "button", onclick: async () => {
      rememberInstallAsked();
      const offer = installEvent;
      installEvent = null;
      draw();
      await offer?.prompt();
    } }, t("pocket.install")));
  }

  addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault(); // offered by the page, at its moment
    installEvent = /** @type {any} */ (event);
    draw();
  });

  function modes() {
    return h("div.pocket-modes", { role: "group", "aria-label": t("pocket.modes") },
      ["ladder", "free"].map((each) => h(`button#pocket-mode-${each}.btn.btn-small`, { type: "button",
        "aria-pressed": String(mode === each), disabled: thinking || switching || startedMs === null,
        onclick: () => switchMode(/** @type {"ladder" | "free"} */ (each)) }, t(`pocket.mode.${each}`))));
  }

  function freeResult() {
    const last = free.last;
    if (!last || free.chica) return null;
    return h("div.solo-result", { dataset: { result: last.result } },
      h("p", t(`pocket.free.${last.result}`, { a: last.scores[0], b: last.scores[1], level: last.level })),
      h("button#pocket-free-again.btn.btn-primary", { type: "button", onclick: deal }, t("pocket.free.again")));
  }

  function freeBar() {
    return h("section.solo-bar", { "aria-labelledby": "solo-title" },
      modes(),
      h("div.solo-head",
        h("h1#solo-title", t("pocket.free.title")),
        h("div.solo-actions",
          h("label.pocket-level", t("pocket.free.level"),
            h("select#pocket-level", { disabled: thinking, onchange: (/** @type {Event} */ event) => {
              free = { ...free, level: Number(/** @type {HTMLSelectElement} */ (event.target).value) };
              saveFree(free);
              draw();
            } }, FREE_LEVELS.map((each) => h("option", { value: String(each), selected: each === free.level },
              t(each === 5 ? "pocket.free.level5" : "pocket.free.levelN", { level: each }))))),
          h("button#pocket-free-new.btn.btn-small", { type: "button", disabled: thinking || switching || startedMs === null,
            onclick: newFreeGame }, t("pocket.free.new")))),
      h("p.hint", t("pocket.free.hint")),
      freeResult());
  }

  function draw() {
    if (mode === "free") {
      renderInto(root, h("div.solo-page.pocket-page", freeBar(),
        free.chica ? felt() : null,
        !chica && (free.chica || startedMs === null) ? waiting() : null));
      return;
    }
    const score = (/** @type {number} */ n) => formatNumber(n);
    renderInto(root, h("div.solo-page.pocket-page",
      h("section.solo-bar", { "aria-labelledby": "solo-title" },
        modes(),
        h("div.solo-head",
          h("h1#solo-title", t("pocket.title")),
          h("div.solo-actions",
            h("button#solo-new.btn.btn-small", { type: "button", disabled: thinking || switching || !chica && !run.last,
              title: t("solo.new.tooltip"), onclick: startAfresh }, t("solo.new")))),
        h("p.hint.pocket-status", { role: "status" }, offline ? t("pocket.offlineReady") : t("pocket.offlineHint")),
        synced ? h("p.hint.pocket-synced", t("pocket.synced", { played: synced.played, won: synced.won })) : null,
        h("div.solo-stats",
          stat("solo.streak", String(run.streak), "streak"),
          stat("solo.level", String(levelOf(run)), "level"),
          stat("solo.margin", String(run.margins), "margin"),
          stat("solo.score", score(run.streak * 10_000 + Math.min(run.margins, 9_999)), "score"),
          stat("solo.best", score(run.best), "best")),
        resultLine(), installOffer()),
      run.chica || !run.last ? felt() : null,
      !chica && (run.chica || !run.last) ? waiting() : null));
  }

  pageChrome(draw);
  registerWorker();
  draw();
  keepOffline().then((kept) => { offline = kept; draw(); }).catch(() => {});
  addEventListener("online", () => { sync(); });
  sync();
  const stored = Promise.all([loadRun(), loadFree()]); // read while the engine starts
  stored.catch(() => {}); // told below, once awaited
  try {
    const answer = await engineStarted;
    startedMs = answer.started_ms;
    marks.started = Math.round(performance.now());
    started = { from: answer.from, laps: answer.laps, kept: null };
    engine.ask("kept").then((reply) => { if (started) started.kept = reply.kept; }, () => {});
    status = t("pocket.ready", { s: (answer.started_ms / 1000).toFixed(1) });
    [run, free] = await stored;
    await takeUp();
  } catch (error) {
    failed = true;
    status = t("pocket.failed", { error: String(/** @type {Error} */ (error).message || error) });
  }
  draw();
}

openPocket(/** @type {HTMLElement} */ (document.getElementById("main")));
