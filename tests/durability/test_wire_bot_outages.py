"""Wire bots through outages: a Redis blip or a server killed mid-request never ends their game.

A wire bot is a connected person to the server, so no stand-in plays for it (invariant 5): a
bot that gave up on a refused or unanswered move would stall its table for good. These tests
play whole games of wire bots against a real server on a private redis-server and break one
or the other in the middle.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

import pytest

from clients.bot.player import BotPlan, BotTally, WireBot
from clients.reconnect import LastingSession
from clients.session import DEFAULT_TIMEOUT_S
from clients.table import TableLinks, TableRefused, create_table, watch_table
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.store.redis import open_store
from tests.redis_server import RedisServer, free_port
from tests.serving import ServerProcess, StartServer

pytestmark = pytest.mark.redis
GAME_S = 120.0  # a heads-up game of wire bots at full speed, on a loaded machine


class WatchedPlace(LastingSession):
    """A bot's place that notes what happens to its requests (the requests themselves are real)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refusals: list[ErrorCode] = []
        self.storage_refused = asyncio.Event()
        self.in_flight = 0
        self.sent = asyncio.Event()  # a request went out (cleared by the test)

    async def request(
        self, message: c.ClientMessage, wait_s: float = DEFAULT_TIMEOUT_S
    ) -> s.ServerMessage:
        self.in_flight += 1
        self.sent.set()
        try:
            return await super().request(message, wait_s)
        except TableRefused as exc:
            self.refusals.append(exc.code)
            if exc.code is ErrorCode.STORAGE_UNAVAILABLE:
                self.storage_refused.set()
            raise
        finally:
            self.in_flight -= 1


async def seat_bots(links: TableLinks) -> tuple[list[WatchedPlace], asyncio.Future[list[BotTally]]]:
    """Two wire bots at a heads-up table (the host's bot starts it); their games, running."""
    places = [WatchedPlace(links.host, "bot 0"), WatchedPlace(links.join, "bot 1")]
    for place in places:
        await place.open()
    bots = [WireBot(place, BotPlan(level=2, seed=index)) for index, place in enumerate(places)]
    return places, asyncio.gather(*(bot.run() for bot in bots))


async def first_of(events: list[asyncio.Event], wait_s: float) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        async with asyncio.timeout(wait_s):
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


def one_finished_game(tallies: list[BotTally]) -> None:
    """Both bots saw the same game end (R11: the winner and the final score)."""
    finals = [tally.games[-1] for tally in tallies]
    assert all(len(tally.games) == 1 for tally in tallies)
    assert all(final.view is not None and final.view.winner is not None for final in finals)
    views = [final.view for final in finals if final.view is not None]
    assert views[0].scores == views[1].scores


async def test_a_wire_bot_whose_move_a_redis_blip_refused_plays_on_and_its_table_finishes(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    store = await open_store(redis_server.url, timeout_s=1.0)
    async with start_server(store=store, claim_window_s=0.1, lease_s=2.0, resolve_s=0.5) as server:
        links = await create_table(server.url, "host", profile="heads-up")
        places, playing = await seat_bots(links)
        watcher = await watch_table(links.watch, "Eve")
        await watcher.next_snapshot(lambda snap: snap.info.stage == "playing", wait_s=GAME_S)
        await watcher.close()

        redis_server.kill()
        await first_of([place.storage_refused for place in places], GAME_S)
        redis_server.start()  # from the append-only file

        tallies = await asyncio.wait_for(playing, GAME_S)
        one_finished_game(tallies)
        assert all(tally.refused == [] for tally in tallies), [t.refused for t in tallies]
        assert sum(getattr(tally, "retries", 1) for tally in tallies) >= 1
    for place in places:
        await place.close()


def serve_args(redis: RedisServer, port: int) -> tuple[str, ...]:
    return ("--store", redis.url, "--port", str(port), "--claim-window", "0.1", "--lease", "2")


async def freeze_with_a_request_in_flight(
    server: ServerProcess, places: list[WatchedPlace]
) -> None:
    """SIGSTOP the server at a moment some bot waits for an answer it will never get.

    A bot whose turn it is sends its move within moments of the last frame; a table waiting
    on its own clock (the claim window) sends nothing, so the server is let go on and frozen
    again (bounded).
    """
    assert server.process is not None
    for _ in range(20):
        for place in places:
            place.sent.clear()
        server.freeze()
        if any(place.in_flight for place in places):
            return
        try:
            await first_of([place.sent for place in places], 2.0)
            return
        except TimeoutError:
            server.process.send_signal(signal.SIGCONT)
            await asyncio.sleep(0.05)  # let the table's clock run a little (not a sync point)
    raise AssertionError("no bot request went out while the server was frozen")


async def test_wire_bots_resume_their_seats_when_the_server_dies_mid_request_and_finish(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess]
) -> None:
    port = free_port()
    first = server_process(*serve_args(redis_server, port))
    links = await create_table(first.url, "host", profile="heads-up")
    places, playing = await seat_bots(links)
    watcher = await watch_table(links.watch, "Eve")
    await watcher.next_snapshot(lambda snap: snap.info.stage == "playing", wait_s=GAME_S)
    await watcher.close()

    await freeze_with_a_request_in_flight(first, places)
    first.kill()  # kill -9 with the request unanswered
    second = server_process(*serve_args(redis_server, port))  # the same address
    assert second.url == first.url

    tallies = await asyncio.wait_for(playing, GAME_S)
    one_finished_game(tallies)
    assert sum(place.reconnects for place in places) >= len(places)
    for place in places:
        await place.close()
