"""Level 6: level 5's search on deals weighed by how likely the others' plays make them.

Level 5 reads one kind of evidence, as a filter: a seat that trailed while a rank could
capture, or let a caída go, probably holds no card of that rank. Level 6 reads every play
of the packet, the partner's included, as a belief: each sampled deal is weighed by the
chance that the others, holding what the deal gives them, would have played what they
played. A seat's chance of a play is a softmax of level 3's appraisal of its plays then
(`TEMPERATURE` points make a play e times less likely), mixed with `NOISE` of plays that
follow no model (a person, a bot of another level). So a deal in which a seat trailed a 5
while holding a 5 that took a caída weighs little, and one in which its capture was its
best play weighs much; a partner's plays say what it holds, which the playouts' level 3
partners then play.

The seat's position then is rebuilt from the public record (the table, piles, caída target
and hand sizes before each play of the packet; the scores are today's, a small
difference). The deals are drawn as level 5 draws them but without its trail filter (the
weights carry that evidence, counted once), every candidate meets every deal (common
random numbers), and the gains over level 3's choice are weighted means, their standard
errors those of the effective sample size; the rest is level 5 (`deep`): its evaluation,
margins and adaptive stop.

Two changes at the root make it play better than level 5 (BENCHMARKS.md, bots): the play
that stands unless the search beats it, and the candidates, are level 3's ranked with the
follow-up (`partner`: what the partner, or heads-up the player's own next card, makes of
the opponent's trail on the table the play leaves; level 3 alone heads-up gains about 1.5
points a hand from it); and an override needs one standard error beyond its margin, not
two (against the true deals of level-3 self-play, level 5's search at one error gains more
over level 3 than at two), but declining level 3's caída or limpia still needs two.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from engine.actions import Action, Play
from engine.bots import Budget, register
from engine.bots.counting import Position, position_of, ranked_plays, without_gifts
from engine.bots.deep import LEVEL5, SAMPLE_FACTOR, win_value
from engine.bots.partner import partner_ranked
from engine.bots.routine import routine
from engine.bots.search import (
    SearchSettings,
    clearly_better,
    margins_of,
    search,
)
from engine.captures import can_capture, captures
from engine.state import Hidden
from engine.views import View

#: a play worse, by level 3's appraisal, by this many points is e times less likely.
TEMPERATURE = 1.0
#: the share of plays that follow no model: no deal is ever ruled out.
NOISE = 0.1

LEVEL6 = SearchSettings(
    candidates=LEVEL5.candidates,
    window=LEVEL5.window,
    override=LEVEL5.override,
    confidence=1.0,
    samples=LEVEL5.samples,
    max_samples=LEVEL5.max_samples,
    whole_hand=False,
    declined=False,
    decline_confidence=LEVEL5.confidence,
)


@dataclass(frozen=True, slots=True)
class PastPlay:
    """One play of another seat this packet, with what it knew then (but its hand)."""

    seat: int
    key: tuple[int, tuple[int, ...]]  # the play by rank: card rank, taken ranks (R2)
    later: tuple[int, ...]  # the cards the seat played this packet from this play on
    by_rank: tuple[tuple[int, ...], ...]  # the table then
    caida_target: int
    seen: tuple[int, ...]  # per rank, the cards played in the hand before it
    next_hand: int
    caida_next: bool
    pile: int
    other_pile: int
    dealer_own: bool


def _key(card: int, take: tuple[int, ...] | frozenset[int]) -> tuple[int, tuple[int, ...]]:
    return card >> 2, tuple(sorted(c >> 2 for c in take))


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
                        _key(entry.card, entry.take),
                        later,
                        tuple(tuple(cards) for cards in table),
                        target,
                        tuple(seen),
                        next_hand,
                        caida_next,
                        piles[team],
                        piles[1 - team],
                        view.dealer & 1 == team,
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


def play_chance(view: View, past: PastPlay, hand: tuple[int, ...]) -> float:
    """Return the chance the seat of ``past``, holding ``hand`` now, made that play."""
    rules = view.rules
    held = (*hand, *past.later)
    if past.key[0] not in {card >> 2 for card in past.later}:
        return NOISE  # cannot happen: the played card is in ``later``
    by_rank = [list(cards) for cards in past.by_rank]
    unseen = [4 - count for count in past.seen]
    for card in held:
        unseen[card >> 2] -= 1
    team = past.seat & 1
    pos = Position(
        rules=rules,
        by_rank=by_rank,
        table_size=sum(map(len, by_rank)),
        caida_target=past.caida_target,
        unseen=unseen,
        unseen_total=sum(unseen),
        next_hand=past.next_hand,
        caida_next=past.caida_next,
        score=view.scores[team],
        other_score=view.scores[1 - team],
        pile=past.pile,
        other_pile=past.other_pile,
        dealer_own=past.dealer_own,
    )
    manual = rules.sequence == "manual"
    plays: dict[tuple[int, tuple[int, ...]], Play] = {}
    for card in sorted(set(held), key=lambda c: c >> 2):
        rank = card >> 2
        if any(key[0] == rank for key in plays):
            continue
        if not (rules.capture_mandatory and can_capture(by_rank, rank)):
            plays.setdefault((rank, ()), Play(past.seat, card))
        for _, _, taken in captures(by_rank, rank, manual, rules.forfeiture):
            plays.setdefault(_key(card, taken), Play(past.seat, card, frozenset(taken)))
    if past.key not in plays:
        return NOISE / max(1, len(plays))
    ranked = ranked_plays(pos, list(plays.values()))
    best = ranked[0][0]
    total = sum(math.exp((worth - best) / TEMPERATURE) for worth, _ in ranked)
    chosen = next(worth for worth, play in ranked if _key(play.card, play.take) == past.key)
    return NOISE / len(plays) + (1 - NOISE) * math.exp((chosen - best) / TEMPERATURE) / total


def deal_weight(view: View, pasts: list[PastPlay], hidden: Hidden) -> float:
    """Return the chance of the others' plays this packet if ``hidden`` is the deal."""
    weight = 1.0
    for past in pasts:
        weight *= play_chance(view, past, tuple(hidden.hands[past.seat]))
    return weight


def candidates_of(view: View, plays: list[Play], settings: SearchSettings) -> list[Play]:
    """Return the best plays by level 3's appraisal plus the follow-up (`partner`), the
    best first: the play that stands unless the search beats it clearly."""
    pos = position_of(view)
    ranked = partner_ranked(view, without_gifts(pos, plays))  # R8: never a gift
    best = ranked[0][0]
    return [
        play for worth, play in ranked[: settings.candidates] if worth >= best - settings.window
    ]


@register(6)
def belief_search(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring."""
    decided, action = routine(view, legal)
    if decided:
        return action
    if budget.samples:
        budget = Budget(budget.samples * SAMPLE_FACTOR, budget.deadline, budget.clock)
    plays = [a for a in legal if isinstance(a, Play) and a.seat == view.viewer]
    candidates = candidates_of(view, plays, LEVEL6)
    if len(candidates) == 1:
        return candidates[0]
    pasts = past_plays(view)
    margins = margins_of(view, candidates, LEVEL6)
    weights: list[float] = []

    def weigh(hidden: Hidden) -> None:
        weights.append(deal_weight(view, pasts, hidden))

    values = search(view, candidates, rng, budget, LEVEL6, win_value, margins, weigh, weights)
    return candidates[clearly_better(values, LEVEL6, margins, weights)]
