"""``/review/<table>/<game>``: after a game ends, its review, computed once in the review
worker (202 "not ready" until then) and stored with the game's record, judging every play each
person made (R15's record), under ``/record/``'s credential rule; each person's accuracy in
their history."""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import time
from typing import Any

from clients.session import ClientSession
from engine.bots.review import GRADES
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from server.app import TableServer
from tests.server.players import play_until_finished
from tests.serving import StartServer

REVIEW_WAIT_S = 120.0


async def get(server: TableServer, path: str) -> tuple[int, bytes]:
    def fetch() -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    return await asyncio.to_thread(fetch)


async def review_of(server: TableServer, path: str) -> dict[str, Any]:
    """Ask until the review is ready (202 before), within `REVIEW_WAIT_S`."""
    deadline = time.monotonic() + REVIEW_WAIT_S
    while time.monotonic() < deadline:
        status, body = await get(server, path)
        if status == 200:
            found: dict[str, Any] = json.loads(body)
            return found
        assert status == 202, body
        assert json.loads(body) == {"status": "not ready"}
        await asyncio.sleep(0.25)  # polled as a browser would
    raise AssertionError("no review in time")


async def test_a_finished_game_gets_a_review_judging_every_play_of_the_person(
    start_server: StartServer,
) -> None:
    async with (
        start_server(claim_window_s=0.05) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        created = await ana.request(c.CreateTable(profile="heads-up", casual=True))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        await ana.request(c.AddBot(level=1))
        await ana.request(c.Start())
        await play_until_finished(ana, random.Random(3))
        record = await ana.request(c.GetRecord())
        assert isinstance(record, s.RecordMessage)
        path = f"/review/{created.table}/{record.game}"
        status, _ = await get(server, f"{path}?key=not-a-key")
        assert status == 404  # the record's credential rule
        review = await review_of(server, f"{path}?key={created.host_key}")
        assert review["format"] == "cuarenta-review/1"
        plays = [
            index
            for index, action in enumerate(record.record["actions"])  # type: ignore[arg-type]
            if isinstance(action, dict) and action.get("type") == "play"
        ]
        judged = {step["index"] for step in review["steps"]}
        assert judged == set(plays)  # every play of every seat, the person's included
        assert all(step["grade"] in (*GRADES, "forced") for step in review["steps"])
        ana_judged = [x for x in review["steps"] if x["seat"] == 0 and x["grade"] != "forced"]
        assert review["seats"][0]["judged"] == len(ana_judged)
        assert ana_judged  # a whole game gives a person choices to judge
        assert 0 <= review["seats"][0]["accuracy"] <= 100
        again = await get(server, f"{path}?key={created.host_key}")
        assert again == (200, json.dumps(review).encode())  # computed once, kept


async def test_a_game_with_a_person_is_reviewed_at_its_end_stored_and_never_again(
    start_server: StartServer,
) -> None:
    async with (
        start_server(claim_window_s=0.05) as server,
        await ClientSession.connect(server.ws_url, "Ana", player_key="a" * 43) as ana,
    ):
        created = await ana.request(c.CreateTable(profile="heads-up", casual=True))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        await ana.request(c.AddBot(level=1))
        await ana.request(c.Start())
        await play_until_finished(ana, random.Random(5))
        which = (created.table, 1)
        await server.reviews.done(which)  # started by the game's end: nobody asked for it
        kept = await server.lobby.store.find_review(*which)
        assert kept is not None  # stored with the game's record
        path = f"/review/{created.table}/1?key={created.host_key}"
        assert await get(server, path) == (200, kept)  # the first ask: ready, as stored
        assert await get(server, path) == (200, kept)
        assert server.reviews.computed == 1
        history = await ana.request(p.HistoryRequest())
        assert isinstance(history, p.History)
        assert ana.seat is not None
        mine = json.loads(kept)["seats"][ana.seat]["accuracy"]
        assert history.games[0].accuracy == mine  # /me lists it with the game
        assert 0 <= mine <= 100


async def test_a_game_without_a_review_is_computed_once_when_first_asked(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        created = await ana.request(c.CreateTable(profile="heads-up", casual=True))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Watch(key=created.host_key))  # an all-bot game: no person to review
        for _ in range(2):
            await ana.request(c.AddBot(level=1))
        await ana.request(c.Start())
        await ana.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=60)
        which = (created.table, 1)
        assert not server.reviews.running(which)
        assert await server.lobby.store.find_review(*which) is None
        path = f"/review/{created.table}/1?key={created.host_key}"
        asked = await asyncio.gather(get(server, path), get(server, path), get(server, path))
        assert {status for status, _ in asked} == {202}
        await server.reviews.done(which)
        review = await review_of(server, path)
        assert review["format"] == "cuarenta-review/1"
        assert server.reviews.computed == 1  # three asks, one computation (single flight)
