// @ts-check
// The pocket's engine worker (offline/engine_worker.js: Pyodide and the engine zip), started the
// moment pocket.html is read: pocket.html loads this module before the page's own (pocket.js and
// its twenty modules), so Python starts while they load and the table is drawn (issue 42: the
// first deal within 3 s on a throttled phone). No imports: nothing to wait for before it runs.

/** @typedef {{version: string, engine: string}} Pocket */
/** @typedef {{started_ms: number, from: string, laps: Record<string, number>}} Started */

/** The engine worker, one request at a time answered by id. */
export class Engine {
  constructor() {
    this.worker = new Worker("/offline/engine_worker.js", { type: "module" });
    this.next = 1;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
    this.waiting = new Map();
    this.worker.addEventListener("message", (event) => {
      const { id, ok, state, error } = event.data;
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (ok) waiter?.resolve(state);
      else waiter?.reject(new Error(error));
    });
  }

  /** @param {string} type @param {Record<string, unknown>} [fields] @returns {Promise<any>} */
  ask(type, fields = {}) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, ...fields });
    });
  }
}

const POCKET = /** @type {Pocket | undefined} */ (/** @type {any} */ (globalThis).POCKET);
export const engine = new Engine();
/** when the page asked for the engine (ms since the page began), for the bench's figures */
export const askedAt = Math.round(performance.now());
/** @type {Promise<Started>} the engine's start, asked at once; the version names its snapshot */
export const started = POCKET ? engine.ask("start", { pyodide: "/vendor/", engine: POCKET.engine,
  version: POCKET.version }) : Promise.reject(new Error("the offline files are not built"));
started.catch(() => {}); // pocket.js tells the person; never an unhandled rejection meanwhile
