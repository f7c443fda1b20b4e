// `node clients/web/offline/replay_node.mjs [--json] [--zip ZIP] RECORD...`: replay game records
// (R15) with the engine zip the browser plays from, under Pyodide in Node, and print what
// `cuarenta replay RECORD` prints. One Pyodide start serves every record.
//
// Without --json: each record's standard output and error exactly as `cuarenta replay` writes
// them, one record after another; the exit code is the highest of theirs (0, 1 or 2).
// With --json: one line per record, {"file", "exit", "stdout", "stderr"}, and a last line
// {"started_ms", "replayed_ms", "records"} (the test compares these with the server's command).
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { loadPyodide } from "pyodide";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const json = args.includes("--json");
let zip = resolve(here, "engine.zip");
const files = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === "--json") continue;
  if (args[i] === "--zip") zip = resolve(args[(i += 1)]);
  else files.push(args[i]);
}
if (!files.length) {
  process.stderr.write("usage: replay_node.mjs [--json] [--zip ZIP] RECORD...\n");
  process.exit(2);
}

const begun = performance.now();
// Python's own output goes through the records' captured streams; anything else is a fault.
const pyodide = await loadPyodide({ stdout: (line) => process.stderr.write(`${line}\n`) });
pyodide.unpackArchive(new Uint8Array(await readFile(zip)), "zip", { extractDir: "/pocket" });
await pyodide.runPythonAsync("import sys; sys.path.insert(0, '/pocket'); import pocket_api");
const started = performance.now() - begun;
const replayOutput = pyodide.globals.get("pocket_api").replay_output;

let worst = 0;
const replaying = performance.now();
for (const file of files) {
  // The record goes into Pyodide's file system under the name it was given, so an error that
  // names the file reads the same as the server's.
  const path = resolve(file);
  /** @type {{exit: number, stdout: string, stderr: string}} */
  let answer;
  let bytes = null;
  try {
    bytes = await readFile(path);
  } catch {
    bytes = null;
  }
  if (bytes !== null) {
    pyodide.FS.mkdirTree(dirname(path));
    pyodide.FS.writeFile(path, new Uint8Array(bytes));
  }
  answer = JSON.parse(replayOutput(file.startsWith("/") ? file : path));
  if (bytes !== null) pyodide.FS.unlink(path);
  worst = Math.max(worst, answer.exit);
  if (json) process.stdout.write(`${JSON.stringify({ file, ...answer })}\n`);
  else {
    process.stdout.write(answer.stdout);
    process.stderr.write(answer.stderr);
  }
}
const replayed = performance.now() - replaying;
if (json) {
  process.stdout.write(`${JSON.stringify({ started_ms: Math.round(started),
    replayed_ms: Math.round(replayed), records: files.length })}\n`);
}
process.exitCode = worst;
