"""The mutable game state: every field a game holds, its copy, fingerprint and invariants.

`GameState` is the data; `engine.game.Game` adds the rules that change it. Cards are ints
(`engine.cards`); the table is kept twice, as a list in the order cards were laid (the
public view, R8's "longer on the table") and as per-rank lists (`by_rank`) for capture
enumeration. Everything is a list of small ints so `copy` is a handful of slice copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final

from engine.actions import Action
from engine.captures import low_code
from engine.cards import codes
from engine.phase import Phase
from engine.rules import Rules

#: A play or missed-cards take as kept in the hand's public history:
#: (packet, seat, card or -1 for a missed-cards take, cards taken, caída).
HistoryEntry = tuple[int, int, int, tuple[int, ...], bool]


@dataclass(frozen=True, slots=True)
class Hidden:
    """A guess of what one seat cannot see: the other hands and the cards still to be dealt.

    ``hands[seat]`` for every seat (the viewer's own entry is ignored); ``stock`` is the rest
    of this hand's pack, top first.
    """

    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


def _how(
    start: str, copy: str = "share", key: str | None = "", hand: str | None = None
) -> dict[str, str | None]:
    """A `GameState` field's metadata: how it starts, how `copy` copies it, how it is compared.

    ``start`` is its value in a blank state, an expression over `GameState._init_state`'s
    arguments and ``seats``. ``copy``: ``share`` (a value, or a list replaced and never
    changed), ``list`` (a list of values), ``lists`` (a list of lists), ``cache`` (a copy starts
    it empty). ``key``, its form in the fingerprint: ``value``, ``tuple``, ``tuples``, ``items``
    (a dict), None (derived or a cache: left out), or "" for the one its copy implies.
    ``hand``: its value when a hand starts (`_reset_hand`: "start" for ``start``), None for a
    field a hand does not reset.
    """
    if copy not in _COPY_FORMS:
        raise ValueError(f"unknown copy kind {copy!r}")
    implied = {"share": "value", "list": "tuple", "lists": "tuples", "cache": None}[copy]
    reset = start if hand == "start" else hand
    return {"start": start, "copy": copy, "key": implied if key == "" else key, "hand": reset}


#: How a field of each copy kind is copied into ``other`` (the generated `_copy_state_into`).
_COPY_FORMS: Final = {
    "share": "self.{0}",
    "list": "self.{0}[:]",
    "lists": "[each[:] for each in self.{0}]",
    "cache": "{{}}",
}
#: A field's form in the fingerprint (the generated `fingerprint`).
_KEY_FORMS: Final = {
    "value": "self.{0}",
    "tuple": "tuple(self.{0})",
    "tuples": "tuple(map(tuple, self.{0}))",
    "items": "tuple(sorted(self.{0}.items()))",
}


@dataclass(init=False, repr=False, eq=False, match_args=False, slots=True)
class GameState:
    """Every field of a game; see `engine.game.Game` for what they mean in play.

    The fields below are the one list of them: the slots, the blank state (`_init_state`), the
    copy (`_copy_state_into`), the fingerprint and the reset of a new hand (`_reset_hand`) are
    generated from it at import time (plain straight-line functions, as fast as written out),
    so a new field is one line here.
    """

    rules: Rules = field(metadata=_how("rules"))
    options: dict[str, object] = field(metadata=_how("options", key="items"))
    #: third: the tests compare fingerprints but for it
    _pack_seed: int | None = field(metadata=_how("pack_seed"))
    packs: list[tuple[str, ...]] = field(metadata=_how("packs", "list"))
    _next_pack: int = field(metadata=_how("0"))
    draw_start: int | None = field(metadata=_how("draw_start"))
    draw_cards: tuple[int, ...] = field(metadata=_how("draw_cards"))
    dealer: int = field(metadata=_how("dealer"))
    first_dealer: int = field(metadata=_how("dealer"))
    hand_number: int = field(metadata=_how("-1"))
    packet: int = field(metadata=_how("-1", hand="start"))
    #: never changed: a hand's pack is replaced, not changed
    _pack: list[int] = field(metadata=_how("[]", key="tuple", hand="start"))
    _deal_pos: int = field(metadata=_how("0", hand="start"))
    _hands: list[list[int]] = field(
        metadata=_how("[[] for _ in range(seats)]", "lists", hand="start")
    )
    _packet_hands: list[tuple[int, ...]] = field(
        metadata=_how("[() for _ in range(seats)]", "list")
    )
    _ronda: list[int] = field(metadata=_how("[-1] * seats", "list"))
    _four: list[int] = field(metadata=_how("[-1] * seats", "list"))
    _ronda_caught: list[bool] = field(metadata=_how("[False] * seats", "list"))
    _table: list[int] = field(metadata=_how("[]", "list", hand="start"))
    _by_rank: list[list[int]] = field(
        metadata=_how("[[] for _ in range(10)]", "lists", hand="start")
    )
    #: `_by_rank`'s counts of A-6 in base 5 (`engine.captures.low_code`), kept up to date by
    #: every change of the table; -1 until known (a table laid from outside, as by
    #: `engine.determinize`, after `_init_state`), and then derived on first use.
    _low: int = field(metadata=_how("-1", key=None, hand="0"))
    _piles: list[list[int]] = field(metadata=_how("[[], []]", "lists", hand="start"))
    _scores: list[int] = field(metadata=_how("[0, 0]", "list"))
    _turn: int | None = field(metadata=_how("None"))
    _phase: Phase = field(metadata=_how("Phase.WAITING"))
    _last_trail: int = field(metadata=_how("-1", hand="start"))
    _missed: list[int] = field(metadata=_how("[]", "list", hand="start"))
    _missed_team: int = field(metadata=_how("-1", hand="start"))
    _r10: list[tuple[int, int]] = field(metadata=_how("[]", "list", hand="start"))
    _claims_ended: list[bool] = field(metadata=_how("[False, False]", "list", hand="start"))
    _claims_made: list[tuple[int, str, bool]] = field(metadata=_how("[]", "list", hand="start"))
    _announce_queue: list[int] = field(metadata=_how("[]", "list"))
    _announced: list[tuple[int, str]] = field(metadata=_how("[]", "list", hand="start"))
    _hand_rondas: list[tuple[int, int, int]] = field(metadata=_how("[]", "list", hand="start"))
    _cuarenta: tuple[int, tuple[int, ...]] | None = field(metadata=_how("None", hand="start"))
    _history: list[HistoryEntry] = field(metadata=_how("[]", "list", hand="start"))
    _played_in_packet: int = field(metadata=_how("0", hand="start"))
    _winner: int | str | None = field(metadata=_how("None"))
    _counted: list[tuple[int, tuple[int, int]]] = field(metadata=_how("[]", "list"))
    _actions: list[Action] = field(metadata=_how("[]", "list"))
    _discarded: list[int] = field(metadata=_how("[]", "list", hand="start"))
    #: the captures listed for this very state, per played rank (`engine.legal`)
    _caps: dict[int, Any] = field(metadata=_how("{}", "cache"))
    start_events: tuple[Any, ...] = field(metadata=_how("()", key=None))

    if TYPE_CHECKING:  # generated from the fields below the class (`_generated`)

        def _init_state(
            self,
            rules: Rules,
            options: dict[str, object],
            pack_seed: int | None,
            packs: list[tuple[str, ...]],
            dealer: int,
            draw_start: int | None,
            draw_cards: tuple[int, ...],
        ) -> None: ...

        def _copy_state_into(self, other: GameState) -> None: ...

        def _reset_hand(self) -> None: ...

        def fingerprint(self) -> tuple[Any, ...]: ...

    # ------------------------------------------------------------------ public state
    @property
    def phase(self) -> Phase:
        """What the game waits for."""
        return self._phase

    @property
    def turn(self) -> int | None:
        """The seat to play or announce, or None (claim window, waiting, finished)."""
        return self._turn

    @property
    def scores(self) -> tuple[int, int]:
        """The two teams' scores."""
        return self._scores[0], self._scores[1]

    @property
    def pile_sizes(self) -> tuple[int, int]:
        """The number of cards in each team's pile this hand."""
        return len(self._piles[0]), len(self._piles[1])

    @property
    def table(self) -> tuple[int, ...]:
        """The table cards in the order they were laid."""
        return tuple(self._table)

    @property
    def winner(self) -> int | str | None:
        """The winning team, ``"draw"`` (R14 heads-up), or None while the game goes on."""
        return self._winner

    @property
    def caida_target(self) -> int | None:
        """The card the previous player just trailed in this packet (R9), if any."""
        return None if self._last_trail < 0 else self._last_trail

    @property
    def missed(self) -> tuple[int, ...]:
        """Missed sequence cards the other team may take now (R8)."""
        return tuple(self._missed)

    @property
    def r10_open(self) -> tuple[tuple[int, int], ...]:
        """Unclaimed R10 events (team, rank index) of this hand whose team may still claim."""
        return tuple(e for e in self._r10 if not self._claims_ended[e[0]])

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied so far, in order (the record's ``actions``)."""
        return tuple(self._actions)

    @property
    def counted_hands(self) -> tuple[tuple[int, tuple[int, int]], ...]:
        """(dealer, pile sizes) of every hand that reached its count (R11, R15 ``hands``)."""
        return tuple(self._counted)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards in a seat's hand (secret: views show it only to its owner)."""
        return tuple(self._hands[seat])

    def team_of(self, seat: int) -> int:
        """Return a seat's team (R1: seats 0 and 2 are team 0; R14: team = seat)."""
        return seat & 1

    def __str__(self) -> str:
        hands = " | ".join(" ".join(codes(sorted(hand))) for hand in self._hands)
        table = " ".join(codes(self._table)) or "-"
        return (
            f"{self.rules.profile} {self._phase} hand {self.hand_number} packet {self.packet} "
            f"dealer {self.dealer} turn {self._turn} scores {self._scores[0]}-{self._scores[1]} "
            f"table [{table}] hands [{hands}]"
        )

    def check_invariants(self) -> None:
        """Raise AssertionError if the state breaks an invariant of ours (tests and debugging)."""
        if not self._pack:
            return
        everywhere = (
            [card for hand in self._hands for card in hand]
            + self._table
            + self._piles[0]
            + self._piles[1]
            + self._pack[self._deal_pos :]
            + self._discarded
        )
        assert sorted(everywhere) == list(range(40)), "R4: the hand's 40 cards are conserved"
        assert sorted(self._table) == sorted(c for cards in self._by_rank for c in cards)
        assert self._low in (-1, low_code(self._by_rank)), "the low counts follow the table"
        assert all(score % 2 == 0 for score in self._scores), "R12: scores are even"
        assert set(self._missed) <= set(self._table), "R8: missed cards lie on the table"


_GENERATED_DOCS: Final = {
    "_init_state": "Make this a blank state: every field at its ``start``.",
    "_copy_state_into": "Fill ``other`` with a copy of this state (lists copied, values shared).",
    "fingerprint": "Return every field of the state as nested tuples (equal states, equal"
    " fingerprints); derived fields and caches are left out.",
    "_reset_hand": "Empty everything a hand holds (R4): each field at its ``hand`` value.",
}


def _generated(cls: type[GameState]) -> dict[str, Any]:
    """Write `_init_state`, `_copy_state_into`, `fingerprint` and `_reset_hand` from ``cls``'s
    fields."""
    forms = [(each.name, each.metadata) for each in fields(cls)]
    for name, meta in forms:
        if "copy" not in meta:
            raise TypeError(f"GameState.{name} must be declared with field(metadata=_how(...))")
    init = [f"    self.{name} = {meta['start']}" for name, meta in forms]
    copy = [f"    other.{name} = {_COPY_FORMS[meta['copy']].format(name)}" for name, meta in forms]
    keys = [_KEY_FORMS[meta["key"]].format(name) for name, meta in forms if meta["key"]]
    reset = [f"    self.{name} = {meta['hand']}" for name, meta in forms if meta["hand"]]
    source = "\n".join(
        [
            "def _init_state(self, rules, options, pack_seed, packs, dealer, draw_start,"
            " draw_cards):",
            "    seats = rules.seats",
            *init,
            "def _copy_state_into(self, other):",
            *copy,
            "def fingerprint(self):",
            "    return (" + ", ".join(keys) + ",)",
            "def _reset_hand(self):",
            "    seats = self.rules.seats",
            *reset,
        ]
    )
    namespace: dict[str, Any] = {"Phase": Phase}
    exec(compile(source, f"<{cls.__qualname__} fields>", "exec"), namespace)
    made = {name: namespace[name] for name in _GENERATED_DOCS}
    for name, function in made.items():
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        function.__doc__ = _GENERATED_DOCS[name]
    return made


for _name, _function in _generated(GameState).items():
    setattr(GameState, _name, _function)
