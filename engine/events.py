"""Events: what `Game.apply` reports, one value per thing that happened, in order.

Every event is a frozen value with a one-line ``str`` and a `to_json` dict carrying ``"type"``.
Some carry secrets (a `PacketDealt` holds every hand, an `Announced` ronda its rank): send them
to a viewer only through `engine.views.redact`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engine.cards import card_code, cards_text


def _codes(cards: Iterable[int]) -> list[str]:
    return [card_code(card) for card in sorted(cards)]


class _EventJson:
    """Mixin: the generic `to_json` of an event; card-valued fields are written as codes."""

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict with ``"type"``; cards as codes, ranks as letters."""
        out: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.CARD_FIELDS:
                if isinstance(value, int):
                    value = card_code(value)
                elif value is not None:
                    value = (
                        [None if hand is None else _codes(hand) for hand in value]
                        if f.name == "hands"
                        else _codes(value)
                    )
            elif isinstance(value, tuple):
                value = [list(item) if isinstance(item, tuple) else item for item in value]
            out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class DealerDrawn(_EventJson):
    """The public diamond draw (R3): cards dealt face up from ``start`` until the first diamond."""

    TYPE: ClassVar[str] = "dealer_drawn"
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"cards"})
    start: int
    cards: tuple[int, ...]
    dealer: int

    def __str__(self) -> str:
        shown = " ".join(card_code(card) for card in self.cards)
        return f"draw from seat {self.start}: {shown} -> dealer {self.dealer}"

    def to_json(self) -> dict[str, Any]:
        """The generic form, but the cards in the order they were dealt (R3, as in R15's draw)."""
        out = _EventJson.to_json(self)
        out["cards"] = [card_code(card) for card in self.cards]
        return out


@dataclass(frozen=True, slots=True)
class HandStarted(_EventJson):
    """A hand (R4) begins from a fresh pack; ``hand`` counts from 0, redeals included."""

    TYPE: ClassVar[str] = "hand_started"
    hand: int
    dealer: int

    def __str__(self) -> str:
        return f"hand {self.hand}, dealer {self.dealer}"


@dataclass(frozen=True, slots=True)
class PacketDealt(_EventJson):
    """A packet of 5 cards to every seat (R4); ``hands[seat]`` is None where redacted."""

    TYPE: ClassVar[str] = "packet_dealt"
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"hands"})
    hand: int
    packet: int
    dealer: int
    hands: tuple[tuple[int, ...] | None, ...]

    def __str__(self) -> str:
        shown = " | ".join("?" if hand is None else cards_text(hand) for hand in self.hands)
        return f"packet {self.packet} dealt: {shown}"


@dataclass(frozen=True, slots=True)
class Announced(_EventJson):
    """An announcement (R6): a ronda's ``rank`` is None where redacted; a cuarenta shows cards."""

    TYPE: ClassVar[str] = "announced"
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"cards"})
    seat: int
    call: str
    rank: str | None
    points: int
    cards: tuple[int, ...] = ()

    def __str__(self) -> str:
        rank = f" of {self.rank}" if self.rank else ""
        return f"{self.seat} announces {self.call}{rank} +{self.points}"


@dataclass(frozen=True, slots=True)
class Played(_EventJson):
    """A card played (R7): trailed when ``take`` is empty; caída, limpia and points per R9."""

    TYPE: ClassVar[str] = "played"
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"card", "take", "missed"})
    seat: int
    card: int
    take: tuple[int, ...]
    caida: bool
    limpia: bool
    points: int
    missed: tuple[int, ...] = ()

    def __str__(self) -> str:
        text = f"{self.seat} plays {card_code(self.card)}"
        if self.take:
            text += " takes " + cards_text(self.take)
        flags = [name for name, on in (("caída", self.caida), ("limpia", self.limpia)) if on]
        if flags:
            text += f" ({', '.join(flags)})"
        if self.points:
            text += f" +{self.points}"
        if self.missed:
            text += " missing " + cards_text(self.missed)
        return text


_new = object.__new__
_PLAYED_SLOTS = tuple(
    Played.__dict__[name].__set__
    for name in ("seat", "card", "take", "caida", "limpia", "points", "missed")
)


def played_event(
    seat: int,
    card: int,
    take: tuple[int, ...],
    caida: bool,
    limpia: bool,
    points: int,
    missed: tuple[int, ...],
) -> Played:
    """Build a `Played` without the frozen dataclass ``__init__`` (one per play: the hot path).

    Equal to ``Played(seat, card, take, caida, limpia, points, missed)``, about twice as fast:
    it fills the slots directly instead of going through ``object.__setattr__`` by name.
    """
    event: Played = _new(Played)
    s_seat, s_card, s_take, s_caida, s_limpia, s_points, s_missed = _PLAYED_SLOTS
    s_seat(event, seat)
    s_card(event, card)
    s_take(event, take)
    s_caida(event, caida)
    s_limpia(event, limpia)
    s_points(event, points)
    s_missed(event, missed)
    return event


@dataclass(frozen=True, slots=True)
class MissedTaken(_EventJson):
    """Missed sequence cards taken by the other team (R8): no turn, caída or limpia."""

    TYPE: ClassVar[str] = "missed_taken"
    CARD_FIELDS: ClassVar[frozenset[str]] = frozenset({"cards"})
    seat: int
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.seat} takes missed {cards_text(self.cards)}"


@dataclass(frozen=True, slots=True)
class ClaimsOpened(_EventJson):
    """The R10 claim window opens after the 40th card of a hand."""

    TYPE: ClassVar[str] = "claims_opened"
    hand: int

    def __str__(self) -> str:
        return f"claim window opens (hand {self.hand})"


@dataclass(frozen=True, slots=True)
class Claimed(_EventJson):
    """A claim (R10): ``valid`` uses an event; ``points`` is 10 below 30, else 0."""

    TYPE: ClassVar[str] = "claimed"
    seat: int
    rank: str
    valid: bool
    points: int

    def __str__(self) -> str:
        verdict = f"valid +{self.points}" if self.valid else "wrong"
        return f"{self.seat} claims {self.rank}: {verdict}"


@dataclass(frozen=True, slots=True)
class ClaimsClosed(_EventJson):
    """The claim window closes; unclaimed events lapse (R10)."""

    TYPE: ClassVar[str] = "claims_closed"

    def __str__(self) -> str:
        return "claim window closes"


@dataclass(frozen=True, slots=True)
class Awarded(_EventJson):
    """An automatic R10 award (``special_claims = auto``)."""

    TYPE: ClassVar[str] = "awarded"
    team: int
    rank: str
    points: int

    def __str__(self) -> str:
        return f"team {self.team} awarded ronda-caída of {self.rank} +{self.points}"


@dataclass(frozen=True, slots=True)
class HandCounted(_EventJson):
    """The count (R11) and the hand summary: ``rondas`` are (packet, seat, rank), now public."""

    TYPE: ClassVar[str] = "hand_counted"
    hand: int
    dealer: int
    piles: tuple[int, int]
    points: tuple[int, int]
    rondas: tuple[tuple[int, int, str], ...]

    def __str__(self) -> str:
        return f"count: piles {self.piles[0]}-{self.piles[1]}, +{self.points[0]}/+{self.points[1]}"


@dataclass(frozen=True, slots=True)
class MisdealRuled(_EventJson):
    """A misdeal (R5) by ``dealer``: ``penalty`` applied, ``points`` to the other team."""

    TYPE: ClassVar[str] = "misdeal_ruled"
    dealer: int
    penalty: str
    points: int
    reason: str

    def __str__(self) -> str:
        return f"misdeal by {self.dealer} ({self.reason}): {self.penalty}, +{self.points}"


@dataclass(frozen=True, slots=True)
class GameOver(_EventJson):
    """The game ends (R12): ``winner`` is a team, or ``"draw"`` (R14 heads-up only)."""

    TYPE: ClassVar[str] = "game_over"
    winner: int | str
    scores: tuple[int, int]
    reason: str

    def __str__(self) -> str:
        return f"game over: {self.winner} wins {self.scores[0]}-{self.scores[1]} ({self.reason})"


Event = (
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
    | GameOver
)
