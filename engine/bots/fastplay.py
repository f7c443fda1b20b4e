"""Level-3 playouts on the fast core (`engine.core.Core`): what `playout` does on a `Game`.

`play_out` plays a sampled deal on with level 3 in every seat exactly as `playout.play_out`
does, move for move: the same position numbers (`playout.position_in`), the same appraisal
of each play (`counting`'s `_appraise`, here on the play's card and taken-cards mask instead
of a `Play`), the same reply risks (shared with `counting`, whose memo it fills and reads),
the same first-listed choice among equals. A test holds the two to the same moves; the fixed
decisions of every bot level (tests/engine/bots) hold the searches to the same choices.
Written for mypyc, like the core.
"""

from __future__ import annotations

from typing import Final

from engine.bots import counting
from engine.bots.odds import MARGINS
from engine.captures import RANK_UNIT
from engine.core import Core
from engine.corestate import ANNOUNCE, ANNOUNCE_MOVE, PLAY, TAKE_MISSED, other_move
from engine.rules import Rules

WIN_VALUE: Final = counting.WIN_VALUE
GIFT: Final = counting.GIFT
#: `counting._stakes` by the rules' id and the other team's score, with a small number per
#: distinct stakes (each entry holds its rules, so no id is reused)
_STAKES: Final[dict[int, tuple[Rules, tuple[int, ...], tuple[bool, ...], int]]] = {}
_STAKE_IDS: Final[dict[tuple[tuple[int, ...], tuple[bool, ...]], int]] = {}
#: the reply risks reckoned, by what a seat knows (`Seat.known`, one int) and then by the
#: table and piles a play leaves (`Seat.risk`'s key, one int): counting's `_RISKS`, keyed by
#: ints instead of tuples (a tuple key is hashed and compared item by item on every lookup).
#: A risk is a function of its keys, so a memo changes no value, only the time.
_RISKS: Final[dict[int, dict[int, float]]] = {}
_RISKS_LIMIT: Final = counting._RISKS_LIMIT
_KNOWN_LIMIT: Final = counting._KNOWN_LIMIT
#: reply risks held in `_RISKS` (all are forgotten at `_RISKS_LIMIT`)
_HELD: Final[list[int]] = [0]
#: `counting._chances` by unseen total and next hand (at most 41 x 6 entries)
_CHANCES: Final[dict[int, tuple[float, ...]]] = {}
#: the table code's unit per rank (`captures.RANK_UNIT`)
_UNIT: Final[tuple[int, ...]] = RANK_UNIT


def _margin(dealer_own: bool, own: int, other: int) -> float:
    """`odds.count_margin` (R11)."""
    return MARGINS[1 if dealer_own else 0][own if own < 40 else 40][other if other < 40 else 40]


class Seat:
    """One seat's position in a core (`counting.Position` and its `_Reckoning`, as numbers)."""

    def __init__(self, core: Core, seat: int) -> None:
        unseen = [4 - count for count in core.played_ranks]
        for card in core.hands[seat]:
            unseen[card >> 2] -= 1
        seats = core.seats
        held = 0
        for each in core.hands:
            held += len(each)
        if held > 1:
            next_hand, caida_next = len(core.hands[(seat + 1) % seats]), True
        elif core.deal_pos < len(core.pack):
            next_hand, caida_next = 5, False  # R9: the dealer's last card is safe from caída
        else:
            next_hand, caida_next = 0, False
        team = seat & 1
        self.unseen = unseen
        self.next_hand = next_hand
        self.caida_next = caida_next
        self.table_size = len(core.table)
        self.caida_target = core.last_trail
        self.score, self.other_score = core.scores[team], core.scores[1 - team]
        self.pile, self.other_pile = core.pile_counts[team], core.pile_counts[1 - team]
        self.dealer_own = core.dealer & 1 == team
        self.target = core.target
        self.forfeit = core.forfeit
        code = 0
        for rank in range(10):
            code += len(core.by_rank[rank]) * _UNIT[rank]
        self.code = code
        total = 0
        unseen_code = 0
        for rank in range(10):
            total += unseen[rank]
            unseen_code += unseen[rank] * _UNIT[rank]
        rules = core.rules
        stakes_key = id(rules) * 256 + self.other_score
        stakes = _STAKES.get(stakes_key)
        if stakes is None or stakes[0] is not rules:
            points, wins = counting._stakes(rules, self.other_score)
            stake = _STAKE_IDS.get((points, wins))
            if stake is None:
                stake = _STAKE_IDS[(points, wins)] = len(_STAKE_IDS)
            if len(_STAKES) >= 4096:
                _STAKES.clear()
            stakes = _STAKES[stakes_key] = (rules, points, wins, stake)
        self.points: tuple[int, ...] = stakes[1]
        self.wins: tuple[bool, ...] = stakes[2]
        stake = stakes[3]
        chances = _CHANCES.get(total * 64 + next_hand)
        if chances is None:
            chances = _CHANCES[total * 64 + next_hand] = counting._chances(total, next_hand)
        self.chances: tuple[float, ...] = chances
        known = (stake * 2 + int(self.dealer_own)) * 64 + self.other_pile
        known = (known * 8 + next_hand) * _UNIT[9] * 5 + unseen_code
        memo = _RISKS.get(known)
        if memo is None:
            if len(_RISKS) >= _KNOWN_LIMIT:
                _RISKS.clear()
                _HELD[0] = 0
            memo = _RISKS[known] = {}
        self.memo: dict[int, float] = memo

    def risk(self, code: int, size: int, target: int, pile: int, other_pile: int) -> float:
        """`counting._reply_risk`: the expected value of the next player's best capture."""
        if self.next_hand == 0 or size == 0:
            return 0.0
        target_rank = target >> 2 if target >= 0 else -1
        key = (((code * 64 + size) * 16 + target_rank + 1) * 64 + pile) * 64 + other_pile
        known = self.memo.get(key)
        if known is not None:
            return known
        margins = MARGINS[1 if self.dealer_own else 0][pile if pile < 40 else 40]
        base = margins[other_pile if other_pile < 40 else 40]
        unseen, points, wins = self.unseen, self.points, self.wins
        replies: list[tuple[float, int]] = []
        for options, ranks in counting.replies_on(code, target_rank):
            best = 0.0
            for extra, kind in options:
                lost = other_pile + extra
                value = points[kind] + base - margins[lost if lost < 40 else 40]
                if wins[kind]:
                    value += WIN_VALUE
                if value > best:
                    best = value
            for rank in ranks:
                held = unseen[rank]
                if held:
                    replies.append((best, held))
        replies.sort(reverse=True)
        chances = self.chances
        risk, none_yet = 0.0, 1.0
        for value, held in replies:
            chance = chances[held]
            risk += none_yet * chance * value
            none_yet *= 1.0 - chance
        if _HELD[0] >= _RISKS_LIMIT:  # `memo.keep`'s limit: all are forgotten
            _RISKS.clear()
            _HELD[0] = 0
        self.memo[key] = risk
        _HELD[0] += 1
        return risk

    def appraise(self, card: int, mask: int) -> float:
        """`counting._appraise` of playing ``card`` taking ``mask`` (R7-R9, R11)."""
        rank = card >> 2
        if not mask:
            target = card if self.caida_next else -1
            code = self.code + _UNIT[rank]
            return -self.risk(code, self.table_size + 1, target, self.pile, self.other_pile)
        code = self.code
        taken = 0
        rest = mask
        while rest:
            low = rest & -rest
            code -= _UNIT[(low.bit_length() - 1) >> 2]
            taken += 1
            rest ^= low
        target = self.caida_target
        caida = target >= 0 and target >> 2 == rank and (mask >> target) & 1 == 1
        size = self.table_size - taken
        points = 2 if caida else 0
        if size == 0 and self.score != 38:
            points += 2
        pile, other_pile = self.pile + taken + 1, self.other_pile
        missed = 0
        if self.forfeit and size:  # R8: the rest of the run goes to the other team
            end = rank + 1
            while end <= 9 and (mask >> (4 * end)) & 15:
                end += 1
            while end <= 9 and code // _UNIT[end] % 5:
                code -= _UNIT[end]
                missed += 1
                end += 1
        other_pile += missed
        value = points + _margin(self.dealer_own, pile, other_pile)
        value -= _margin(self.dealer_own, self.pile, self.other_pile)
        gift = GIFT if missed else 0.0
        if self.score + points >= self.target:
            return WIN_VALUE + points - gift
        value -= self.risk(code, size - missed, -1, pile, other_pile)
        return value - gift


def level3_move(core: Core) -> int:
    """`playout.level3_move` on a core: the move level 3 makes for the seat to act."""
    if core.missed:  # R8: the other team always takes missed cards
        taker = 0 if core.missed_team == 0 else 1
        return other_move(TAKE_MISSED, taker)
    seat = core.turn
    if core.phase == ANNOUNCE:
        if core.four[seat] >= 0:
            return other_move(ANNOUNCE_MOVE, seat, 1)
        if core.ronda[seat] >= 0 and core.scores[seat & 1] < core.rules.ronda_limit:
            return other_move(ANNOUNCE_MOVE, seat, 0)
        return other_move(ANNOUNCE_MOVE, seat, 2)
    plays = core.plays(seat, True)  # R2: suits never matter
    if len(plays) == 1:
        return plays[0]
    position = Seat(core, seat)
    best, chosen = -1e308, plays[0]
    first = True
    for move in plays:
        worth = position.appraise(move & 63, move >> 6)
        if first or worth > best:
            best, chosen, first = worth, move, False
    return chosen


def play_out(core: Core, whole_hand: bool) -> None:
    """`playout.play_out` on a core: level 3 everywhere until the packet (or hand) is over."""
    hand, packet = core.hand_number, core.packet
    while core.phase == PLAY or core.phase == ANNOUNCE:
        if core.hand_number != hand or (not whole_hand and core.packet != packet):
            return
        core.apply(level3_move(core))
