"""A finished game, recorded for its people: history lines and, at a rated table, ratings.

The room calls ``GameRecorder.finished`` after the commit that ended a game (the outcome that
carries the game's kept record), never inside the referee: the seats are read at once, while
they are as the game ended, and the store's work runs in a task of its own, so the table's
loop never waits on it. ``Players.record_game`` settles a game once per (table, game): a finish
seen again (a table rebuilt from the store, taken over by another process) counts once.

Each person at the game is then sent ``rated``, at the connection holding their seat. A game
with a person at it is also reviewed by the coach (``server.coach.reviews``), off the table's path.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import structlog

from protocol import players as p
from server.coach.reviews import Reviews
from server.core.seating import SeatState
from server.core.table import Table
from server.people import FinishedGame, Players, Seat
from server.people.model import PROFILE_CLASSES
from server.people.routes import Deliver
from server.store.base import StoreError
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.core.outcome import Outcome
    from server.room import Room

log = structlog.get_logger("server.people")


def finished_game(table: Table, now: float) -> FinishedGame | None:
    """The table's game that just ended, as its people's records see it (None: no game).

    A game a team forfeited (``Table.ended``, a turn-based table's missed deadlines) is won by
    the other team, at the scores it stood at, as a game won by the rules would be."""
    game = table.game
    forfeited = table.ended["team"] if table.ended is not None else None
    if game is None or table.profile not in PROFILE_CLASSES:
        return None
    if game.winner is None and forfeited is None:
        return None
    teams: tuple[list[Seat], list[Seat]] = ([], [])
    people: set[str] = set()
    for index, seat in enumerate(table.seats):
        teams[game.team_of(index)].append(_seat(seat, people, table.config.stand_in_level))
    winner = game.winner if isinstance(game.winner, int) else None
    if forfeited is not None:
        winner = 1 - forfeited
    return FinishedGame(
        table_id=table.table_id,
        game=table.game_no,
        profile=table.profile,
        finished_at=now,
        casual=table.casual or table.solo,  # a solo ladder game is the ladder's (R14)
        teams=(tuple(teams[0]), tuple(teams[1])),
        scores=game.scores,
        winner=winner,
        forfeit=forfeited is not None,
    )


def _seat(seat: SeatState, people: set[str], stand_in_level: int) -> Seat:
    """A chair as the record keeps it; one person counts at one chair of a game at most."""
    if seat.occupant == "bot":
        return Seat(seat.name or "Bot", bot_level=seat.bot_level)
    if seat.occupant == "empty":  # its person left for good: the stand-in finished the game
        return Seat("Bot", bot_level=stand_in_level)
    player = seat.player if seat.player not in people else None
    if player is not None:
        people.add(player)
    return Seat(seat.name or "guest", player_id=player)


class GameRecorder:
    """Records finished games in tasks of their own, and tells each person their change."""

    def __init__(self, players: Players, deliver: Deliver, reviews: Reviews) -> None:
        self.players = players
        self.deliver = deliver
        self.reviews = reviews
        self._tasks: set[asyncio.Task[None]] = set()

    def finished(self, room: Room, outcome: Outcome) -> None:
        """Called by the room after committing ``outcome``, which ended a game."""
        table = room.referee.table
        game = finished_game(table, time.time())
        if game is None:
            return
        if outcome.record is not None and any(seat.occupant == "person" for seat in table.seats):
            people = {i: seat.player for i, seat in enumerate(table.seats) if seat.player}
            which = (game.table_id, game.game)
            self.reviews.start(which, outcome.record.record, people)
        task = asyncio.get_running_loop().create_task(self._record(room, game))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _record(self, room: Room, game: FinishedGame) -> None:
        try:
            await self._record_and_tell(room, game)
        except (StoreError, ValueError) as exc:  # a reload of the table offers it again
            log.warning("finished game not recorded", table=game.table_id, error=str(exc)[:200])

    async def _record_and_tell(self, room: Room, game: FinishedGame) -> None:
        changes = await self.players.record_game(game)
        cls = PROFILE_CLASSES[game.profile]
        for player_id, change in changes.items():
            found = await self.players.store.get(player_id)
            rating = None if found is None else found.ratings.get(cls)
            rated = p.Rated(
                table=game.table_id,
                game=game.game,
                profile_class=cls,
                casual=game.casual,
                change=change,
                rating=None if game.casual or rating is None else rating.shown,
            )
            for seat in room.referee.table.seats:
                if seat.player == player_id and seat.conn is not None:
                    self.deliver(seat.conn, rated)

    async def close(self) -> None:
        await cancel_and_wait(list(self._tasks))
