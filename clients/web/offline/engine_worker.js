// The engine in the pocket (issue 42): a module Web Worker that loads Pyodide and the engine zip
// (the project's own engine/ sources, packed by clients/pocket.py) and plays one solo chica, so
// the page never blocks while the engine thinks. Every answer is the person's view (seat 0)
// as clients/pocket_api.py builds it: their hand, the table, the scores, their legal actions,
// what just happened (redacted by the engine's own `redact`) and the record so far.
//
// Requests: {id, type: "start", pyodide, engine} (Pyodide's folder and the engine zip's URL),
// {id, type: "new", seed, level, profile?} (profile: "heads-up", the ladder's, or "libre-2p",
// the free game's), {id, type: "resume", record, level, seed},
// {id, type: "play", action}, {id, type: "step"} (the bot's move, when it is the bot's turn).
// Answers: {id, ok: true, state} or {id, ok: false, error}.

/** @typedef {{globals: {get(name: string): any}, unpackArchive(data: Uint8Array, format: string,
 *   options?: {extractDir?: string}): void, runPythonAsync(code: string): Promise<unknown>}} Pyodide */

/** @type {any} the pocket_api module, once loaded */
let api = null;
/** @type {Promise<number> | null} */
let starting = null;

/** @param {string} folder @param {string} engine @returns {Promise<number>} milliseconds taken */
async function start(folder, engine) {
  const begun = performance.now();
  const { loadPyodide } = await import(`${folder}pyodide.mjs`);
  const [pyodide, zip] = await Promise.all([
    /** @type {Promise<Pyodide>} */ (loadPyodide({ indexURL: folder })),
    fetch(engine).then((answer) => {
      if (!answer.ok) throw new Error(`the engine (${engine}) answered ${answer.status}`);
      return answer.arrayBuffer();
    }),
  ]);
  pyodide.unpackArchive(new Uint8Array(zip), "zip", { extractDir: "/pocket" });
  await pyodide.runPythonAsync("import sys; sys.path.insert(0, '/pocket'); import pocket_api");
  api = pyodide.globals.get("pocket_api");
  return Math.round(performance.now() - begun);
}

/** @param {{type: string, [key: string]: any}} request */
async function answer(request) {
  if (request.type === "start") {
    starting ??= start(request.pyodide, request.engine);
    return { started_ms: await starting };
  }
  if (!api) throw new Error("the engine is not started");
  switch (request.type) {
    case "new":
      return JSON.parse(api.solo_new(request.seed, request.level, request.profile ?? "heads-up"));
    case "resume":
      return JSON.parse(api.solo_resume(JSON.stringify(request.record), request.level, request.seed));
    case "play":
      return JSON.parse(api.solo_play(JSON.stringify(request.action)));
    case "step":
      return JSON.parse(api.solo_step());
    default:
      throw new Error(`unknown request ${request.type}`);
  }
}

self.addEventListener("message", async (event) => {
  const request = /** @type {MessageEvent} */ (event).data;
  try {
    self.postMessage({ id: request.id, ok: true, state: await answer(request) });
  } catch (error) {
    self.postMessage({ id: request.id, ok: false, error: String(/** @type {Error} */ (error).message || error) });
  }
});
