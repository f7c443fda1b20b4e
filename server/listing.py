"""The public tables live now and each club's finished games, where every process sees them.

Each process lists the tables it owns (``Lobby.rooms``) that were opened as *public* or belong to
a club (``--clubs``): a short summary (profile, players' names, scores, piles, spectators, the
watch key) written to a board every ``PERIOD_S`` when it changed and at least every
``REFRESH_S``. With the memory store the board is this process's dictionary; with Redis it is
one hash (``cuarenta:{listing}``) every process reads, so ``/tables`` on any process shows the
tables of all; an entry not refreshed for ``STALE_S`` (its owner died) is left out until the
table's new owner lists it. Private tables are never written to the board at all.

When a club table's game has ended, its owner also keeps the game's **result** (date, table,
players by seat and team, final score, winner, the hands' count) under the club: written once
per game (``HSETNX``), by whichever process owns the table, for the club page and its export.
Names and dates are not in the R15 record, so they are taken here, when the game ends.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog

from engine.record import Record
from engine.replay import replay
from server.core.summary import TableSummary
from server.store.base import Store

log = structlog.get_logger("server.listing")
PERIOD_S = 0.2  # a new public table is listed within this (plus the board's round trip)
REFRESH_S = 2.0
STALE_S = 6.0
RESULT_TTL_S = 90 * 24 * 3600
LISTING_KEY = "cuarenta:{listing}"


def results_key(club: str) -> str:
    return f"cuarenta:{{club:{club}}}:results"


class Owned(Protocol):
    """A table this process owns, as the listing sees it (``server.room.Room``): the summary
    its last stored outcome carried (read without the room's lock: a frozen value)."""

    @property
    def summary(self) -> TableSummary: ...


class Board(Protocol):
    """Where the listing and the clubs' results live (one process, or Redis for all)."""

    async def put(self, entries: dict[str, bytes]) -> None: ...
    async def remove(self, table_ids: Iterable[str]) -> None: ...
    async def entries(self) -> list[bytes]: ...
    async def add_result(self, club: str, game: str, result: bytes) -> None: ...
    async def results(self, club: str) -> list[bytes]: ...


@dataclass
class MemoryBoard:
    """The board of a single process (the memory store)."""

    listed: dict[str, bytes] = field(default_factory=dict)
    kept: dict[str, dict[str, bytes]] = field(default_factory=dict)

    async def put(self, entries: dict[str, bytes]) -> None:
        self.listed.update(entries)

    async def remove(self, table_ids: Iterable[str]) -> None:
        for table_id in table_ids:
            self.listed.pop(table_id, None)

    async def entries(self) -> list[bytes]:
        return list(self.listed.values())

    async def add_result(self, club: str, game: str, result: bytes) -> None:
        self.kept.setdefault(club, {}).setdefault(game, result)

    async def results(self, club: str) -> list[bytes]:
        return list(self.kept.get(club, {}).values())


class RedisBoard:
    """The board in Redis, shared by every process of a deployment."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def put(self, entries: dict[str, bytes]) -> None:
        await self.client.hset(LISTING_KEY, mapping=entries)

    async def remove(self, table_ids: Iterable[str]) -> None:
        ids = list(table_ids)
        if ids:
            await self.client.hdel(LISTING_KEY, *ids)

    async def entries(self) -> list[bytes]:
        return list(await self.client.hvals(LISTING_KEY))

    async def add_result(self, club: str, game: str, result: bytes) -> None:
        if await self.client.hsetnx(results_key(club), game, result):
            await self.client.expire(results_key(club), int(RESULT_TTL_S))

    async def results(self, club: str) -> list[bytes]:
        return list(await self.client.hvals(results_key(club)))


def board_for(store: Store) -> Board:
    """A Redis store's shared board, else one for this process."""
    client = getattr(store, "client", None)
    return MemoryBoard() if client is None else RedisBoard(client)


class Listing:
    """Publishes this process's public and club tables; reads everyone's."""

    def __init__(
        self,
        board: Board,
        rooms: Callable[[], Mapping[str, Owned]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.board = board
        self.rooms = rooms  # table id -> Room (the tables this process owns)
        self.clock = clock
        self._sent: dict[str, dict[str, Any]] = {}
        self._sent_at = 0.0
        self._kept: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="listing")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        try:
            await self.board.remove(list(self._sent))
        except Exception:  # the board may be gone (Redis down): entries go stale by themselves
            log.warning("listing not withdrawn")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(PERIOD_S)  # a polling period, not a synchronisation
            try:
                await self.publish()
            except Exception:  # the board unreachable (Redis down): say so once, keep trying
                if not self._failing:
                    log.exception("listing the tables failed; retrying until it works")
                self._failing = True
            else:
                if self._failing:
                    log.info("listing the tables works again")
                self._failing = False

    async def publish(self) -> None:
        """Write what changed in this process's listed tables; keep the clubs' new results."""
        now = self.clock()
        live: dict[str, dict[str, Any]] = {}
        for table_id, room in list(self.rooms().items()):
            table = room.summary
            club = table.club
            if not (table.public or club):
                continue  # private: never on the board
            live[table_id] = entry_of(table)
            if club and table.finished_record is not None and not table.in_game:
                # between a game's end and the next one's start: the record is this game's
                await self._keep_result(club, table, now)
        refresh = now - self._sent_at >= REFRESH_S
        changed = {
            table_id: json.dumps({**entry, "at": now}).encode()
            for table_id, entry in live.items()
            if refresh or self._sent.get(table_id) != entry
        }
        gone = [table_id for table_id in self._sent if table_id not in live]
        if changed:
            await self.board.put(changed)
        if gone:
            await self.board.remove(gone)
        if refresh:
            self._sent_at = now
        self._sent = live

    async def _keep_result(self, club: str, table: TableSummary, now: float) -> None:
        game_key = f"{table.table_id}:{table.game_no}"
        if game_key in self._kept:
            return
        await self.board.add_result(club, game_key, json.dumps(result_of(table, now)).encode())
        self._kept.add(game_key)

    async def tables(self, club: str | None = None) -> list[dict[str, Any]]:
        """The live listed tables: the public ones, or (``club``) that club's."""
        oldest = self.clock() - STALE_S
        found = []
        for raw in await self.board.entries():
            entry = json.loads(raw)
            if entry["at"] < oldest:
                continue
            if (entry["club"] == club) if club else entry["public"]:
                found.append(entry)
        return sorted(found, key=lambda entry: (entry["club"] or "", entry["table"]))

    async def results(self, club: str) -> list[dict[str, Any]]:
        """Every kept result of ``club``'s games, oldest first."""
        kept = [json.loads(raw) for raw in await self.board.results(club)]
        return sorted(kept, key=lambda result: (result["ended"], result["table"], result["game"]))


def entry_of(table: TableSummary) -> dict[str, Any]:
    """What the lobby shows of a table: public information only (a spectator's)."""
    return {
        "table": table.table_id,
        "profile": table.profile,
        "club": table.club,
        "public": table.public,
        "watch": table.watch,
        "join": table.join,
        "stage": table.stage,
        "game": table.game_no,
        "seats": [
            {"name": seat.name, "occupant": seat.occupant, "bot_level": seat.bot_level}
            for seat in table.seats
        ],
        "scores": list(table.scores),
        "piles": list(table.piles),
        "spectators": table.spectators,
        # shown before anyone sits: turn-based (seconds per move, 0 live) and the deadline's rule
        "move_deadline": table.move_deadline,
        "on_deadline": table.on_deadline,
    }


def result_of(table: TableSummary, now: float) -> dict[str, Any]:
    """A finished club game's result line: names and date from the table, the rest from R15."""
    record = table.finished_record
    if record is None:
        raise ValueError(f"table {table.table_id} has no finished game")
    replayed = replay(Record.from_json(record))
    seats = len(table.seats)
    players = [
        {"seat": index, "team": index % 2, "name": seat.name or "", "bot_level": seat.bot_level}
        for index, seat in enumerate(table.seats)
    ]
    return {
        "ended": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"),
        "table": table.table_id,
        "game": table.game_no,
        "profile": table.profile,
        "seats": seats,
        "players": players,
        "scores": replayed["scores"],
        # a forfeit (a turn-based team's missed deadlines) ends what the record does not
        "winner": replayed["winner"] if table.forfeited is None else 1 - table.forfeited,
        "forfeited_by": table.forfeited,  # the team (not a club pair: a night's no-show)
        "hands": replayed["hands"],
    }
