"""The engine's events as the wire carries them, typed: what ``event.event`` holds when it is not
a table event (``table_events.TableEvent``); ``server_messages.Event`` reads them as these.

Each is the JSON form of an ``engine.events`` event (``to_json``: cards as codes, ranks as
letters), already redacted for its viewer (a ``packet_dealt`` holds only the viewer's own hand,
an ``announced`` ronda no rank until the hand is counted); the models' fields are in the order
``to_json`` writes them, so a decoded event encodes to the same bytes. An event of a type a
client does not know (a newer server's) reads as ``table_events.UnknownEvent``, to be
skipped. PROTOCOL.md lists them with an example each (``python -m protocol.doc``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeGuard, get_args

from pydantic import Field, TypeAdapter

from protocol.base import CardCode, RankCode, Seat, Team, WireModel


class DealerDrawn(WireModel):
    """R3: cards drawn one per seat from ``start`` until the dealer is found."""

    type: Literal["dealer_drawn"] = "dealer_drawn"
    start: Seat
    cards: list[CardCode]
    dealer: Seat


class HandStarted(WireModel):
    type: Literal["hand_started"] = "hand_started"
    hand: int
    dealer: Seat


class PacketDealt(WireModel):
    """Every seat's new cards; a viewer is sent its own hand only (the others are null)."""

    type: Literal["packet_dealt"] = "packet_dealt"
    hand: int
    packet: int
    dealer: Seat
    hands: list[list[CardCode] | None]


class Announced(WireModel):
    """A ronda (its ``rank`` null until the hand is counted, R6), a cuarenta (its ``cards``) or
    a pass."""

    type: Literal["announced"] = "announced"
    seat: Seat
    call: Literal["ronda", "cuarenta", "pass"]
    rank: RankCode | None
    points: int
    cards: list[CardCode] = Field(default_factory=list)


class Played(WireModel):
    """A card played: what it took (empty: a trail), caída and limpia (R9), points scored, and
    the cards it missed (R8)."""

    type: Literal["played"] = "played"
    seat: Seat
    card: CardCode
    take: list[CardCode]
    caida: bool
    limpia: bool
    points: int
    missed: list[CardCode] = Field(default_factory=list)


class MissedTaken(WireModel):
    """R8: the other team took the cards a capture missed."""

    type: Literal["missed_taken"] = "missed_taken"
    seat: Seat
    cards: list[CardCode]


class ClaimsOpened(WireModel):
    """R10: the claim window of hand ``hand`` is open."""

    type: Literal["claims_opened"] = "claims_opened"
    hand: int


class Claimed(WireModel):
    type: Literal["claimed"] = "claimed"
    seat: Seat
    rank: RankCode
    valid: bool
    points: int


class ClaimsClosed(WireModel):
    type: Literal["claims_closed"] = "claims_closed"


class Awarded(WireModel):
    """R10: points a team was awarded for a rank (a valid claim, or ``special_claims=auto``)."""

    type: Literal["awarded"] = "awarded"
    team: Team
    rank: RankCode
    points: int


class HandCounted(WireModel):
    """R11: each team's pile and points at the count; ``rondas`` the hand's rondas as
    ``[packet, seat, rank]``, ranks revealed."""

    type: Literal["hand_counted"] = "hand_counted"
    hand: int
    dealer: Seat
    piles: tuple[int, int]
    points: tuple[int, int]
    rondas: list[tuple[int, Seat, RankCode]]


class MisdealRuled(WireModel):
    """R5: a misdeal by ``dealer``, its penalty and the other team's points."""

    type: Literal["misdeal_ruled"] = "misdeal_ruled"
    dealer: Seat
    penalty: str
    points: int
    reason: str


class GameOver(WireModel):
    type: Literal["game_over"] = "game_over"
    winner: Team | Literal["draw"]
    scores: tuple[int, int]
    reason: str


GameEvent = Annotated[
    DealerDrawn
    | HandStarted
    | PacketDealt
    | Announced
    | Played
    | MissedTaken
    | ClaimsOpened
    | Claimed
    | ClaimsClosed
    | Awarded
    | HandCounted
    | MisdealRuled
    | GameOver,
    Field(discriminator="type"),
]

GAME_EVENT: Final[TypeAdapter[GameEvent]] = TypeAdapter(GameEvent)
#: the models of `GameEvent`
GAME_EVENT_TYPES: Final[tuple[type[WireModel], ...]] = get_args(get_args(GameEvent)[0])


def is_game_event(event: object) -> TypeGuard[GameEvent]:
    """Tell a game event from a table event or an unknown one."""
    return isinstance(event, GAME_EVENT_TYPES)


def game_event(fields: Mapping[str, Any]) -> GameEvent:
    """Read an engine event's wire form into its model (``pydantic.ValidationError`` if it is
    none of them)."""
    return GAME_EVENT.validate_python(fields)
