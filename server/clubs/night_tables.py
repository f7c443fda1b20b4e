"""A round's tables, driven as their host: open one, seat its bots, start it, read its result.

The night acts on a table the way a host does, through the referee's own requests (nothing is
done to a table that its host could not do): it watches with the table's host key under a
connection id no socket has, sends its requests, and leaves. People take their seats themselves
with the join link (``club_seat``); a seat still empty when the night starts the table (every
person arrived, or ``seat_wait_s`` passed) gets a bot of the stand-in level. A person who sat
down and left keeps the seat: the table's stand-in plays for them until they are back.

A turn-based round's tables are created turn-based (``Pace``: the round's move deadline, the
stand-in at a missed one). Such a table leaves memory while it waits for a move, and its
deadline brings it back (``server.waiting``): the driver reads its result from the store and
never loads it just to look.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from server.clubs.night import Place
from server.core.commands import Attach, Command, Detach, Request
from server.core.table import Pace
from server.errors import Refused
from server.lobby import Lobby
from server.room import Room
from server.store.base import StoreError
from server.waiting.card import public_entry

PROFILE = "pagat-4p"


async def as_host(room: Any, host_key: str, requests: list[c.ClientMessage]) -> None:
    """Run ``requests`` on ``room`` as its host; the first refused raises ``Refused``."""
    conn = f"club-{secrets.token_hex(6)}"
    commands: list[Command] = [Attach(conn, "club", c.Watch(key=host_key), "host")]
    commands += [Request(conn, request) for request in requests]
    try:
        for command in commands:
            await room.run(command)
    finally:
        await room.run(Detach(conn))


async def open_table(
    lobby: Lobby, places: list[Place], now: float, pace: dict[str, Any]
) -> dict[str, Any]:
    """A new table played at ``pace`` (``night.round_pace``) with the bots of ``places``
    seated; its entry in the night's document."""
    room = await lobby.create(PROFILE, {}, 0, pace=Pace(pace["move_deadline"], "stand_in"))
    keys = room.referee.table.keys
    bots = [c.AddBot(level=p.level, seat=p.seat) for p in places if p.level is not None]
    await as_host(room, keys["host"], list(bots))
    return {
        "id": room.table_id,
        "join": keys["join"],
        "watch": keys["watch"],
        "host": keys["host"],
        "game": 1,
        "started": False,
        "opened": now,
        "move_deadline": pace["move_deadline"],
        "places": [{"seat": p.seat, "name": p.name, "level": p.level} for p in places],
    }


async def start_when_ready(lobby: Lobby, entry: dict[str, Any], waited: bool, level: int) -> bool:
    """Start the table once every seat is taken, or (``waited``) with stand-ins in the empty
    ones; True once started (also if it already was). A turn-based table that left memory
    while its seats wait is not loaded to look: the person who sits down next loads it."""
    if not waited and entry.get("move_deadline") and lobby.loaded(entry["id"]) is None:
        return False
    room = await lobby.room(entry["id"])
    if not isinstance(room, Room):
        return False  # owned by another process: its own night driver starts it
    summary = room.summary
    if summary.in_game or summary.game_no >= entry["game"]:
        return True
    empty = [i for i, seat in enumerate(summary.seats) if seat.occupant == "empty"]
    if empty and not waited:
        return False
    requests: list[c.ClientMessage] = [c.AddBot(level=level, seat=seat) for seat in empty]
    try:
        await as_host(room, entry["host"], [*requests, c.Start()])
    except Refused:
        return False  # someone sat down meanwhile: try again on the next pass
    return True


async def result(lobby: Lobby, entry: dict[str, Any]) -> tuple[int, int] | None:
    """The final score (team 0, team 1) of the table's game ``entry['game']``, once kept."""
    kept = await lobby.store.find_record(entry["id"], entry["game"])
    if kept is None:
        if not entry.get("move_deadline"):  # a turn-based table comes back at its deadline
            await lobby.room(entry["id"])  # loaded here (after a restart): its game goes on
        return None
    scores = replay(Record.from_json(json.loads(kept.record)))["scores"]
    return int(scores[0]), int(scores[1])


async def scores_now(lobby: Lobby, entry: dict[str, Any]) -> tuple[int, int] | None:
    """The table's score as it stands (None: run by another process). A turn-based table
    waiting in the store is loaded to read it; a live one not loaded here runs elsewhere."""
    room: Any = lobby.loaded(entry["id"])
    if room is None and entry.get("move_deadline"):
        room = await lobby.room(entry["id"])
    if not isinstance(room, Room):
        return None
    scores = room.summary.scores
    return int(scores[0]), int(scores[1])


async def waiting_entry(lobby: Lobby, entry: dict[str, Any]) -> dict[str, Any] | None:
    """A turn-based table's seats, stage and score as its card on the waiting board has them
    (None: no card, or the store did not answer: the page shows the night's own entry)."""
    try:
        card = await lobby.waiting.board.card(entry["id"])
    except StoreError:
        return None
    return None if card is None else public_entry(card)


async def replay_tie(lobby: Lobby, entry: dict[str, Any]) -> dict[str, Any]:
    """A level knock-out game is played again at the same table: its next game is started."""
    room = await lobby.room(entry["id"])
    if isinstance(room, Room):
        await as_host(room, entry["host"], [c.Start()])
    return {**entry, "game": entry["game"] + 1}
