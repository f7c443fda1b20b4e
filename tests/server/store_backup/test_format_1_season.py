"""A club's season as data format 1 wrote it (``tests/data/store/format-1-season.backup``,
committed, never regenerated): one night held, the next under way. Restored into today's
server, the season and the past night read as they were, and the night in progress goes on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from protocol import clubs as m
from server.app import TableServer
from server.cli import main
from tests.redis_server import RedisServer
from tests.server.clubs.helpers import follow, night_until, round_started
from tests.server.store_backup.test_round_trip import settings_for
from tests.server.test_club_export import CLUB

pytestmark = pytest.mark.redis
DATA = Path(__file__).resolve().parents[2] / "data" / "store"
FACTS = json.loads((DATA / "format-1-season.json").read_text())


async def test_a_format_1_season_keeps_its_held_night_and_plays_on_the_next(
    redis_server: RedisServer,
) -> None:
    backup = str(DATA / "format-1-season.backup")
    assert await asyncio.to_thread(main, ["restore", backup, "--store", redis_server.url]) == 0
    server = TableServer(settings_for(redis_server.url))
    await server.start()
    try:
        assert server.nights is not None
        server.nights.seat_wait_s = 0.0  # nobody comes: stand-ins start the round at once
        state = (await server.nights.state(CLUB)).state
        assert state["season"] == FACTS["season"], "the season counts the held night as written"
        [held] = state["past"]
        assert held["number"] == FACTS["first_night"]
        assert [row["pair"] for row in held["standings"]] == FACTS["first_standings"]
        night = state["night"]
        assert night["number"] == FACTS["current_night"]
        assert not night["finished"]
        assert night["tournament"] is None

        key = await server.club_host_key(CLUB)
        assert key is not None
        host = await follow(server, "host", key)
        try:
            await host.request(m.ClubStart(club=CLUB, key=key, format="swiss", rounds=1))
            await host.request(m.ClubRound(club=CLUB, key=key, round=1))
            going = await night_until(host, round_started(1))
        finally:
            await host.close()
        assert going["number"] == FACTS["current_night"]
        assert len(going["tournament"]["rounds"][0]["matches"]) == 1
    finally:
        await server.close()
