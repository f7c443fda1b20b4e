// @ts-check
// The solo streak ladder kept in the pocket (R14, issue 42): the same rules the server's ladder
// applies (server/ladder/rules.py, outcome.py), on a run this browser keeps in IndexedDB with
// every finished chica's record, so a ladder can be played with no server at all.

export const FIRST_LEVEL = 1;
export const TOP_LEVEL = 4;
const STREAK_WEIGHT = 10_000;
const MARGIN_CAP = 9_999;

/**
 * A chica in progress: its record so far, the bot's level, the seed of the packs still to come.
 * @typedef {{record: object, level: number, seed: number}} PocketChica
 * @typedef {{result: "won" | "lost" | "draw" | "abandoned", margin: number, level: number,
 *   streak: number, score: number}} Settled
 * @typedef {{streak: number, margins: number, best: number, chica: PocketChica | null,
 *   last: Settled | null}} Run
 * @typedef {{id?: number, level: number, result: string, margin: number, scores: number[],
 *   record: Record<string, any>, finished: string, synced: boolean, digest?: string}} FinishedChica
 */

/** R14: the bot's level after `streak` wins in a row (1, 2, 3, 4, 4 …). @param {number} streak */
export function levelFor(streak) {
  return Math.min(FIRST_LEVEL + streak, TOP_LEVEL);
}

/** R14: streak × 10,000 + the winning margins, capped at 9,999. @param {number} streak @param {number} margins */
export function savedScore(streak, margins) {
  return streak * STREAK_WEIGHT + Math.min(margins, MARGIN_CAP);
}

/** @returns {Run} */
export function freshRun() {
  return { streak: 0, margins: 0, best: 0, chica: null, last: null };
}

/** The level of the current (or next) chica. @param {Run} run */
export function levelOf(run) {
  return run.chica ? run.chica.level : levelFor(run.streak);
}

/**
 * How the finished game counts for the person at seat 0 (server/ladder/outcome.py): a cuarenta
 * wins at any score (R6), so a win from behind has a margin of 0, not less.
 * @param {number | string | null} winner @param {number[]} scores
 * @returns {{result: "won" | "lost" | "draw", margin: number}}
 */
export function outcomeOf(winner, scores) {
  const margin = scores[0] - scores[1];
  if (winner === "draw") return { result: "draw", margin };
  return winner === 0 ? { result: "won", margin: Math.max(margin, 0) } : { result: "lost", margin };
}

/**
 * The run after a chica (R14): a win raises the streak and the next level; a loss, a draw or
 * "New" (abandoned) ends the streak; the best score stays.
 * @param {Run} run @param {"won" | "lost" | "draw" | "abandoned"} result @param {number} margin
 * @returns {Run}
 */
export function settled(run, result, margin) {
  const level = levelOf(run);
  if (result === "won") {
    const streak = run.streak + 1;
    const margins = run.margins + margin;
    const score = savedScore(streak, margins);
    return { streak, margins, best: Math.max(run.best, score), chica: null,
      last: { result, margin, level, streak, score } };
  }
  return { streak: 0, margins: 0, best: run.best, chica: null,
    last: { result, margin, level, streak: 0, score: savedScore(run.streak, run.margins) } };
}

// ------------------------------------------------------------------ IndexedDB
const DB = "cuarenta-pocket";
const RUNS = "run";
const CHICAS = "chicas";

/** @returns {Promise<IDBDatabase>} */
function open() {
  return new Promise((resolve, reject) => {
    const asked = indexedDB.open(DB, 1);
    asked.onupgradeneeded = () => {
      asked.result.createObjectStore(RUNS);
      asked.result.createObjectStore(CHICAS, { keyPath: "id", autoIncrement: true });
    };
    asked.onsuccess = () => resolve(asked.result);
    asked.onerror = () => reject(asked.error);
  });
}

/**
 * One transaction; resolves with the request's result once it is committed.
 * @template T
 * @param {string} store @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest<T>} work
 * @returns {Promise<T>}
 */
async function transact(store, mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const request = work(tx.objectStore(store));
    tx.oncomplete = () => { db.close(); resolve(request.result); };
    tx.onerror = () => { db.close(); reject(tx.error); };
  });
}

// ------------------------------------------------------------------ the free game (R14 libre-2p)
/** the levels the free game offers: the ladder's and level 5, whose search fits a phone's time
 * (clients/pocket_api.py SEARCH_S; BENCHMARKS.md, the pocket row) */
export const FREE_LEVELS = [1, 2, 3, 4, 5];
/**
 * The free game against a bot of the person's choice: never a rung of the ladder, never handed
 * in (the server's ladder_sync counts heads-up chicas only).
 * @typedef {{level: number, chica: PocketChica | null,
 *   last: {result: "won" | "lost" | "draw", scores: number[], level: number} | null}} FreeRun
 */

/** @returns {FreeRun} */
export function freshFree() {
  return { level: 3, chica: null, last: null };
}

/** @returns {Promise<FreeRun>} */
export async function loadFree() {
  const free = await transact(RUNS, "readonly", (store) => store.get("free"));
  return free ? /** @type {FreeRun} */ (free) : freshFree();
}

/** @param {FreeRun} free */
export async function saveFree(free) {
  await transact(RUNS, "readwrite", (store) => store.put(free, "free"));
}

/** @returns {Promise<Run>} */
export async function loadRun() {
  const run = await transact(RUNS, "readonly", (store) => store.get("run"));
  return run ? /** @type {Run} */ (run) : freshRun();
}

/** @param {Run} run */
export async function saveRun(run) {
  await transact(RUNS, "readwrite", (store) => store.put(run, "run"));
}

/** Keep a finished chica (its record, for a later sync to the server). @param {FinishedChica} chica */
export async function keepChica(chica) {
  return transact(CHICAS, "readwrite", (store) => store.add(chica));
}

/** @returns {Promise<FinishedChica[]>} */
export async function finishedChicas() {
  return /** @type {Promise<FinishedChica[]>} */ (transact(CHICAS, "readonly", (store) => store.getAll()));
}

/** Note that the server counted a chica (its record's digest, as the server names it).
 * @param {number} id @param {string} digest */
export async function markSynced(id, digest) {
  const chica = /** @type {FinishedChica | undefined} */ (await transact(CHICAS, "readonly", (store) => store.get(id)));
  if (!chica) return;
  await transact(CHICAS, "readwrite", (store) => store.put({ ...chica, synced: true, digest }));
}
