"""Who sits where and who watches: seats, seat tokens, viewers and their rate limits.

A seat holds nobody, a person (with a seat token, the credential for every reconnect) or a bot
of some level. A person's seat can be *stood in* for by a bot — while the person is away (they
disconnected, left or were kicked during a game) — and a seat is *open* during a game when its
person is gone for good (grace expired, left, kicked): then a newcomer through the join link may
take it over, and until then the stand-in keeps playing (ARCHITECTURE invariant 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Occupant = Literal["empty", "person", "bot"]


@dataclass(slots=True)
class SeatState:
    """One chair. ``conn`` and ``away_since`` describe the live connection, not the game."""

    occupant: Occupant = "empty"
    name: str | None = None
    bot_level: int | None = None
    token: str | None = None
    conn: str | None = None  # the connection holding the seat now (never persisted)
    away_since: float | None = None  # when the person's connection went away
    stand_in: bool = False  # a bot is playing for the person
    open: bool = False  # during a game: the person is gone; a newcomer may take the seat
    host: bool = False  # the person sat down with the host key: a resume keeps host rights
    player: str | None = None  # the person's public id (public; a guest without a key: None)
    #: stand_in set by a rebuild from the store (everyone starts away), not by an event: nobody
    #: was told, so a resume right after (``Reattach``) announces no "returned" (never persisted)
    restored: bool = False

    @property
    def is_bot_controlled(self) -> bool:
        return self.occupant == "bot" or (self.occupant == "person" and self.stand_in)

    @property
    def connected(self) -> bool:
        return self.occupant == "bot" or self.conn is not None

    def seat_person(
        self, name: str, token: str, conn: str, host: bool = False, player: str | None = None
    ) -> None:
        self.occupant, self.name, self.bot_level, self.token = "person", name, None, token
        self.conn, self.away_since, self.stand_in, self.open = conn, None, False, False
        self.host, self.restored, self.player = host, False, player

    def seat_bot(self, level: int, name: str) -> None:
        self.occupant, self.name, self.bot_level, self.token = "bot", name, level, None
        self.conn, self.away_since, self.stand_in, self.open = None, None, False, False
        self.host, self.restored, self.player = False, False, None

    def clear(self) -> None:
        self.seat_bot(0, "")
        self.occupant, self.name, self.bot_level = "empty", None, None

    def to_json(self) -> dict[str, Any]:
        return {
            "occupant": self.occupant,
            "name": self.name,
            "bot_level": self.bot_level,
            "token": self.token,
            "away_since": self.away_since,
            "stand_in": self.stand_in,
            "open": self.open,
            "host": self.host,
            "player": self.player,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], now: float) -> SeatState:
        """Restore a seat; after a restart nobody is connected, so every person is away now."""
        seat = cls(
            occupant=data["occupant"],
            name=data["name"],
            bot_level=data["bot_level"],
            token=data["token"],
            away_since=data["away_since"],
            stand_in=data["stand_in"],
            open=data["open"],
            host=data.get("host", False),
            player=data.get("player"),
        )
        if seat.occupant == "person" and seat.away_since is None:
            seat.away_since = now
        return seat


@dataclass(slots=True)
class TokenBucket:
    """Allow ``rate`` per second with bursts of ``burst``; time is passed in (sans-I/O)."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = 0.0

    def allow(self, now: float) -> bool:
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass(slots=True)
class Viewer:
    """One connection at a table: a seated player or a spectator (possibly the host)."""

    conn: str
    name: str
    chat: TokenBucket
    seat: int | None = None
    host: bool = False
    can_sit: bool = False  # came through the join link or the host key
    player: str | None = None  # the person's public id (from the connection's player key)
    version: int = 3  # the protocol its connection speaks (``hello``): 4 is sent ``change``
    told_you: bytes | None = None  # protocol 4: the ``You`` it was last sent (encoded)


def first_free(seats: list[SeatState], in_game: bool) -> int | None:
    """The first chair a newcomer may take: empty, or (during a game) open."""
    for index, seat in enumerate(seats):
        if seat.occupant == "empty" or (in_game and seat.occupant == "person" and seat.open):
            return index
    return None


def is_free(seat: SeatState, in_game: bool) -> bool:
    return seat.occupant == "empty" or (in_game and seat.occupant == "person" and seat.open)
