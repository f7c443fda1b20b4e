"""`cuarenta bench pocket`: the offline ladder in Chromium with the CPU throttled, as on a phone.

One ``cuarenta serve`` child (memory store) serves ``/pocket.html``; Debian's headless Chromium
opens it once online (the service worker precaches the offline files and the engine worker
keeps its memory snapshot: the warm cache), then DevTools throttles the CPU `--throttle` times
(``Emulation.setCPUThrottlingRate``) and the network goes off; ``--throttle 1`` beside it shows
what the throttling costs. It prints:

- **first deal offline**: from the reload with no network to the chica on the table (the page
  from the service worker, Pyodide, the snapshot and the engine zip from the cache, the chica
  dealt online resumed from its record), the median of ``--reloads``, and for each the engine
  worker's start with its laps and the page's marks (when it asked for the engine, opened,
  heard the engine started, showed the deal); the first start's laps (online, no snapshot);
- **decisions**: a fresh engine worker (``/offline/engine_worker.js``, as the page uses it) plays
  chicas at each of ``--levels`` for the bot, the person's side playing its first legal action;
  each bot move's time as the page waits for it: the first (the worker imported every level at
  its start, but the code is not yet warm), then the mean, p50, p95 and the worst of the rest;
- **precached**: the bytes the pocket's cache holds, and apart the snapshot's (made on the device).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import CDPSession, Page, sync_playwright

from bench.machine import machine
from bench.store import servers, ws_url

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

#: a fresh engine worker plays ``moves`` bot moves at ``level``; each move's milliseconds
DECISIONS = """async ({ level, moves, engine }) => {
  const worker = new Worker("/offline/engine_worker.js", { type: "module" });
  let next = 0;
  const ask = (type, fields = {}) => new Promise((done, failed) => {
    const id = ++next;
    const heard = (event) => {
      if (event.data.id !== id) return;
      worker.removeEventListener("message", heard);
      event.data.ok ? done(event.data.state) : failed(new Error(event.data.error));
    };
    worker.addEventListener("message", heard);
    worker.postMessage({ id, type, ...fields });
  });
  await ask("start", { pyodide: "/vendor/", engine });
  const took = [];
  let seed = 1;
  let state = await ask("new", { seed, level });
  while (took.length < moves) {
    if (state.finished) state = await ask("new", { seed: ++seed, level });
    else if (state.to_move === "person") state = await ask("play", { action: state.legal[0] });
    else {
      const begun = performance.now();
      state = await ask("step");
      took.push(performance.now() - begun);
    }
  }
  worker.terminate();
  return took;
}"""
#: the bytes the caches hold: the precached files, and the engine's snapshot (made on the device)
CACHED_BYTES = """async () => {
  let bytes = 0, snapshot = 0;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const size = (await (await cache.match(request)).arrayBuffer()).byteLength;
      if (new URL(request.url).pathname === "/offline/snapshot") snapshot += size;
      else bytes += size;
    }
  }
  return [bytes, snapshot];
}"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--throttle", type=float, default=4.0, help="DevTools CPU slowdown")
    parser.add_argument("--levels", default="3,4,5", help="bot levels whose decisions are timed")
    parser.add_argument("--moves", type=int, default=30, help="bot moves timed at each level")
    parser.add_argument("--reloads", type=int, default=3, help="offline reloads timed")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def throttle(page: Page, rate: float) -> CDPSession:
    """Slow the page's renderer ``rate`` times (DevTools); its workers run in that renderer."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    return cdp


def ms(values: list[float]) -> dict[str, float]:
    """The first decision (its code not yet warm) apart, then the rest's spread."""
    ordered = sorted(values[1:] or values)
    return {
        "first": round(values[0], 1),
        "mean": round(statistics.fmean(ordered), 1),
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[max(0, round(0.95 * len(ordered)) - 1)], 1),
        "worst": round(ordered[-1], 1),
    }


def reload(page: Page) -> dict[str, Any]:
    """Reload the page offline; the seconds to the chica on the table and how the engine started."""
    begun = time.monotonic()
    page.reload()  # the chica dealt online comes back (or a new one is dealt)
    page.wait_for_function("window.__pocket && __pocket.chica !== null", timeout=120_000)
    return {
        "first_deal_s": round(time.monotonic() - begun, 2),
        "engine_start_s": round(float(page.evaluate("__pocket.startedMs")) / 1000, 2),
        **page.evaluate("({from: __pocket.started.from, laps_ms: __pocket.started.laps})"),
        "page_marks_ms": page.evaluate("__pocket.marks"),
    }


def measure(args: argparse.Namespace, base: str) -> dict[str, Any]:
    levels = [int(level) for level in args.levels.split(",") if level]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
            page = context.new_page()
            page.goto(f"{base}/pocket.html?pace=0")
            page.wait_for_function("window.__pocket && __pocket.offline", timeout=120_000)
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
            # the first start made the engine's snapshot: kept, the next start restores it
            page.wait_for_function("__pocket.started?.kept != null", timeout=120_000)
            first_start = page.evaluate("__pocket.started")
            cached, snapshot = page.evaluate(CACHED_BYTES)
            engine = str(page.evaluate("self.POCKET.engine"))
            throttle(page, args.throttle)
            context.set_offline(True)
            reloads = [reload(page) for _ in range(args.reloads)]
            decisions = {
                level: ms(
                    page.evaluate(
                        DECISIONS, {"level": level, "moves": args.moves, "engine": engine}
                    )
                )
                for level in levels
            }
        finally:
            browser.close()
    return {
        "throttle": args.throttle,
        "first_deal_offline_s": statistics.median(each["first_deal_s"] for each in reloads),
        "engine_start_s": statistics.median(each["engine_start_s"] for each in reloads),
        "reloads": reloads,
        "decision_ms": decisions,
        "first_start_online": first_start,
        "precached_bytes": int(cached),
        "snapshot_bytes": int(snapshot),
        "machine": machine(),
    }


def run(args: argparse.Namespace) -> int:
    with servers(["memory"]) as started:
        base = ws_url(started[0]).replace("ws://", "http://").removesuffix("/ws")
        figures = measure(args, base)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    print(f"pocket in Chromium, CPU throttled {figures['throttle']}x (DevTools), offline:")
    print(
        f"  first deal offline on a warm cache, median of {len(figures['reloads'])} reloads: "
        f"{figures['first_deal_offline_s']} s (of which the engine worker's start, Pyodide and "
        f"the zip: {figures['engine_start_s']} s)"
    )
    for each in figures["reloads"]:
        print(
            f"    {each['first_deal_s']} s, the engine {each['engine_start_s']} s from "
            f"{each['from']} {each['laps_ms']}; the page's marks (ms) {each['page_marks_ms']}"
        )
    first = figures["first_start_online"]
    print(f"  the first start (online, no snapshot yet): {first['laps']} ms")
    for level, took in figures["decision_ms"].items():
        print(
            f"  level {level} decision: first {took['first']} ms; then mean {took['mean']} ms, "
            f"p50 {took['p50']} ms, "
            f"p95 {took['p95']} ms, worst {took['worst']} ms"
        )
    print(
        f"  precached: {figures['precached_bytes'] / 1e6:.1f} MB; "
        f"the engine's snapshot, kept on the device: {figures['snapshot_bytes'] / 1e6:.1f} MB"
    )
    return 0
