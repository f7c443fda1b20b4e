"""Solo in the pocket (issue 42): with the network gone, pocket.html comes from the service
worker's pocket cache, the engine (Pyodide and the engine zip, in a Web Worker) starts from it
and a whole ladder chica is played against the level-3 bot; the finished chica and the run
stay in IndexedDB, and the chica's record replays on the server to the same result.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from clients import pocket
from tests.serving import ServerProcess
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
#: a ladder two chicas into its streak: the next chica is against the level-3 bot (R14)
STREAK_2 = {
    "streak": 2,
    "margins": 30,
    "best": 20_030,
    "chica": None,
    "last": {"result": "won", "margin": 14, "level": 2, "streak": 2, "score": 20_030},
}
PUT_RUN = """(run) => new Promise((resolve, reject) => {
  const asked = indexedDB.open("cuarenta-pocket", 1);
  asked.onsuccess = () => {
    const tx = asked.result.transaction("run", "readwrite");
    tx.objectStore("run").put(run, "run");
    tx.oncomplete = () => { asked.result.close(); resolve(true); };
    tx.onerror = () => reject(tx.error);
  };
  asked.onerror = () => reject(asked.error);
})"""
FINISHED = """() => new Promise((resolve, reject) => {
  const asked = indexedDB.open("cuarenta-pocket", 1);
  asked.onsuccess = () => {
    const got = asked.result.transaction("chicas").objectStore("chicas").getAll();
    got.onsuccess = () => { asked.result.close(); resolve(got.result); };
    got.onerror = () => reject(got.error);
  };
})"""
KEPT = """async () => { const cache = await caches.open(`cuarenta-pocket-${POCKET.version}`);
  const cached = (await cache.keys()).map((r) => r.url.slice(location.origin.length));
  return { cached, files: POCKET.files, engine: POCKET.engine, shell: POCKET.shell,
    version: POCKET.version }; }"""
#: the person's turn, with the engine idle (or the chica over)
PERSONS_TURN = "__pocket.chica && (__pocket.chica.finished || (__pocket.chica.to_move === 'person'"
PERSONS_TURN += " && !__pocket.thinking))"


def play_the_chica(page: Page) -> int:
    """Play the person's first playable card (its first capture, if it has several) to the end."""
    moves = 0
    while True:
        page.wait_for_function(PERSONS_TURN, timeout=60_000)
        if page.evaluate("__pocket.chica.finished"):  # then kept and settled, a moment later
            page.wait_for_function("__pocket.run.chica === null", timeout=30_000)
            return moves
        page.locator(".pocket-hand button.card").first.click()
        choices = page.locator(".choices button")
        if choices.count():
            choices.first.click()
        moves += 1
        assert moves < 200, "a chica is not that long"


@pytest.mark.timeout(240)
def test_offline_a_chica_against_level_3_is_played_and_kept_R14(
    new_context: NewContext, web_url: str
) -> None:
    """``web_url`` only orders the browser's start; this test's own server is killed mid-test."""
    pocket.build(ROOT / "clients" / "web" / "offline")  # the files the server serves, fresh
    with socket.socket() as probe:  # one port for both lives of the server: one origin
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ServerProcess(["--store", "memory", "--log-level", "warning", "--port", str(port)])
    server.start()
    try:
        offline_chica(new_context, server)
    finally:
        server.kill()


def offline_chica(new_context: NewContext, server: ServerProcess) -> None:
    context = new_context(locale="en-US")
    page = context.new_page()
    begun = time.monotonic()
    page.goto(f"{server.url.rstrip('/')}/pocket.html?pace=0")
    page.wait_for_function("window.__pocket && __pocket.chica && __pocket.offline", timeout=60_000)
    online_s = time.monotonic() - begun
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30_000)
    page.evaluate(PUT_RUN, STREAK_2)
    page.wait_for_function("__pocket.started?.kept != null", timeout=60_000)
    assert page.evaluate("__pocket.started.kept") is True, "the first start kept its snapshot"
    kept_files: Any = page.evaluate(KEPT)
    pocket_files = {*kept_files["files"], kept_files["engine"], *kept_files["shell"]}
    snapshot = f"/offline/snapshot?v={kept_files['version']}"  # made here, on the device
    assert set(kept_files["cached"]) == pocket_files | {snapshot}, "every offline file is kept"

    server.kill()  # no server at all, and no network either
    context.set_offline(True)
    page.reload()
    served: Any = page.evaluate("performance.getEntriesByType('navigation')[0].workerStart")
    assert served > 0, "the page came from the service worker"
    page.wait_for_function(
        "globalThis.__pocket?.status?.startsWith('Engine ready')", timeout=60_000
    )
    page.wait_for_selector("#solo-next")  # drawn once the engine is there (a busy machine: late)
    offline_status: Any = page.evaluate("__pocket.status")
    assert page.evaluate("__pocket.started.from") == "snapshot", "no second Python init offline"
    assert page.locator("[data-stat=level] .solo-stat-value").inner_text() == "3"
    page.click("#solo-next")
    moves = play_the_chica(page)
    run: Any = page.evaluate("__pocket.run")
    assert run["chica"] is None
    assert run["last"]["level"] == 3
    assert run["last"]["result"] in ("won", "lost", "draw")
    assert page.locator(".solo-result").get_attribute("data-result") == run["last"]["result"]
    kept: Any = page.evaluate(FINISHED)
    assert [chica["level"] for chica in kept] == [3]
    assert kept[0]["result"] == run["last"]["result"]
    assert not kept[0]["synced"]

    # The install offer: after a first chica, between chicas, and once.
    offer = """() => { const offer = new Event("beforeinstallprompt", { cancelable: true });
      offer.prompt = async () => { window.__prompted = (window.__prompted || 0) + 1; };
      dispatchEvent(offer); }"""
    page.evaluate(offer)
    page.click("#pocket-install")
    assert page.evaluate("window.__prompted") == 1
    page.evaluate(offer)  # the browser offers again: the page asked once already
    assert page.locator("#pocket-install").count() == 0

    # The record the browser kept replays on the server's engine to the same end.
    replayed = subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", "-"],
        input=json.dumps(kept[0]["record"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(replayed.stdout)
    assert result["status"] == "finished"
    assert result["scores"] == kept[0]["scores"]

    # Back online, the page hands the finished chica in to the server by itself: counted once.
    server.start()
    context.set_offline(False)
    page.wait_for_function("__pocket.synced !== null", timeout=30_000)
    tally: Any = page.evaluate("__pocket.synced")
    won = int(run["last"]["result"] == "won")
    assert tally == {"played": 1, "won": won, "sent": 1}
    assert page.evaluate("__pocket.sync()") is None  # nothing left to hand in
    kept = page.evaluate(FINISHED)
    assert kept[0]["synced"]
    assert len(kept[0]["digest"]) == 16
    print(
        f"pocket: online start {online_s:.1f} s; offline: {offline_status};"
        f" a chica vs level 3 in {moves} moves"
    )


@pytest.mark.timeout(120)
def test_a_reload_mid_chica_takes_it_up_where_it_was_R14(
    new_context: NewContext, web_url: str
) -> None:
    pocket.build(ROOT / "clients" / "web" / "offline")
    page = new_context(locale="es-EC").new_page()
    page.goto(f"{web_url}/pocket.html?pace=0")
    for _ in range(3):
        page.wait_for_function(PERSONS_TURN, timeout=60_000)
        page.locator(".pocket-hand button.card").first.click()
        choices = page.locator(".choices button")
        if choices.count():
            choices.first.click()
    page.wait_for_function(PERSONS_TURN, timeout=60_000)
    before: Any = page.evaluate("__pocket.chica")
    page.reload()
    page.wait_for_function(PERSONS_TURN, timeout=60_000)
    after: Any = page.evaluate("__pocket.chica")
    assert after["record"]["actions"] == before["record"]["actions"]
    assert (after["hand"], after["table"], after["scores"]) == (
        before["hand"],
        before["table"],
        before["scores"],
    )
    assert page.locator("#solo-title").inner_text() == "Sin conexión: la racha en tu bolsillo"
    assert_accessible(page, "pocket.html mid-chica")


REINSTALL = """async () => {
  const name = `cuarenta-pocket-${POCKET.version}`;
  await caches.delete(name);
  const older = await caches.open("cuarenta-pocket-older");
  await older.put("/offline/engine.zip?v=old", new Response("old"));
  const registration = await navigator.serviceWorker.register("/sw.js?reinstall=1", { scope: "/" });
  const worker = registration.installing || registration.waiting || registration.active;
  await new Promise((resolve) => {
    if (worker.state === "activated") resolve(null);
    worker.addEventListener("statechange", () => worker.state === "activated" && resolve(null));
  });
  const kept = await caches.open(name);
  return { names: await caches.keys(), kept: (await kept.keys()).length };
}"""


@pytest.mark.timeout(120)
def test_a_new_service_worker_keeps_the_new_pocket_and_drops_the_old_one(
    new_context: NewContext, web_url: str
) -> None:
    """A person who kept the pocket once gets the current version at the next install, before
    that worker takes over; an older version's cache goes at its activation."""
    pocket.build(ROOT / "clients" / "web" / "offline")
    page = new_context(locale="en-US").new_page()
    page.goto(f"{web_url}/pocket.html?pace=0")
    page.wait_for_function("window.__pocket && __pocket.offline", timeout=60_000)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30_000)
    answer: Any = page.evaluate(REINSTALL)
    version: Any = page.evaluate("POCKET.version")
    files: Any = page.evaluate("POCKET.files.length + 1 + POCKET.shell.length")
    assert f"cuarenta-pocket-{version}" in answer["names"]
    assert "cuarenta-pocket-older" not in answer["names"]
    assert answer["kept"] == files


#: every text the prompt showed while the page waited on the engine
WATCH_PROMPT = """() => { window.__waited = [];
  new MutationObserver(() => {
    for (const prompt of document.querySelectorAll(".prompt.is-waiting")) {
      window.__waited.push(prompt.textContent);
    }
  }).observe(document.getElementById("main"), { childList: true, subtree: true }); }"""
BOT_PLAYS = "__pocket.chica.record.actions.filter((a) => a.type === 'play' && a.seat === 1).length"


@pytest.mark.timeout(120)
def test_the_free_game_plays_level_5_in_the_pocket_R14(
    new_context: NewContext, web_url: str
) -> None:
    """The free two-player game (R14 libre-2p) offers level 5 offline: its search runs in the
    engine worker within its budget, the page saying the bot thinks; not a rung of the ladder."""
    pocket.build(ROOT / "clients" / "web" / "offline")
    context = new_context(locale="en-US")
    context.add_init_script("try { localStorage.setItem('cuarenta.pocketMode', 'free') } catch {}")
    page = context.new_page()
    page.goto(f"{web_url}/pocket.html?pace=0")
    page.wait_for_function("__pocket.startedMs !== null", timeout=60_000)
    assert page.locator("#pocket-mode-free").get_attribute("aria-pressed") == "true"
    page.select_option("#pocket-level", "5")
    page.evaluate(WATCH_PROMPT)
    page.click("#pocket-free-new")
    page.wait_for_function("__pocket.free.chica !== null", timeout=30_000)
    while True:
        page.wait_for_function(PERSONS_TURN, timeout=60_000)
        if page.evaluate(f"__pocket.chica.finished || {BOT_PLAYS} >= 3"):
            break
        page.locator(".pocket-hand button.card").first.click()
        choices = page.locator(".choices button")
        if choices.count():
            choices.first.click()
    chica: Any = page.evaluate("__pocket.chica")
    assert (chica["level"], chica["profile"]) == (5, "libre-2p")
    assert "The level 5 bot is thinking…" in page.evaluate("window.__waited")
    assert_accessible(page, "pocket.html, the free game against level 5")
    assert page.evaluate("__pocket.run") == {  # no rung of the ladder
        "streak": 0,
        "margins": 0,
        "best": 0,
        "chica": None,
        "last": None,
    }
    replayed = subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", "-"],
        input=json.dumps(chica["record"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(replayed.stdout)["status"] in ("in_progress", "finished")
