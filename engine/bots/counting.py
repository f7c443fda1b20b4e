"""Level 3: level 2's appetite plus card counting (R9 caída and limpia risk, R11 progress).

A play is worth what it scores now (R9 points, and the cards it adds to the pile valued by
`odds.count_margin`, so cards near 20 weigh most) minus what it hands the next player, who
is always an opponent (R1). From the cards it has not seen (own hand, table and every play
of the hand are known), the bot reckons for each rank the chance the next player holds one
and the best capture that rank makes on the table the play leaves: a caída on the card just
trailed, a limpia of what is left, or plain cards. The expected best reply is the risk.
The last card of a packet is safe from caída (R9: a packet's first play never is one), and
after the hand's last card nobody replies at all. Under ``sequence = manual`` a capture that
stops its sequence early leaves the rest of the run as missed cards, which the other team
takes (R8): they count as that team's cards, off the table the reply meets.

`Position` holds what the reckoning needs as plain numbers, built from a `View` (a real
decision) or straight from a `Game` (the playouts of levels 4 and 5), so both share
`appraise` and play exactly the same way.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from engine.actions import Action, Play
from engine.bots.odds import MARGINS, chance_holds, count_margin
from engine.bots.registry import Budget, register
from engine.bots.routine import routine
from engine.captures import RANK_UNIT, SUM_PARTS, table_code
from engine.memo import keep
from engine.rules import Rules
from engine.scoring import play_points
from engine.views import View

#: what reaching the target (R9, R12: the game is won at once) is worth, in points.
WIN_VALUE = 60.0
#: what leaving missed cards to the other team costs beyond the count (R8): taking them
#: ourselves never costs anything (the table is the same afterwards), so a capture that
#: leaves them is worth a little less even where the count can no longer tell them apart,
#: and no bot gives them away on a tie.
GIFT = 1e-3


@dataclass(frozen=True, slots=True)
class Position:
    """One seat's knowledge at its turn, as plain numbers (see the module docstring)."""

    rules: Rules
    by_rank: list[list[int]]
    table_size: int
    caida_target: int
    unseen: list[int]
    unseen_total: int
    next_hand: int
    caida_next: bool
    score: int
    other_score: int
    pile: int
    other_pile: int
    dealer_own: bool


def position_of(view: View) -> Position:
    """Build the viewer's `Position` from its view (only what the seat may see)."""
    seat = view.viewer
    assert seat is not None, "a position belongs to a seated player"
    assert view.hand is not None, "a seated player sees its hand"
    known = set(view.seen)
    known.update(view.hand)
    unseen = [4] * 10
    for card in known:
        unseen[card >> 2] -= 1
    by_rank: list[list[int]] = [[] for _ in range(10)]
    for card in view.table:
        by_rank[card >> 2].append(card)
    seats = view.rules.seats
    last_of_packet = sum(view.hand_sizes) == 1
    if not last_of_packet:
        next_hand, caida_next = view.hand_sizes[(seat + 1) % seats], True
    elif view.undealt:
        next_hand, caida_next = 5, False  # R9: the dealer's last card is safe from caída
    else:
        next_hand, caida_next = 0, False  # the hand ends: the table goes to nobody (R11)
    team = seat & 1
    return Position(
        rules=view.rules,
        by_rank=by_rank,
        table_size=len(view.table),
        caida_target=-1 if view.caida_target is None else view.caida_target,
        unseen=unseen,
        unseen_total=sum(unseen),
        next_hand=next_hand,
        caida_next=caida_next,
        score=view.scores[team],
        other_score=view.scores[1 - team],
        pile=view.pile_sizes[team],
        other_pile=view.pile_sizes[1 - team],
        dealer_own=view.dealer & 1 == team,
    )


#: the next player's best captures on a table, as (options, ranks): the ranks whose cards
#: have those options, each option (cards taken plus the card played, its kind: 2 if a
#: caída + 1 if a limpia). Ranks with equal options share their reckoning.
Replies = tuple[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], ...]


class _Reckoning(NamedTuple):
    """What every play's appraisal in one position shares, worked out once."""

    code: int  # the table's counts (`table_code`)
    chances: tuple[float, ...]  # by unseen cards of a rank: the chance the next player holds one
    points: tuple[int, ...]  # by kind (see `Replies`): the next player's R9 points
    wins: tuple[bool, ...]  # by kind: do those points reach the target?
    known: int  # what the reply risk depends on besides the play (`_known_id`)
    forfeit: bool  # R8: a shortened sequence leaves missed cards to the other team


def _sequence_after(counts: list[int], rank: int) -> int:
    """Return how many cards the R7 sequence above ``rank`` takes from a table's counts."""
    length = 0
    rank += 1
    while rank <= 9 and counts[rank]:
        length += 1
        rank += 1
    return length


def _largest_sum(counts: list[int], rank: int) -> int:
    """Return the most table cards one R7 sum basis for ``rank`` takes (0: none)."""
    best = 0
    for parts in SUM_PARTS[rank]:
        cards = 0
        for part_rank, count in parts:
            if counts[part_rank] < count:
                break
            cards += count
        else:
            best = max(best, cards)
    return best


@lru_cache(maxsize=1 << 16)
def replies_on(code: int, target_rank: int) -> Replies:
    """Return the best captures of each rank on the table ``code`` packs (see `Replies`).

    A rank's match (a caída when it is ``target_rank``), then its largest sum, each with the
    full R7 sequence: more cards never score less. Only the counts per rank matter (R2), and
    few table shapes recur, hence the cache.
    """
    counts = [code // power % 5 for power in RANK_UNIT]
    size = sum(counts)
    replies: dict[tuple[tuple[int, int], ...], list[int]] = {}
    for rank in range(10):
        sequence = _sequence_after(counts, rank)
        options: list[tuple[int, int]] = []
        if counts[rank]:
            taken = 1 + sequence
            options.append((taken + 1, 2 * (rank == target_rank) + (taken == size)))
        if 1 <= rank <= 6:
            largest = _largest_sum(counts, rank)
            if largest:
                taken = largest + sequence
                options.append((taken + 1, int(taken == size)))
        if options:
            replies.setdefault(tuple(options), []).append(rank)
    return tuple((options, tuple(ranks)) for options, ranks in replies.items())


#: `_stakes` by (id of the rules, score): each entry holds its rules, so no id is reused.
_STAKES: dict[tuple[int, int], tuple[Rules, tuple[int, ...], tuple[bool, ...]]] = {}
_STAKES_LIMIT = 4096


def _stakes(rules: Rules, other: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Return the next player's R9 points by kind of capture, and whether each wins (R12).

    Memoised by the rules' identity: hashing a `Rules` costs more than the reckoning.
    """
    known = _STAKES.get((id(rules), other))
    if known is None or known[0] is not rules:
        points = tuple(play_points(rules, other, kind >= 2, kind & 1 == 1) for kind in range(4))
        wins = tuple(other + p >= rules.target for p in points)
        known = keep(_STAKES, (id(rules), other), (rules, points, wins), _STAKES_LIMIT)
    return known[1], known[2]


@lru_cache(maxsize=1024)
def _chances(unseen_total: int, hand: int) -> tuple[float, ...]:
    """Return `chance_holds` for 0 to 4 unseen cards of a rank (those the total allows)."""
    return tuple(
        chance_holds(unseen_total, held, hand) if held <= unseen_total else 0.0 for held in range(5)
    )


def _reckoning(pos: Position) -> _Reckoning:
    points, wins = _stakes(pos.rules, pos.other_score)
    chances = _chances(pos.unseen_total, pos.next_hand)
    known = (*pos.unseen, pos.unseen_total, pos.next_hand, pos.other_pile, pos.dealer_own)
    rules = pos.rules
    return _Reckoning(
        table_code(pos.by_rank),
        chances,
        points,
        wins,
        _known_id(known, points, wins),
        rules.forfeiture and rules.sequence == "manual",
    )


#: reply risks already reckoned, by (`_known_id`, table code, size, target rank, piles), and
#: the ids of what they depend on besides the play. The same reply situations recur across
#: the sampled deals of a search (over half of them in a level 5 decision); the values are
#: those computed before, so the decisions stay the same.
_RISKS: dict[tuple[int, int, int, int, int, int], float] = {}
_KNOWN: dict[tuple[object, ...], int] = {}
_RISKS_LIMIT: int = 1 << 17
_KNOWN_LIMIT: int = 1 << 15


def _known_id(
    known: tuple[int | bool, ...], points: tuple[int, ...], wins: tuple[bool, ...]
) -> int:
    """Return a small number for the unseen counts, next hand, piles and stakes of a position."""
    key = (*known, points, wins)
    number = _KNOWN.get(key)
    if number is None:
        if len(_KNOWN) >= _KNOWN_LIMIT:  # ids start again: forget the risks filed under them
            _RISKS.clear()
        number = keep(_KNOWN, key, len(_KNOWN) % _KNOWN_LIMIT, _KNOWN_LIMIT)
    return number


def _reply_risk(
    pos: Position, rec: _Reckoning, code: int, size: int, target: int, pile: int, other_pile: int
) -> float:
    """Return the expected value of the next player's best capture on the table ``code`` packs.

    Each rank's best capture (`replies_on`) is weighed by the chance the next player holds
    that rank and no better one.
    """
    if pos.next_hand == 0 or size == 0:
        return 0.0
    target_rank = target >> 2 if target >= 0 else -1
    key = (rec.known, code, size, target_rank, pile, other_pile)
    known = _RISKS.get(key)
    if known is not None:
        return known
    margins = MARGINS[pos.dealer_own][pile if pile < 40 else 40]
    base = margins[other_pile if other_pile < 40 else 40]
    unseen, points, wins = pos.unseen, rec.points, rec.wins
    replies: list[tuple[float, int]] = []
    for options, ranks in replies_on(code, target_rank):
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
    replies.sort(reverse=True)  # entries equal in both are interchangeable: the order is the sum's
    chances = rec.chances
    risk, none_yet = 0.0, 1.0
    for value, held in replies:
        chance = chances[held]
        risk += none_yet * chance * value
        none_yet *= 1.0 - chance
    return keep(_RISKS, key, risk, _RISKS_LIMIT)


def _missed(code: int, rank: int, take: frozenset[int]) -> list[int]:
    """Return the ranks of the missed cards (R8) a capture with ``rank`` taking ``take`` leaves
    on the table ``code`` packs (after the capture): the rest of the run above the sequence
    it took (its cards above ``rank``, one a rank)."""
    end = rank + 1
    while end <= 9 and any(card >> 2 == end for card in take):
        end += 1
    missed = []
    while end <= 9 and code // RANK_UNIT[end] % 5:
        missed.append(end)
        end += 1
    return missed


def _appraise(pos: Position, rec: _Reckoning, play: Play) -> float:
    rank = play.card >> 2
    if play.take:
        code = rec.code
        for card in play.take:
            code -= RANK_UNIT[card >> 2]
        target = pos.caida_target
        caida = target >= 0 and target >> 2 == rank and target in play.take
        size = pos.table_size - len(play.take)
        points = play_points(pos.rules, pos.score, caida, size == 0)
        gained = len(play.take) + 1
        pile, other_pile = pos.pile + gained, pos.other_pile
        missed = _missed(code, rank, play.take) if rec.forfeit and size else []
        for missed_rank in missed:  # R8: the other team takes them before the reply
            code -= RANK_UNIT[missed_rank]
        other_pile += len(missed)
        value = points + count_margin(pile, other_pile, pos.dealer_own)
        value -= count_margin(pos.pile, pos.other_pile, pos.dealer_own)
        gift = GIFT if missed else 0.0
        if pos.score + points >= pos.rules.target:  # won: a gift is still no way to win
            return WIN_VALUE + points - gift
        value -= _reply_risk(pos, rec, code, size - len(missed), -1, pile, other_pile)
        return value - gift
    target = play.card if pos.caida_next else -1
    code = rec.code + RANK_UNIT[rank]
    return -_reply_risk(pos, rec, code, pos.table_size + 1, target, pos.pile, pos.other_pile)


def without_gifts(pos: Position, plays: list[Play]) -> list[Play]:
    """Return ``plays`` but the captures that leave missed cards to the other team (R8).

    Each is dominated by the same basis with the whole run (always legal): the table after
    is the same, only the cards change piles. A search drops them from its candidates, so
    sampling noise never picks one.
    """
    rules = pos.rules
    if not (rules.forfeiture and rules.sequence == "manual"):
        return plays
    code = table_code(pos.by_rank)
    kept = []
    for play in plays:
        if play.take:
            after = code - sum(RANK_UNIT[card >> 2] for card in play.take)
            if _missed(after, play.card >> 2, play.take):
                continue
        kept.append(play)
    return kept or plays


def appraise(pos: Position, play: Play) -> float:
    """Return a play's worth for the player's team: its gain minus the expected reply."""
    return _appraise(pos, _reckoning(pos), play)


def ranked_plays(pos: Position, plays: list[Play]) -> list[tuple[float, Play]]:
    """Return (worth, play) for every play, best first (stable for equal worth)."""
    rec = _reckoning(pos)
    scored = [(_appraise(pos, rec, play), index, play) for index, play in enumerate(plays)]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(worth, play) for worth, _, play in scored]


def best_play(pos: Position, plays: list[Play]) -> Play:
    """Return `ranked_plays`' first play (the first listed of equal worth), without sorting."""
    rec = _reckoning(pos)
    best, chosen = -math.inf, plays[0]
    for play in plays:
        worth = _appraise(pos, rec, play)
        if worth > best:
            best, chosen = worth, play
    return chosen


def own_plays(view: View, legal: tuple[Action, ...]) -> list[Play]:
    """Return the plays among ``legal`` that are the viewer's own (a bot's choices)."""
    return [a for a in legal if isinstance(a, Play) and a.seat == view.viewer]


def best_of(ranked: list[tuple[float, Play]], rng: random.Random) -> Play:
    """Return the best of (worth, play) best first, ties broken by ``rng``."""
    best = ranked[0][0]
    return rng.choice([play for worth, play in ranked if worth >= best - 1e-9])


@register(3)
def counting(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring; ties broken by ``rng``."""
    decided, action = routine(view, legal)
    if decided:
        return action
    return best_of(ranked_plays(position_of(view), own_plays(view, legal)), rng)
