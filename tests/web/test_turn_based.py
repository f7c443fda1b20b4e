"""A turn-based game in the browser (issue 41): four people far apart, each move made from a
browser context opened fresh on the link a notification opens (``/me?open=<table>``), with the
server stopped (SIGTERM) and started again between moves, and a missed deadline played by the
stand-in — on a server clock moved forward by hours between restarts (``--clock-offset``).
The game is then played to its end over the wire, still turn-based, and counted on each /me."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Page, ViewportSize

from clients.session import ClientSession, RequestRefused
from protocol import away as a
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from tests.redis_server import RedisServer
from tests.server.people.wire import new_key
from tests.serving import ServerProcess
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser
T = TypeVar("T")

HOUR = 3600
PHONE: ViewportSize = {"width": 390, "height": 844}
NAMES = ("Abuela", "Rosa", "Diego", "Lucía")  # Quito, Madrid, New Jersey, Guayaquil
BROWSER_MOVES = 6


def on_the_wire(work: Coroutine[Any, Any, T]) -> T:
    """Run a wire client's coroutine beside the page (sync Playwright holds this thread's loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


class Site:
    """`cuarenta serve` on its own Redis, stopped and started again at will, its clock moved."""

    def __init__(self, store: RedisServer) -> None:
        self.store = store
        self.offset = 0.0
        self.server: ServerProcess | None = None
        self.url = ""

    def start(self) -> str:
        args = ["--store", self.store.url, "--log-level", "warning", "--commands-per-s", "1000"]
        self.server = ServerProcess([*args, "--clock-offset", str(self.offset), "--lease", "2"])
        self.url = self.server.start().rstrip("/")
        return self.url

    def restart(self, hours: float = 0.0) -> str:
        """SIGTERM, ``hours`` pass, start again (a new port: each move is a fresh visit)."""
        assert self.server is not None
        assert self.server.stop() == 0
        self.offset += hours * HOUR
        return self.start()


def site_on_a_fresh_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A `Site` on its own new redis-server, killed with it at the end (a module's fixture)."""
    store = RedisServer(tmp_path_factory.mktemp("redis"))
    store.start_anew()
    running = Site(store)
    running.start()
    try:
        yield running
    finally:
        if running.server is not None:
            running.server.kill()
        store.stop()


site = pytest.fixture(scope="module", name="site")(site_on_a_fresh_redis)


@pytest.fixture(scope="module")
def web_url(site: Site) -> str:
    return site.url


async def seat_the_family(url: str, keys: list[str]) -> s.TableCreated:
    """Abuela creates a one-hour turn-based table; the four sit; she starts; all go away."""
    ws = url.replace("http://", "ws://") + "/ws"
    people = [
        await ClientSession.connect(ws, name, player_key=key)
        for name, key in zip(NAMES, keys, strict=True)
    ]
    created = await people[0].request(c.CreateTable(profile="pagat-4p", move_deadline=HOUR))
    assert isinstance(created, s.TableCreated)
    await people[0].request(c.Join(key=created.host_key, seat=0))
    for seat, person in enumerate(people[1:], start=1):
        await person.request(c.Join(key=created.join_key, seat=seat))
    await people[0].request(c.Start())
    for person in people:
        await person.close()
    return created


async def turns_of(url: str, key: str) -> a.Turns:
    ws = url.replace("http://", "ws://") + "/ws"
    async with await ClientSession.connect(ws, "x", player_key=key) as person:
        answer = await person.request(a.TurnsRequest())
        assert isinstance(answer, a.Turns)
        return answer


async def awaited(url: str, keys: list[str], table: str) -> tuple[int, a.TurnLine]:
    """Whose turn it is, as each person's /me says it (exactly one of them)."""
    lines = [
        next(line for line in (await turns_of(url, key)).tables if line.table == table)
        for key in keys
    ]
    yours = [i for i, line in enumerate(lines) if line.your_turn]
    assert len(yours) == 1, f"one person is awaited, not {yours}"
    return yours[0], lines[yours[0]]


def keyed(key: str) -> str:
    """A page script that gives a fresh browser the person's key (as the move link does)."""
    value = json.dumps(json.dumps(key))
    return f"if (location.protocol === 'http:') localStorage.setItem('cuarenta.player', {value});"


def move_from_a_fresh_browser(new_context: NewContext, url: str, key: str, table: str) -> Page:
    """A new browser with the person's key opens the notification's link and makes the move."""
    context = new_context(viewport=PHONE)
    context.add_init_script(keyed(key))
    page = context.new_page()
    page.goto(f"{url}/me?open={table}&lang=es")
    page.wait_for_url(f"{url}/t/**", timeout=STEP_TIMEOUT_MS)  # /me went on to the table
    page.wait_for_function(  # the page took the person's seat back, and shows the move
        "globalThis.__cuarenta?.model.legal.length > 0", timeout=STEP_TIMEOUT_MS
    )
    before = page.evaluate("globalThis.__cuarenta.model.lastEvent")
    page.evaluate("""() => { const c = globalThis.__cuarenta;
      const move = c.model.legal.find((x) => x.type === "play" || x.type === "announce");
      return c.send({ ...move, at: c.model.lastEvent }); }""")
    page.wait_for_function(
        f"globalThis.__cuarenta.model.lastEvent > {before}", timeout=STEP_TIMEOUT_MS
    )
    return page


async def play_to_the_end(site: Site, keys: list[str], created: s.TableCreated) -> None:
    """The rest of the game, each person on their own socket, the server restarted now and then."""
    rng = random.Random(11)
    ws = site.url.replace("http://", "ws://") + "/ws"
    people = [
        await ClientSession.connect(ws, name, player_key=key)
        for name, key in zip(NAMES, keys, strict=True)
    ]
    for person in people:
        await person.request(c.Join(key=created.join_key))  # a person's join takes their seat back
    await asyncio.gather(*(play_turns(person, rng) for person in people))
    for person in people:
        await person.close()


async def play_turns(person: ClientSession, rng: random.Random) -> None:
    """Random legal moves on each turn; in a claim window (it lasts a move deadline at a
    turn-based table) nothing to claim: ``no_claim``, so it closes once everyone is done."""
    told_claims = -1
    while True:
        snap = await person.next_snapshot(wait_s=30)
        if snap.info.stage == "finished":
            return
        view = snap.view
        if view is not None and view.phase == "claims" and view.viewer in view.to_act:
            if told_claims != snap.last_event:
                told_claims = snap.last_event
                await person.request(c.NoClaim())
            continue
        required = [x for x in snap.legal if isinstance(x, c.Play | c.Announce)]
        if required and snap.last_event == person.last_event:
            with contextlib.suppress(RequestRefused):  # the next snapshot decides again
                await person.act(rng.choice(required))


async def history_of(url: str, key: str) -> p.History:
    ws = url.replace("http://", "ws://") + "/ws"
    async with await ClientSession.connect(ws, "x", player_key=key) as person:
        answer = await person.request(p.HistoryRequest())
        assert isinstance(answer, p.History)
        return answer


@pytest.mark.timeout(600)
def test_a_family_plays_a_turn_based_game_across_restarts_and_a_missed_deadline(
    site: Site, new_context: NewContext
) -> None:
    keys = [new_key() for _ in NAMES]
    created = on_the_wire(seat_the_family(site.url, keys))
    table = created.table
    for move in range(BROWSER_MOVES):
        seat, line = on_the_wire(awaited(site.url, keys, table))
        assert line.deadline is not None
        url = site.restart(hours=0.5)  # half an hour later, on another server process
        page = move_from_a_fresh_browser(new_context, url, keys[seat], table)
        if move == 0:
            page.context.close()
            me = new_context(viewport=PHONE)
            me.add_init_script(keyed(keys[1]))
            listing = me.new_page()
            listing.goto(f"{url}/me?lang=es")
            listing.wait_for_selector(".me-turn", timeout=STEP_TIMEOUT_MS)
            assert_accessible(listing, "the turn-based games and notifications on /me, phone")
            listing.screenshot(path="test-artifacts/me-turns-phone.png", full_page=True)
        page.context.close()
    seat, line = on_the_wire(awaited(site.url, keys, table))
    played = line.last_play
    site.restart(hours=1.5)  # nobody moves: the one-hour deadline passed while it was down
    after = on_the_wire(awaited(site.url, keys, table))
    for _ in range(200):  # the watch wakes the table within a scan of the start
        if after[1].last_play != played:
            break
        after = on_the_wire(awaited(site.url, keys, table))
    assert after[0] != seat, "the stand-in played the missed turn, and the next person is awaited"
    assert after[1].last_play.startswith(NAMES[seat]), (
        "the move was made for the person who missed it"
    )
    on_the_wire(play_to_the_end(site, keys, created))
    for key in keys:  # counted in each person's history like a live game
        games = on_the_wire(history_of(site.url, key)).games
        assert [game.table for game in games] == [table]
