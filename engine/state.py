"""The mutable game state: every field a game holds, its copy, fingerprint and invariants.

`GameState` is the data; `engine.game.Game` adds the rules that change it. Cards are ints
(`engine.cards`); the table is kept twice, as a list in the order cards were laid (the
public view, R8's "longer on the table") and as per-rank lists (`by_rank`) for capture
enumeration. Everything is a list of small ints so `copy` is a handful of slice copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


class GameState:
    """Every field of a game; see `engine.game.Game` for what they mean in play."""

    __slots__ = (
        "_actions",
        "_announce_queue",
        "_announced",
        "_by_rank",
        "_caps",
        "_claims_ended",
        "_claims_made",
        "_counted",
        "_cuarenta",
        "_deal_pos",
        "_discarded",
        "_four",
        "_hand_rondas",
        "_hands",
        "_history",
        "_last_trail",
        "_low",
        "_missed",
        "_missed_team",
        "_next_pack",
        "_pack",
        "_pack_seed",
        "_packet_hands",
        "_phase",
        "_piles",
        "_played_in_packet",
        "_r10",
        "_ronda",
        "_ronda_caught",
        "_scores",
        "_table",
        "_turn",
        "_winner",
        "dealer",
        "draw_cards",
        "draw_start",
        "first_dealer",
        "hand_number",
        "options",
        "packet",
        "packs",
        "rules",
        "start_events",
    )

    rules: Rules
    options: dict[str, object]
    _pack_seed: int | None
    packs: list[tuple[str, ...]]
    _next_pack: int
    draw_start: int | None
    draw_cards: tuple[int, ...]
    dealer: int
    hand_number: int
    packet: int
    _pack: list[int]
    _deal_pos: int
    _hands: list[list[int]]
    _packet_hands: list[tuple[int, ...]]
    _ronda: list[int]
    _four: list[int]
    _ronda_caught: list[bool]
    _table: list[int]
    _by_rank: list[list[int]]
    #: `_by_rank`'s counts of A-6 in base 5 (`engine.captures.low_code`), kept up to date by
    #: every change of the table; -1 until known (a table laid from outside, as by
    #: `engine.determinize`, after `_init_state`), and then derived on first use.
    _low: int
    _piles: list[list[int]]
    _scores: list[int]
    _turn: int | None
    _phase: Phase
    _last_trail: int
    _missed: list[int]
    _missed_team: int
    _r10: list[tuple[int, int]]
    _claims_ended: list[bool]
    _claims_made: list[tuple[int, str, bool]]
    _announce_queue: list[int]
    _announced: list[tuple[int, str]]
    _hand_rondas: list[tuple[int, int, int]]
    _cuarenta: tuple[int, tuple[int, ...]] | None
    _history: list[HistoryEntry]
    _played_in_packet: int
    _winner: int | str | None
    _counted: list[tuple[int, tuple[int, int]]]
    _actions: list[Action]
    _discarded: list[int]
    _caps: dict[int, Any]
    start_events: tuple[Any, ...]
    first_dealer: int

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

    # ------------------------------------------------------------------ lifecycle
    def _init_state(
        self,
        rules: Rules,
        options: dict[str, object],
        pack_seed: int | None,
        packs: list[tuple[str, ...]],
        dealer: int,
        draw_start: int | None,
        draw_cards: tuple[int, ...],
    ) -> None:
        seats = rules.seats
        self.rules = rules
        self.options = options
        self._pack_seed = pack_seed
        self.packs = packs
        self._next_pack = 0
        self.draw_start = draw_start
        self.draw_cards = draw_cards
        self.dealer = dealer
        self.first_dealer = dealer
        self.hand_number = -1
        self.packet = -1
        self._pack = []
        self._deal_pos = 0
        self._hands = [[] for _ in range(seats)]
        self._packet_hands = [() for _ in range(seats)]
        self._ronda = [-1] * seats
        self._four = [-1] * seats
        self._ronda_caught = [False] * seats
        self._table = []
        self._by_rank = [[] for _ in range(10)]
        self._low = -1
        self._piles = [[], []]
        self._scores = [0, 0]
        self._turn = None
        self._phase = Phase.WAITING
        self._last_trail = -1
        self._missed = []
        self._missed_team = -1
        self._r10 = []
        self._claims_ended = [False, False]
        self._claims_made = []
        self._announce_queue = []
        self._announced = []
        self._hand_rondas = []
        self._cuarenta = None
        self._history = []
        self._played_in_packet = 0
        self._winner = None
        self._counted = []
        self._actions = []
        self._discarded = []
        self._caps = {}
        self.start_events = ()

    def _copy_state_into(self, other: GameState) -> None:
        """Fill ``other`` with a copy of this state (lists copied, values shared)."""
        other.rules = self.rules
        other.options = self.options
        other._pack_seed = self._pack_seed
        other.packs = self.packs[:]
        other._next_pack = self._next_pack
        other.draw_start = self.draw_start
        other.draw_cards = self.draw_cards
        other.dealer = self.dealer
        other.first_dealer = self.first_dealer
        other.hand_number = self.hand_number
        other.packet = self.packet
        other._pack = self._pack  # never mutated: a hand's pack is replaced, not changed
        other._deal_pos = self._deal_pos
        other._hands = [hand[:] for hand in self._hands]
        other._packet_hands = self._packet_hands[:]
        other._ronda = self._ronda[:]
        other._four = self._four[:]
        other._ronda_caught = self._ronda_caught[:]
        other._table = self._table[:]
        other._by_rank = [cards[:] for cards in self._by_rank]
        other._low = self._low
        other._piles = [self._piles[0][:], self._piles[1][:]]
        other._scores = self._scores[:]
        other._turn = self._turn
        other._phase = self._phase
        other._last_trail = self._last_trail
        other._missed = self._missed[:]
        other._missed_team = self._missed_team
        other._r10 = self._r10[:]
        other._claims_ended = self._claims_ended[:]
        other._claims_made = self._claims_made[:]
        other._announce_queue = self._announce_queue[:]
        other._announced = self._announced[:]
        other._hand_rondas = self._hand_rondas[:]
        other._cuarenta = self._cuarenta
        other._history = self._history[:]
        other._played_in_packet = self._played_in_packet
        other._winner = self._winner
        other._counted = self._counted[:]
        other._actions = self._actions[:]
        other._discarded = self._discarded[:]
        other._caps = {}
        other.start_events = self.start_events

    def fingerprint(self) -> tuple[Any, ...]:
        """Return every field of the state as nested tuples (equal states, equal fingerprints)."""
        return (
            self.rules,
            tuple(sorted(self.options.items())),
            self._pack_seed,
            tuple(self.packs),
            self._next_pack,
            self.draw_start,
            self.draw_cards,
            self.dealer,
            self.first_dealer,
            self.hand_number,
            self.packet,
            tuple(self._pack),
            self._deal_pos,
            tuple(tuple(hand) for hand in self._hands),
            tuple(self._packet_hands),
            tuple(self._ronda),
            tuple(self._four),
            tuple(self._ronda_caught),
            tuple(self._table),
            tuple(tuple(cards) for cards in self._by_rank),
            (tuple(self._piles[0]), tuple(self._piles[1])),
            tuple(self._scores),
            self._turn,
            self._phase,
            self._last_trail,
            tuple(self._missed),
            self._missed_team,
            tuple(self._r10),
            tuple(self._claims_ended),
            tuple(self._claims_made),
            tuple(self._announce_queue),
            tuple(self._announced),
            tuple(self._hand_rondas),
            self._cuarenta,
            tuple(self._history),
            self._played_in_packet,
            self._winner,
            tuple(self._counted),
            tuple(self._actions),
            tuple(self._discarded),
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
