"""Game records (R15): everything needed to replay a game exactly, as ``cuarenta-record/1``.

A record holds the rules (profile + the options given), the dealer draw, every hand's pack
and the actions. Actions stay in their JSON form until replayed, because R15 makes a bad
card code or seat in an action an *illegal action* at its index, not an invalid record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from engine.actions import check_action_shape
from engine.cards import DIAMONDS, card_code, parse_card
from engine.errors import IllegalAction, InvalidOptions, InvalidRecord
from engine.rules import DEFAULT_PROFILE, check_options, resolve_rules

FORMAT: Final = "cuarenta-record/1"


@dataclass(frozen=True, slots=True)
class Draw:
    """The public diamond draw (R3): cards dealt face up from ``start`` until the first diamond."""

    start: int
    cards: tuple[int, ...]

    def dealer(self, seats: int) -> int:
        """Return the first dealer: the seat that received the diamond."""
        return (self.start + len(self.cards) - 1) % seats


@dataclass(frozen=True, slots=True)
class Record:
    """A ``cuarenta-record/1`` game record (R15)."""

    profile: str = DEFAULT_PROFILE
    options: Mapping[str, object] = field(default_factory=dict)
    dealer: int | None = None
    draw: Draw | None = None
    packs: tuple[tuple[str, ...], ...] = ()
    actions: tuple[Mapping[str, Any], ...] = ()

    @property
    def first_dealer(self) -> int:
        """The first dealer, from ``dealer`` or the draw (they agree in a valid record)."""
        if self.dealer is not None:
            return self.dealer
        assert self.draw is not None, "a valid record has a dealer or a draw"
        return self.draw.dealer(resolve_rules(self.profile, self.options).seats)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object of the record."""
        out: dict[str, Any] = {"format": FORMAT, "profile": self.profile}
        out["options"] = dict(self.options)
        if self.dealer is not None:
            out["dealer"] = self.dealer
        if self.draw is not None:
            out["draw"] = {
                "start": self.draw.start,
                "cards": [card_code(card) for card in self.draw.cards],
            }
        out["packs"] = [list(pack) for pack in self.packs]
        out["actions"] = [dict(action) for action in self.actions]
        return out

    @classmethod
    def from_json(cls, obj: object) -> Record:
        """Read a record; anything that makes it unreadable raises `InvalidRecord` (R15)."""
        if not isinstance(obj, Mapping):
            raise InvalidRecord("R15", "a record is a JSON object")
        if obj.get("format") != FORMAT:
            raise InvalidRecord("R15", f"format must be {FORMAT!r}, not {obj.get('format')!r}")
        profile = obj.get("profile", DEFAULT_PROFILE)
        options = obj.get("options", {})
        try:
            if not isinstance(profile, str):
                raise InvalidOptions("R14", f"profile must be a name, not {profile!r}")
            check_options(profile, options)
            seats = resolve_rules(profile, options).seats
        except InvalidOptions as error:
            raise InvalidRecord(error.rule, error.reason) from None
        dealer = _read_dealer(obj.get("dealer"), seats)
        draw = _read_draw(obj.get("draw"), seats)
        if dealer is None and draw is None:
            raise InvalidRecord("R15", "a record needs a dealer or a draw")
        if dealer is not None and draw is not None and draw.dealer(seats) != dealer:
            raise InvalidRecord(
                "R3", f"the draw gives dealer {draw.dealer(seats)}, the record says {dealer}"
            )
        packs = obj.get("packs", [])
        if not isinstance(packs, list) or not all(
            isinstance(pack, list) and all(isinstance(code, str) for code in pack) for pack in packs
        ):
            raise InvalidRecord("R15", "packs must be a list of lists of card codes")
        actions = obj.get("actions", [])
        if not isinstance(actions, list):
            raise InvalidRecord("R15", "actions must be a list")
        for action in actions:
            check_action_shape(action)
        return cls(
            profile=profile,
            options=dict(options),
            dealer=dealer,
            draw=draw,
            packs=tuple(tuple(code.upper() for code in pack) for pack in packs),
            actions=tuple(dict(action) for action in actions),
        )


def _read_dealer(value: object, seats: int) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < seats:
        raise InvalidRecord("R15", f"dealer must be a seat 0-{seats - 1}, not {value!r}")
    return value


def _read_draw(value: object, seats: int) -> Draw | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidRecord("R3", "draw must be an object with start and cards")
    start, cards = value.get("start"), value.get("cards")
    if type(start) is not int or not 0 <= start < seats:
        raise InvalidRecord("R3", f"draw start must be a seat 0-{seats - 1}, not {start!r}")
    if not isinstance(cards, list) or not cards:
        raise InvalidRecord("R3", "draw cards must be a non-empty list of card codes")
    try:
        drawn = tuple(parse_card(code) for code in cards)
    except IllegalAction as error:
        raise InvalidRecord("R3", f"draw: {error.reason}") from None
    diamonds = [index for index, card in enumerate(drawn) if card & 3 == DIAMONDS]
    if len(set(drawn)) != len(drawn) or diamonds != [len(drawn) - 1]:
        raise InvalidRecord("R3", "draw cards must be distinct and stop at the first diamond")
    return Draw(start, drawn)
