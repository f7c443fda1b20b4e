"""Actions: what players (and the system: clock, referee) can do, with text and record forms.

One-line text forms (``str``), read back by `parse_action`:

>>> str(Play(0, parse_card("6S"), frozenset(map(parse_card, ["2C", "4D", "7H", "JC"]))))
'0 6S:2C,4D,7H,JC'
>>> parse_action("1 3D"), parse_action("2 claim 5"), parse_action("close-claims")
(parse_action('1 3D'), parse_action('2 claim 5'), parse_action('close-claims'))

Record forms (R15) are `to_json` dicts, read back by `action_from_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from engine.cards import RANKS, card_code, parse_card, parse_rank
from engine.errors import IllegalAction, InvalidRecord

CALLS: Final = ("ronda", "cuarenta", "pass")


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card``; ``take`` is every table card captured (basis and sequence), empty to trail."""

    seat: int
    card: int
    take: frozenset[int] = frozenset()
    mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        mask = 0
        for card in self.take:
            if type(card) is not int or not 0 <= card < 40:
                mask = -1  # not a card: never a legal capture (apply explains why)
                break
            mask |= 1 << card
        object.__setattr__(self, "mask", mask)

    def __str__(self) -> str:
        head = f"{self.seat} {card_code(self.card)}"
        if not self.take:
            return head
        return head + ":" + ",".join(card_code(card) for card in sorted(self.take))

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        take = [card_code(card) for card in sorted(self.take)]
        return {"type": "play", "seat": self.seat, "card": card_code(self.card), "take": take}


_SET_PLAY = tuple(Play.__dict__[name].__set__ for name in ("seat", "card", "take", "mask"))


def play_of_mask(seat: int, card: int, mask: int, take: frozenset[int]) -> Play:
    """Build ``Play(seat, card, take)`` whose ``mask`` is known (the engine's fast path)."""
    action: Play = object.__new__(Play)
    set_seat, set_card, set_take, set_mask = _SET_PLAY
    set_seat(action, seat)
    set_card(action, card)
    set_take(action, take)
    set_mask(action, mask)
    return action


@dataclass(frozen=True, slots=True)
class TakeMissed:
    """Take the missed sequence cards left by the other team's capture (R8)."""

    seat: int

    def __str__(self) -> str:
        return f"{self.seat} take-missed"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        return {"type": "take_missed", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Announce:
    """Announce ``ronda``, ``cuarenta`` or ``pass`` (R6, manual announcements)."""

    seat: int
    call: str

    def __str__(self) -> str:
        return f"{self.seat} announce {self.call}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        return {"type": "announce", "seat": self.seat, "call": self.call}


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim the +10 ronda-caída award by naming a rank (R10)."""

    seat: int
    rank: str

    def __str__(self) -> str:
        return f"{self.seat} claim {self.rank}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        return {"type": "claim", "seat": self.seat, "rank": self.rank}


@dataclass(frozen=True, slots=True)
class CloseClaims:
    """Close the claim window (R10): a system action, sent by the server's clock."""

    seat: None = None

    def __str__(self) -> str:
        return "close-claims"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        return {"type": "close_claims"}


@dataclass(frozen=True, slots=True)
class Misdeal:
    """Rule a misdeal (R5): a system action, sent by the table's referee."""

    seat: None = None

    def __str__(self) -> str:
        return "misdeal"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """Return the R15 record form."""
        return {"type": "misdeal"}


Action = Play | TakeMissed | Announce | Claim | CloseClaims | Misdeal

#: record type -> the fields it must carry (R15).
ACTION_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "play": ("seat", "card", "take"),
    "take_missed": ("seat",),
    "announce": ("seat", "call"),
    "claim": ("seat", "rank"),
    "close_claims": (),
    "misdeal": (),
}


def _seat(value: object) -> int:
    if type(value) is not int:
        raise IllegalAction("R1", f"seat {value!r} is not a seat number")
    return value


def check_action_shape(obj: object) -> None:
    """Raise `InvalidRecord` unless ``obj`` is an action object of a known type with its fields."""
    if not isinstance(obj, Mapping):
        raise InvalidRecord("R15", f"an action must be an object, not {obj!r}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise InvalidRecord("R15", f"unknown action type {kind!r}")
    for name in ACTION_FIELDS[kind]:
        if name not in obj:
            raise InvalidRecord("R15", f"a {kind} action needs the field {name!r}")


def action_from_json(obj: Mapping[str, Any]) -> Action:
    """Read an R15 record action; a bad shape is `InvalidRecord`, a bad value `IllegalAction`."""
    check_action_shape(obj)
    kind = obj["type"]
    if kind == "play":
        take = obj["take"]
        if not isinstance(take, list):
            raise IllegalAction("R15", f"take must be a list of card codes, not {take!r}")
        cards = [parse_card(code) for code in take]
        if len(set(cards)) != len(cards):
            raise IllegalAction("R7", "take names a card twice")
        return Play(_seat(obj["seat"]), parse_card(obj["card"]), frozenset(cards))
    if kind == "take_missed":
        return TakeMissed(_seat(obj["seat"]))
    if kind == "announce":
        call = obj["call"]
        if call not in CALLS:
            raise IllegalAction("R6", f"{call!r} is not an announcement (ronda, cuarenta, pass)")
        return Announce(_seat(obj["seat"]), call)
    if kind == "claim":
        rank = obj["rank"]
        return Claim(_seat(obj["seat"]), RANKS[parse_rank(rank)])
    if kind == "close_claims":
        return CloseClaims()
    return Misdeal()


def parse_action(text: str) -> Action:
    """Read an action's one-line text form (see the module docstring)."""
    words = text.split()
    if words == ["close-claims"]:
        return CloseClaims()
    if words == ["misdeal"]:
        return Misdeal()
    if len(words) < 2 or not words[0].isdigit():
        raise IllegalAction("R15", f"cannot read action {text!r}")
    seat = int(words[0])
    if words[1:] == ["take-missed"]:
        return TakeMissed(seat)
    if len(words) == 3 and words[1] == "announce" and words[2] in CALLS:
        return Announce(seat, words[2])
    if len(words) == 3 and words[1] == "claim":
        return Claim(seat, RANKS[parse_rank(words[2])])
    if len(words) == 2:
        card, _, take = words[1].partition(":")
        taken = frozenset(parse_card(code) for code in take.split(",")) if take else frozenset()
        return Play(seat, parse_card(card), taken)
    raise IllegalAction("R15", f"cannot read action {text!r}")
