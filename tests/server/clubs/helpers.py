"""A club night driven over the wire, as a host and its members do it.

The host is an ordinary protocol client holding the club's key (``cuarenta serve`` prints it);
members follow the club with ``club_open``; the night's state arrives as ``club_night``
messages, so a test waits on what the server says, never on a sleep.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from clients.session import ClientSession
from engine.record import Record
from engine.replay import replay
from protocol import clubs as m
from server.app import TableServer

CLUB = "quito"
NIGHT_S = 120.0  # a whole night of bot games at machine speed stays far below this


async def follow(
    server: TableServer, name: str, key: str | None = None, member: bool = False
) -> ClientSession:
    session = await ClientSession.connect(server.ws_url, name)
    await session.request(m.ClubOpen(club=CLUB, key=key, member=member))
    return session


async def night_until(
    host: ClientSession, done: Callable[[dict[str, Any]], bool], wait_s: float = NIGHT_S
) -> dict[str, Any]:
    """The first night state (pushed to the host) for which ``done`` holds."""
    message = await host.next_of(
        m.ClubNight, lambda n: n.state["night"] is not None and done(n.state["night"]), wait_s
    )
    night: dict[str, Any] = message.state["night"]
    return night


def round_done(number: int) -> Callable[[dict[str, Any]], bool]:
    """The night's round ``number`` has every match done."""

    def done(night: dict[str, Any]) -> bool:
        rounds = (night["tournament"] or {}).get("rounds", [])
        return len(rounds) >= number and all(
            _done(match) for match in rounds[number - 1]["matches"]
        )

    return done


def round_started(number: int) -> Callable[[dict[str, Any]], bool]:
    """Every table of round ``number`` is started."""

    def started(night: dict[str, Any]) -> bool:
        rounds = (night["tournament"] or {}).get("rounds", [])
        if len(rounds) < number:
            return False
        wanted = [f"{number}-{match['table']}" for match in rounds[number - 1]["matches"]]
        return all(night["tables"].get(key, {}).get("started") for key in wanted)

    return started


def _done(match: dict[str, Any]) -> bool:
    return match["forfeit"] is not None or match["score_a"] is not None


async def kept_scores(server: TableServer, table: dict[str, Any]) -> tuple[int, int]:
    """A round table's final score from its kept game record (R15), replayed by the engine."""
    kept = await server.lobby.store.find_record(table["id"], table["game"])
    assert kept is not None, f"table {table['id']} has no kept game {table['game']}"
    scores = replay(Record.from_json(json.loads(kept.record)))["scores"]
    return int(scores[0]), int(scores[1])
