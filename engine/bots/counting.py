"""Level 3: level 2's appetite plus card counting (R9 caída and limpia risk, R11 progress).

A play is worth what it scores now (R9 points, and the cards it adds to the pile valued by
`odds.count_margin`, so cards near 20 weigh most) minus what it hands the next player, who
is always an opponent (R1). From the cards it has not seen (own hand, table and every play
of the hand are known), the bot reckons for each rank the chance the next player holds one
and the best capture that rank makes on the table the play leaves: a caída on the card just
trailed, a limpia of what is left, or plain cards. The expected best reply is the risk.
The last card of a packet is safe from caída (R9: a packet's first play never is one), and
after the hand's last card nobody replies at all.

`Position` holds what the reckoning needs as plain numbers, built from a `View` (a real
decision) or straight from a `Game` (the playouts of levels 4 and 5), so both share
`appraise` and play exactly the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.actions import Action, Play
from engine.bots import Budget, register
from engine.bots.odds import chance_holds, count_margin
from engine.bots.routine import routine
from engine.captures import SUM_PARTS
from engine.rules import Rules
from engine.scoring import play_points
from engine.views import View

#: what reaching the target (R9, R12: the game is won at once) is worth, in points.
WIN_VALUE = 60.0


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


def _sequence_after(table: list[list[int]], rank: int) -> int:
    """Return how many cards the R7 sequence above ``rank`` takes from ``table``."""
    length = 0
    rank += 1
    while rank <= 9 and table[rank]:
        length += 1
        rank += 1
    return length


def _largest_sum(table: list[list[int]], rank: int) -> int:
    """Return the most table cards one R7 sum basis for ``rank`` takes (0: none)."""
    best = 0
    for parts in SUM_PARTS[rank]:
        cards = 0
        for part_rank, count in parts:
            if len(table[part_rank]) < count:
                break
            cards += count
        else:
            best = max(best, cards)
    return best


def _reply_risk(pos: Position, table: list[list[int]], size: int, target: int, pile: int) -> float:
    """Return the expected value of the next player's best capture on ``table`` (for them).

    The best capture of a rank is its match (a caída when it can take ``target``) or its
    largest sum, each with the full sequence (R7): more cards never score less.
    """
    if pos.next_hand == 0 or size == 0:
        return 0.0
    rules, other, dealer_own = pos.rules, pos.other_score, pos.dealer_own
    base = count_margin(pile, pos.other_pile, dealer_own)
    target_rank = target >> 2 if target >= 0 else -1
    replies: list[tuple[float, int]] = []
    for rank in range(10):
        held = pos.unseen[rank]
        if held == 0:
            continue
        bases = []
        if table[rank]:
            bases.append((1, rank == target_rank))
        if 1 <= rank <= 6:
            largest = _largest_sum(table, rank)
            if largest:
                bases.append((largest, False))
        if not bases:
            continue
        sequence = _sequence_after(table, rank)
        best = 0.0
        for basis, caida in bases:
            taken = basis + sequence
            points = play_points(rules, other, caida, taken == size)
            value = points + base - count_margin(pile, pos.other_pile + taken + 1, dealer_own)
            if other + points >= rules.target:
                value += WIN_VALUE
            best = max(best, value)
        replies.append((best, held))
    replies.sort(reverse=True)
    risk, none_yet = 0.0, 1.0
    for value, held in replies:
        chance = chance_holds(pos.unseen_total, held, pos.next_hand)
        risk += none_yet * chance * value
        none_yet *= 1.0 - chance
    return risk


def appraise(pos: Position, play: Play) -> float:
    """Return a play's worth for the player's team: its gain minus the expected reply."""
    table = pos.by_rank
    rank = play.card >> 2
    after = [cards[:] for cards in table]
    if play.take:
        for card in play.take:
            after[card >> 2].remove(card)
        target = pos.caida_target
        caida = target >= 0 and target >> 2 == rank and target in play.take
        size = pos.table_size - len(play.take)
        points = play_points(pos.rules, pos.score, caida, size == 0)
        gained = len(play.take) + 1
        pile = pos.pile + gained
        value = points + count_margin(pile, pos.other_pile, pos.dealer_own)
        value -= count_margin(pos.pile, pos.other_pile, pos.dealer_own)
        if pos.score + points >= pos.rules.target:
            return WIN_VALUE + points
        return value - _reply_risk(pos, after, size, -1, pile)
    after[rank].append(play.card)
    target = play.card if pos.caida_next else -1
    return -_reply_risk(pos, after, pos.table_size + 1, target, pos.pile)


def ranked_plays(pos: Position, plays: list[Play]) -> list[tuple[float, Play]]:
    """Return (worth, play) for every play, best first (stable for equal worth)."""
    scored = [(appraise(pos, play), index, play) for index, play in enumerate(plays)]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(worth, play) for worth, _, play in scored]


@register(3)
def counting(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring; ties broken by ``rng``."""
    decided, action = routine(view, legal)
    if decided:
        return action
    plays = [a for a in legal if isinstance(a, Play) and a.seat == view.viewer]
    ranked = ranked_plays(position_of(view), plays)
    best = ranked[0][0]
    return rng.choice([play for worth, play in ranked if worth >= best - 1e-9])
