"""Table events: what happens at a table around the game (seats, options, the lock, stand-ins).

With the game events (``protocol.game_events``) they make the numbered log a viewer reads
(``server_messages.Event``); an event of a ``type`` this version does not know (a newer
server's) reads as `UnknownEvent`, to be skipped.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, TypeGuard, get_args

from pydantic import ConfigDict, Field, field_validator

from protocol.base import BotLevel, OptionValue, Seat, Team, TurnTimer, WireModel
from protocol.coach import HintsChanged
from protocol.game_events import GAME_EVENT_TYPES, GameEvent


class SeatTaken(WireModel):
    type: Literal["seat_taken"] = "seat_taken"
    seat: Seat
    name: str
    bot_level: BotLevel | None = None
    player: str | None = None  # the person's public id, if they gave a player key


class SeatFreed(WireModel):
    type: Literal["seat_freed"] = "seat_freed"
    seat: Seat
    reason: Literal["left", "stood", "kicked", "moved", "removed", "grace_expired"]


class SeatsSwapped(WireModel):
    type: Literal["seats_swapped"] = "seats_swapped"
    seat: Seat
    other: Seat


class OptionsChanged(WireModel):
    type: Literal["options_changed"] = "options_changed"
    profile: str
    options: dict[str, OptionValue]
    turn_timer: TurnTimer
    casual: bool = False


class LockChanged(WireModel):
    type: Literal["lock_changed"] = "lock_changed"
    locked: bool


class GameStarted(WireModel):
    type: Literal["game_started"] = "game_started"
    game: int
    names: list[str]


class StandIn(WireModel):
    """A bot starts (or stops) playing for a person's seat."""

    type: Literal["stand_in"] = "stand_in"
    seat: Seat
    active: bool
    reason: Literal["disconnected", "timeout", "returned", "kicked", "left"]


class Forfeited(WireModel):
    """A team's second missed deadline in a row at a turn-based table whose rule is
    ``forfeit``: the game ends at once and ``winner`` (the other team) wins it by forfeit, at
    ``scores`` (the points stay as played; ``docs/rules.md``, "Turn-based tables")."""

    type: Literal["forfeited"] = "forfeited"
    team: Team
    winner: Team
    scores: tuple[int, int]


class RematchAsked(WireModel):
    type: Literal["rematch_asked"] = "rematch_asked"
    seat: Seat


TableEvent = Annotated[
    SeatTaken
    | SeatFreed
    | SeatsSwapped
    | OptionsChanged
    | LockChanged
    | HintsChanged
    | GameStarted
    | StandIn
    | Forfeited
    | RematchAsked,
    Field(discriminator="type"),
]


KnownEvent = Annotated[TableEvent | GameEvent, Field(discriminator="type")]
"""A table event or a game event (``protocol.game_events``), told apart by ``type``."""


TABLE_EVENT_TYPES: Final[tuple[type[WireModel], ...]] = get_args(get_args(TableEvent)[0])


def is_table_event(event: object) -> TypeGuard[TableEvent]:
    """Tell a table event from a game event or an unknown one."""
    return isinstance(event, TABLE_EVENT_TYPES)


#: every event ``type`` this version knows
EVENT_KINDS: Final = frozenset(
    model.model_fields["type"].default for model in TABLE_EVENT_TYPES + GAME_EVENT_TYPES
)


class UnknownEvent(WireModel):
    """An event of a ``type`` this version does not know (a newer server's): read, then skipped.

    Its other fields are kept as they came. A known ``type`` with bad fields is an error, never
    an unknown event, so a malformed event is not silently dropped.
    """

    model_config = ConfigDict(extra="allow")

    type: str

    @field_validator("type")
    @classmethod
    def _not_known(cls, kind: str) -> str:
        if kind in EVENT_KINDS:
            raise ValueError(f"a {kind!r} event with the wrong fields")
        return kind
