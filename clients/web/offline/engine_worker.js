// The engine in the pocket (issue 42): a module Web Worker that loads Pyodide and the engine zip
// (the project's own engine/ sources, packed by clients/pocket.py) and plays one solo chica, so
// the page never blocks while the engine thinks. Every answer is the person's view (seat 0)
// as clients/pocket_api.py builds it: their hand, the table, the scores, their legal actions,
// what just happened (redacted by the engine's own `redact`) and the record so far.
//
// A fresh Python costs most of the start (the interpreter's init and the engine's imports), so
// the first start on a device takes a memory snapshot of the interpreter with the engine
// imported and its bots warmed (Pyodide's `makeMemorySnapshot`) and keeps it, its empty pages
// left out, in the pocket's cache beside the files it was made from (named by their version: a
// new version starts fresh once, and the service worker drops the old cache with its snapshot).
// Later starts restore it (`_loadSnapshot`) and skip both (BENCHMARKS.md, the pocket row). A
// snapshot Pyodide refuses (another build) or that does not unpack is never a failure: that
// start is made fresh and keeps a new one.
//
// Requests: {id, type: "start", pyodide, engine, version?} (Pyodide's folder, the engine zip's
// URL, the offline files' version: without it no snapshot is kept or used),
// {id, type: "kept"} (once the snapshot is made and kept: whether it was),
// {id, type: "new", seed, level, profile?} (profile: "heads-up", the ladder's, or "libre-2p",
// the free game's), {id, type: "resume", record, level, seed},
// {id, type: "play", action}, {id, type: "step"} (the bot's move, when it is the bot's turn).
// Answers: {id, ok: true, state} or {id, ok: false, error}.

/** @typedef {{globals: {get(name: string): any}, runPython(code: string): unknown,
 *   makeMemorySnapshot(): Uint8Array, FS: {mkdirTree(path: string): void,
 *   writeFile(path: string, data: Uint8Array): void}}} Pyodide */
/** @typedef {{started_ms: number, from: "snapshot" | "fresh", laps: Record<string, number>}} Started */

/** @type {any} the pocket_api module, once loaded */
let api = null;
/** @type {Promise<Started> | null} */
let starting = null;
/** @type {Promise<boolean>} whether this start's snapshot was kept */
let keeping = Promise.resolve(false);
const IMPORT = "import sys; sys.path.insert(0, '/pocket'); import pocket_api";

/** @param {string} version @returns {Promise<{cache: Cache, url: string} | null>} */
async function snapshotPlace(version) {
  if (!version || !("caches" in globalThis)) return null;
  return { cache: await caches.open(`cuarenta-pocket-${version}`), url: `/offline/snapshot?v=${version}` };
}

const PAGE = 4096;
const MAGIC = 0x31535043; // "CPS1": a pocket snapshot, its empty pages left out

/**
 * The snapshot without its empty pages (much of Python's memory is zeros): a header (magic,
 * length, page count), a bitmap of the pages kept, then those pages. Gzip kept it smaller, but
 * inflating it was a large share of a throttled start; copying pages costs next to nothing.
 * @param {Uint8Array} snapshot
 */
function packSnapshot(snapshot) {
  const pages = Math.ceil(snapshot.length / PAGE);
  const head = 12 + Math.ceil(pages / 8);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const padded = new Uint8Array(pages * PAGE);
  padded.set(snapshot);
  const words = new Uint32Array(padded.buffer);
  let kept = 0;
  for (let page = 0; page < pages; page += 1) {
    for (let word = page * (PAGE / 4), last = word + PAGE / 4; word < last; word += 1) {
      if (words[word] !== 0) {
        bitmap[page >> 3] |= 1 << (page & 7);
        kept += 1;
        break;
      }
    }
  }
  const packed = new Uint8Array(head + kept * PAGE);
  new Uint32Array(packed.buffer, 0, 3).set([MAGIC, snapshot.length, pages]);
  packed.set(bitmap, 12);
  let at = head;
  for (let page = 0; page < pages; page += 1) {
    if (bitmap[page >> 3] & (1 << (page & 7))) {
      packed.set(padded.subarray(page * PAGE, (page + 1) * PAGE), at);
      at += PAGE;
    }
  }
  return packed;
}

/** @param {ArrayBuffer} packed @returns {Uint8Array | null} the snapshot, or null if not one */
function unpackSnapshot(packed) {
  const [magic, length, pages] = new Uint32Array(packed, 0, 3);
  if (magic !== MAGIC || packed.byteLength < 12 + Math.ceil(pages / 8)) return null;
  const bitmap = new Uint8Array(packed, 12, Math.ceil(pages / 8));
  const bytes = new Uint8Array(packed);
  const snapshot = new Uint8Array(pages * PAGE);
  let at = 12 + bitmap.length;
  for (let page = 0; page < pages; page += 1) {
    if (bitmap[page >> 3] & (1 << (page & 7))) {
      snapshot.set(bytes.subarray(at, at + PAGE), page * PAGE);
      at += PAGE;
    }
  }
  return at === packed.byteLength ? snapshot.subarray(0, length) : null;
}

/** The kept snapshot, or null. @param {{cache: Cache, url: string} | null} place */
async function keptSnapshot(place) {
  const kept = place && (await place.cache.match(place.url));
  return kept ? unpackSnapshot(await kept.arrayBuffer()) : null;
}

/** @param {{cache: Cache, url: string}} place @param {Uint8Array} snapshot */
async function keepSnapshot(place, snapshot) {
  const packed = packSnapshot(snapshot);
  await place.cache.put(place.url, new Response(packed, { headers: { "content-type": "application/octet-stream" } }));
  return true;
}

/**
 * Write the engine zip's files under ``dir`` (its entries are stored, not deflated: a plain copy
 * here, cheaper than Python's own unpacking on a throttled phone).
 * @param {Pyodide} pyodide @param {ArrayBuffer} zip @param {string} dir
 */
function unpack(pyodide, zip, dir) {
  const bytes = new Uint8Array(zip);
  const data = new DataView(zip);
  const end = bytes.length - 22; // the end of the central directory: the zip has no comment
  if (data.getUint32(end, true) !== 0x06054b50) throw new Error("the engine zip is not a zip");
  const names = new TextDecoder();
  let at = data.getUint32(end + 16, true);
  for (let left = data.getUint16(end + 10, true); left > 0; left -= 1) {
    const [method, size, nameLength] = [data.getUint16(at + 10, true), data.getUint32(at + 20, true),
      data.getUint16(at + 28, true)];
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const local = data.getUint32(at + 42, true);
    at += 46 + nameLength + data.getUint16(at + 30, true) + data.getUint16(at + 32, true);
    if (method !== 0) throw new Error(`the engine zip deflates ${name}: it should store it`);
    const body = local + 30 + data.getUint16(local + 26, true) + data.getUint16(local + 28, true);
    const path = `${dir}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, bytes.subarray(body, body + size));
  }
}

/** @param {string} folder @param {string} engine @param {string} version @returns {Promise<Started>} */
async function start(folder, engine, version) {
  const begun = performance.now();
  /** @type {Record<string, number>} milliseconds of each step, for the bench */
  const laps = {};
  let lapped = begun;
  const lap = (/** @type {string} */ name) => {
    const now = performance.now();
    laps[name] = Math.round(now - lapped);
    lapped = now;
  };
  const zip = fetch(engine).then((answer) => {
    if (!answer.ok) throw new Error(`the engine (${engine}) answered ${answer.status}`);
    return answer.arrayBuffer();
  });
  const place = await snapshotPlace(version).catch(() => null);
  // Pyodide's loader, its 1.2 MB of Emscripten glue and the kept snapshot, all at once
  const [{ loadPyodide }, glue, snapshot] = await Promise.all([import(`${folder}pyodide.mjs`),
    import(`${folder}pyodide.asm.mjs`), keptSnapshot(place).catch(() => null)]);
  lap("files");
  const options = { indexURL: folder, createPyodideModule: glue.default };
  /** @type {Pyodide | null} */
  let pyodide = null;
  if (snapshot) {
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
    } catch {
      pyodide = null; // another Pyodide's, or spoilt: this start is made fresh and kept anew
    }
  }
  const restored = pyodide !== null;
  pyodide ??= /** @type {Pyodide} */ (await loadPyodide({ ...options, _makeSnapshot: Boolean(place) }));
  lap(restored ? "restore" : "python");
  // the files go in again after a restore: the snapshot holds Python's memory, not its disk
  unpack(pyodide, await zip, "/pocket");
  lap("zip");
  if (!restored) {
    pyodide.runPython(IMPORT);
    lap("imports");
    pyodide.globals.get("pocket_api").warm();
    lap("warm");
    if (place) {
      const made = pyodide.makeMemorySnapshot();
      lap("snapshot");
      keeping = keepSnapshot(place, made).catch(() => false);
    }
  }
  api = pyodide.globals.get("pocket_api");
  return { started_ms: Math.round(performance.now() - begun), from: restored ? "snapshot" : "fresh", laps };
}

/** @param {{type: string, [key: string]: any}} request */
async function answer(request) {
  if (request.type === "start") {
    starting ??= start(request.pyodide, request.engine, request.version ?? "");
    return await starting;
  }
  if (request.type === "kept") {
    await starting;
    return { kept: await keeping };
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
