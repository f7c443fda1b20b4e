"""Level 6's inference: how likely the others' plays of this packet make a sampled deal.

A seat's hand shows in how it played: who trails a card while holding one that captures,
or lets a caída go (R9), is rare; who trails a safe card holds no safer one. Each play of
another seat this packet is rebuilt with the public state before it (`past_plays`), and a
deal's likelihood is the product, over those plays, of the chance that the seat, holding
what the deal gives it (its hand now and the cards it played since), chose that play: a
softmax of level 3's appraisal of its plays then (`TEMPERATURE` points make a play e times
less likely), mixed with `NOISE` of plays that follow no model, so no deal is ruled out.
Only what the viewer saw enters: the table, piles and played cards of the public record
(the scores are today's), and the deal's hands.

The appraisal is level 3's on the fast core (`fastplay.Seat`), on one core per decision
set to the state before each play (`Likelihood`), and memoised by the seat's ranks held,
so weighing a deal costs a fraction of playing it out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.bots.fastplay import Seat
from engine.core import Core
from engine.state import Hidden
from engine.views import View

#: a play worse, by level 3's appraisal, by this many points is e times less likely.
TEMPERATURE = 1.0
#: the share of plays that follow no model: no deal is ever ruled out.
NOISE = 0.1


@dataclass(frozen=True, slots=True)
class PastPlay:
    """One play of another seat this packet, with what it knew then (but its hand)."""

    seat: int
    key: tuple[int, tuple[int, ...], bool]  # card rank, taken ranks (R2), a caída (R9)
    later: tuple[int, ...]  # the cards the seat played this packet from this play on
    by_rank: tuple[tuple[int, ...], ...]  # the table then
    caida_target: int
    seen: tuple[int, ...]  # per rank, the cards played in the hand before it
    next_hand: int
    caida_next: bool
    pile: int
    other_pile: int


def _key(
    card: int, take: tuple[int, ...] | frozenset[int], target: int
) -> tuple[int, tuple[int, ...], bool]:
    return card >> 2, tuple(sorted(c >> 2 for c in take)), target >= 0 and target in take


def past_plays(view: View) -> list[PastPlay]:
    """Return the other seats' plays of this packet, each with the public state before it."""
    rules = view.rules
    seats, viewer = rules.seats, view.viewer
    entries = list(view.history)
    packet_plays = [i for i, e in enumerate(entries) if e.card >= 0 and e.packet == view.packet]
    table: list[list[int]] = [[] for _ in range(10)]
    seen = [0] * 10
    piles = [0, 0]
    sizes = list(view.hand_sizes)
    for index in packet_plays:  # hand sizes at the packet's start
        sizes[entries[index].seat] += 1
    out: list[PastPlay] = []
    previous = None
    for index, entry in enumerate(entries):
        if entry.card >= 0 and entry.packet == view.packet:
            seat = entry.seat
            if seat != viewer:
                later = tuple(
                    entries[i].card for i in packet_plays if i >= index and entries[i].seat == seat
                )
                target = -1
                if previous is not None and not previous.take and previous.packet == entry.packet:
                    target = previous.card
                if sum(sizes) > 1:
                    next_hand, caida_next = sizes[(seat + 1) % seats], True
                else:
                    next_hand, caida_next = (5 if view.undealt else 0), False
                team = seat & 1
                out.append(
                    PastPlay(
                        seat,
                        _key(entry.card, entry.take, target),
                        later,
                        tuple(tuple(cards) for cards in table),
                        target,
                        tuple(seen),
                        next_hand,
                        caida_next,
                        piles[team],
                        piles[1 - team],
                    )
                )
            sizes[entry.seat] -= 1
        if entry.card >= 0:
            seen[entry.card >> 2] += 1
            if entry.take:
                for card in entry.take:
                    table[card >> 2].remove(card)
                piles[entry.seat & 1] += 1 + len(entry.take)
            else:
                table[entry.card >> 2].append(entry.card)
            previous = entry
        else:  # missed cards taken (R8)
            for card in entry.take:
                table[card >> 2].remove(card)
            piles[entry.seat & 1] += len(entry.take)
    return out


def _ranks_of(mask: int) -> tuple[int, ...]:
    ranks = []
    while mask:
        low = mask & -mask
        ranks.append((low.bit_length() - 1) >> 2)
        mask ^= low
    return tuple(sorted(ranks))


class Likelihood:
    """The chance of the others' plays this packet, deal by deal, for one view.

    ``core``: any core of the view (a sampled deal's); only its rules, dealer, scores and
    stock position are read, the rest is set to the state before each play."""

    def __init__(self, view: View, core: Core) -> None:
        self.pasts = past_plays(view)
        self.core = core.copy()
        self.memo: dict[tuple[int, tuple[int, ...]], float] = {}

    def chance(self, index: int, hand: tuple[int, ...] | list[int]) -> float:
        """Return the chance the seat of play ``index``, holding ``hand`` now, made it."""
        past = self.pasts[index]
        held = sorted((*hand, *past.later))
        memo_key = (index, tuple(card >> 2 for card in held))
        known = self.memo.get(memo_key)
        if known is not None:
            return known
        core = self.core
        seat, seats = past.seat, core.seats
        core.by_rank = [list(cards) for cards in past.by_rank]
        core.table = [card for cards in past.by_rank for card in cards]
        core.low, core.caps = -1, {}
        core.last_trail = past.caida_target
        core.played_ranks = list(past.seen)
        team = seat & 1
        core.pile_counts[team], core.pile_counts[1 - team] = past.pile, past.other_pile
        hands: list[list[int]] = [[] for _ in range(seats)]
        hands[seat] = held
        if past.caida_next:
            hands[(seat + 1) % seats] = [0] * past.next_hand  # only its size is read
        core.hands = hands
        position = Seat(core, seat)
        worths: dict[tuple[int, tuple[int, ...], bool], float] = {}
        target = past.caida_target
        for move in core.plays(seat, True):
            card, mask = move & 63, move >> 6
            key = (card >> 2, _ranks_of(mask), target >= 0 and (mask >> target) & 1 == 1)
            if key not in worths:
                worths[key] = position.appraise(card, mask)
        if past.key in worths:
            best = max(worths.values())
            total = math.fsum(math.exp((w - best) / TEMPERATURE) for w in worths.values())
            mine = math.exp((worths[past.key] - best) / TEMPERATURE) / total
            value = NOISE / len(worths) + (1 - NOISE) * mine
        else:  # not a play the deal allows: only noise explains it
            value = NOISE / max(1, len(worths))
        self.memo[memo_key] = value
        return value

    def weight(self, hidden: Hidden) -> float:
        """Return the chance of the others' plays this packet if ``hidden`` is the deal."""
        weight = 1.0
        for index, past in enumerate(self.pasts):
            weight *= self.chance(index, hidden.hands[past.seat])
        return weight
