"""The store as data format 1 wrote it (``tests/data/store/format-1.backup``, committed, never
regenerated) loads into today's server and plays on: every later tree must pass this."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from clients.session import ClientSession
from protocol import server_messages as s
from server.app import TableServer
from server.cli import main
from server.people import player_store_for
from tests.redis_server import RedisServer
from tests.server.people.wire import me, person
from tests.server.store_backup.test_round_trip import settings_for
from tests.server.test_club_export import CLUB

pytestmark = pytest.mark.redis
DATA = Path(__file__).resolve().parents[2] / "data" / "store"
FACTS = json.loads((DATA / "format-1.json").read_text())


async def test_a_format_1_store_loads_and_its_waiting_table_plays_on(
    redis_server: RedisServer,
) -> None:
    backup = str(DATA / "format-1.backup")
    assert await asyncio.to_thread(main, ["restore", backup, "--store", redis_server.url]) == 0
    server = TableServer(settings_for(redis_server.url))
    await server.start()
    try:
        async with await person(server, "Ana", FACTS["ana_key"]) as ana:
            seen = await me(ana)
            assert (seen.id, seen.name) == (FACTS["ana_id"], "Ana")
            assert seen.ratings, "her rated game still counts"
        history = await player_store_for(server.lobby.store).history(FACTS["ana_id"], 0, 10)
        assert FACTS["finished_table"] in {game.table_id for game in history}
        record = await server.lobby.store.find_record(FACTS["finished_table"])
        assert record is not None
        assert server.listing is not None  # the page shows today's games only: the kept ones here
        assert await server.listing.results(CLUB), "the club's finished game is in its results"
        assert server.nights is not None
        night = (await server.nights.state("quito")).state["night"]
        assert night is not None
        assert len(night["pairs"]) == 2

        back = await ClientSession.connect(
            server.ws_url,
            "Ana",
            resume=FACTS["waiting_token"],
            last_event=FACTS["waiting_last_event"],
            player_key=FACTS["ana_key"],
        )
        async with back:
            snapshot = await back.next_snapshot(lambda snap: bool(snap.legal))
            await back.act(snapshot.legal[0])
            played = await back.next_of(s.Event, lambda event: event.n > snapshot.last_event)
            assert played.event.model_dump()["type"] == "played"
    finally:
        await server.close()
