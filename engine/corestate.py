"""The fast core's state (`engine.core.Core`): its fields, blank state and what evaluators read.

Written for mypyc, as `engine.core` is (see there).
"""

from __future__ import annotations

from typing import Final

from engine.cards import RANKS
from engine.phase import Phase
from engine.rules import Rules

#: phases as small ints (`Core.phase`), and the `Phase` of each
ANNOUNCE: Final = 0
PLAY: Final = 1
CLAIMS: Final = 2
WAITING: Final = 3
FINISHED: Final = 4
PHASES: Final = (Phase.ANNOUNCE, Phase.PLAY, Phase.CLAIMS, Phase.WAITING, Phase.FINISHED)
#: the tags of moves other than plays: ``tag << 48 | seat << 4 | detail``
TAKE_MISSED: Final = 1
ANNOUNCE_MOVE: Final = 2
CLAIM: Final = 3
CLOSE_CLAIMS: Final = 4
MISDEAL: Final = 5
TAG: Final = 1 << 48
CALLS: Final = ("ronda", "cuarenta", "pass")
DRAW: Final = 2  # `Core.winner` of an R14 heads-up draw


def play_move(card: int, mask: int) -> int:
    """The move of playing ``card`` taking the table cards of ``mask`` (0: a trail)."""
    return card | mask << 6


def other_move(tag: int, seat: int = 0, detail: int = 0) -> int:
    """The move of a non-play action (`TAKE_MISSED` … `MISDEAL`)."""
    return tag * TAG | seat << 4 | detail


class CoreState:
    """Every field of a `Core`, its blank state, and what evaluators read of it."""

    rules: Rules
    seats: int
    per_packet: int
    packets: int
    target: int
    manual: bool
    forfeit: bool
    mandatory: bool
    awards: bool
    window: bool
    announce_manual: bool
    pack_seed: int
    next_pack: int
    packs: list[tuple[str, ...]]
    dealer: int
    hand_number: int
    packet: int
    pack: list[int]
    deal_pos: int
    hands: list[list[int]]
    table: list[int]
    by_rank: list[list[int]]
    low: int
    piles: list[int]
    pile_counts: list[int]
    scores: list[int]
    turn: int
    phase: int
    last_trail: int
    missed: list[int]
    missed_team: int
    r10: list[tuple[int, int]]
    claims_ended: list[bool]
    ronda: list[int]
    four: list[int]
    ronda_caught: list[bool]
    queue: list[int]
    played: int
    played_ranks: list[int]
    winner: int
    caps: dict[int, list[int]]

    def __init__(self, rules: Rules, dealer: int, pack_seed: int, packs: list[tuple[str, ...]]):
        seats = rules.seats
        self.rules = rules
        self.seats = seats
        self.per_packet = 5 * seats
        self.packets = rules.packets_per_hand
        self.target = rules.target
        self.manual = rules.sequence == "manual"
        self.forfeit = rules.forfeiture and self.manual
        self.mandatory = rules.capture_mandatory
        self.awards = rules.awards_r10
        self.window = rules.awards_r10 and rules.special_claims == "claim"
        self.announce_manual = rules.announcements == "manual"
        self.pack_seed, self.next_pack, self.packs = pack_seed, 0, packs
        self.dealer, self.hand_number, self.packet = dealer, -1, -1
        self.pack, self.deal_pos = [], 0
        self.hands = [[] for _ in range(seats)]
        self.table, self.by_rank, self.low = [], [[] for _ in range(10)], 0
        self.piles, self.pile_counts, self.scores = [0, 0], [0, 0], [0, 0]
        self.turn, self.phase, self.last_trail = -1, WAITING, -1
        self.missed, self.missed_team, self.r10 = [], -1, []
        self.claims_ended = [False, False]
        self.ronda, self.four = [-1] * seats, [-1] * seats
        self.ronda_caught = [False] * seats
        self.queue, self.played, self.played_ranks = [], 0, [0] * 10
        self.winner, self.caps = -1, {}

    # ------------------------------------------------------------------ what evaluators read
    @property
    def _phase(self) -> Phase:
        return PHASES[self.phase]

    @property
    def _winner(self) -> int | str | None:
        return None if self.winner < 0 else "draw" if self.winner == DRAW else self.winner

    @property
    def _scores(self) -> list[int]:
        return self.scores

    @property
    def _r10(self) -> list[tuple[int, int]]:
        return self.r10

    @property
    def _table(self) -> list[int]:
        return self.table

    @property
    def pile_sizes(self) -> tuple[int, int]:
        """The number of cards in each team's pile this hand."""
        return self.pile_counts[0], self.pile_counts[1]


def count_points(zero: int, one: int, dealer_team: int) -> tuple[int, int]:
    """`engine.scoring.count_points` on ints (R11)."""
    non_dealers = 1 - dealer_team
    points = [0, 0]
    if zero >= 20 and one >= 20:
        points[non_dealers] = 6
    elif zero >= 20 or one >= 20:
        big = 0 if zero >= 20 else 1
        extra = (zero if big == 0 else one) - 20
        points[big] = 6 + (extra + 1) // 2 * 2
    elif zero != one:
        points[0 if zero > one else 1] = 2
    else:
        points[non_dealers] = 2
    return points[0], points[1]


def claim_rank(move: int) -> str:
    """The rank letter a claim move names (R10)."""
    return RANKS[move & 15]
