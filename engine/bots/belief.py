"""Level 6: level 5's search, valuing a packet's end by the rest of the hand, and racing.

Level 6 differs from level 5 (`deep`, whose deals, margins and adaptive stop it keeps) in
what a playout is worth, which plays it weighs, and where its deals go:

- Worth (`rest_value`): a playout stopped at the next packet's deal, mid-hand, is valued by
  the chance of winning over what the rest of the hand brought from such a packet in level-3
  self-play (`rest`, trained by `cuarenta train`): the team leading the next packet takes
  more of a crowded table, some cards are never won, and the packets to come still score.
  Level 5 splits the cards left evenly and scores nothing more in the hand.
- Plays: level 3 weighs a play by what it scores less the next opponent's best reply; the
  follow-up (`partner.follow_up`) adds what the seat after that one, its partner (heads-up:
  its own next card), can make of the opponent's trail on the table the play leaves.
  Heads-up the plays are ranked so (the first stands unless the search beats it clearly).
  In pagat-4p, where ranked first it lost to level 5 as served, level 3's ranking stands and
  the follow-up's favourite is one more candidate for the search to judge.
- Deals (`SearchSettings.race`): at each of the adaptive stop's checks, candidates already
  clearly short of their margin are played out no more, so the deals left in the budget go
  to the plays still in doubt.

A belief is here too, off (`WEIGHTED`): each sampled deal weighed by the chance that the
others, holding what the deal gives them, made the plays they made this packet. A seat's
chance of a play is a softmax of level 3's appraisal of its plays then (`TEMPERATURE`
points make a play e times less likely), mixed with `NOISE` of plays that follow no model;
the seat's position then is rebuilt from the public record (the scores are today's). The
gains over the first candidate are then weighted means, their standard errors those of the
effective sample size. Measured against the true deals of level-3 self-play, at equal
time, it chose no better than level 5's filter (BENCHMARKS.md, bots), and it costs about
half as much again per deal, so within the server's budget it plays fewer deals.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from engine.actions import Action, Play
from engine.bots.counting import Position, own_plays, position_of, ranked_plays, without_gifts
from engine.bots.deep import GAME_VALUE, LEVEL5, POINT_WEIGHT, SAMPLE_FACTOR, chance_of
from engine.bots.partner import partner_ranked
from engine.bots.registry import Budget, register
from engine.bots.rest import key_of, known, rest_chance
from engine.bots.routine import routine
from engine.bots.search import (
    Outcome,
    SearchSettings,
    clearly_better,
    margins_of,
    points_and_count,
    scores_with_awards,
    search,
)
from engine.captures import can_capture, captures
from engine.phase import Phase
from engine.state import Hidden
from engine.views import View

#: a play worse, by level 3's appraisal, by this many points is e times less likely.
TEMPERATURE = 1.0
#: the share of plays that follow no model: no deal is ever ruled out.
NOISE = 0.1

#: the tables where the follow-up ranks the plays: heads-up, where the follower is the player
#: itself and its hand is known. In pagat-4p, where the partner's hand is a chance, level 6
#: with it lost to level 5 as served (BENCHMARKS.md, bots), so there level 6 plays as level 5.
FOLLOW_UP_SEATS = (2,)

#: weigh the deals by the others' plays (the belief above); off: measured not to pay as
#: served (BENCHMARKS.md, bots), where its cost per deal means fewer deals in the budget.
WEIGHTED = False

#: level 5's settings; with `WEIGHTED` the deals lose level 5's trail filter (the weights
#: carry that evidence) and an override needs one standard error, two to decline.
LEVEL6 = replace(LEVEL5, race=True)
LEVEL6_WEIGHTED = SearchSettings(
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


def rest_value(game: Outcome, team: int) -> float:
    """Return a playout's worth as level 5 reckons it (`deep.win_value`), but where the playout
    stopped at a packet's deal mid-hand, the chance of winning from what the rest of the hand
    brought in self-play (`rest`), not from an even split of the cards left."""
    phase = game._phase
    rules = game.rules
    key = key_of(rules.packets_per_hand - game.packet, len(game._table))
    if (phase is Phase.PLAY or phase is Phase.ANNOUNCE) and known(rules.profile, key):
        scores = scores_with_awards(game)  # R10 awards due, as `chance_of`
        piles = game.pile_sizes
        chance = rest_chance(
            rules.profile,
            key,
            scores[team],
            scores[1 - team],
            piles[team],
            piles[1 - team],
            game.dealer & 1 == team,
            not rules.count_at_38,
        )
    else:
        chance = chance_of(game, team)
    return GAME_VALUE * chance + POINT_WEIGHT * points_and_count(game, team)


def candidates_of(view: View, plays: list[Play], settings: SearchSettings) -> list[Play]:
    """Return the plays the search weighs, the one that stands unless beaten clearly first.

    Heads-up (`FOLLOW_UP_SEATS`): the best by level 3's appraisal plus the follow-up
    (`partner`). Elsewhere level 3's best, and the follow-up's favourite as one more
    candidate: the search, not the follow-up, decides whether the partner's chance is worth
    it (ranked first, the follow-up lost to level 5; BENCHMARKS.md, bots).
    """
    pos = position_of(view)
    plays = without_gifts(pos, plays)  # R8: never a gift
    follow = view.rules.seats in FOLLOW_UP_SEATS
    ranked = partner_ranked(view, plays) if follow else ranked_plays(pos, plays)
    best = ranked[0][0]
    chosen = [
        play for worth, play in ranked[: settings.candidates] if worth >= best - settings.window
    ]
    if not follow and len(plays) > 1:
        favourite = partner_ranked(view, plays)[0][1]
        if favourite not in chosen:
            chosen.append(favourite)
    return chosen


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
    plays = own_plays(view, legal)
    settings = LEVEL6_WEIGHTED if WEIGHTED else LEVEL6
    candidates = candidates_of(view, plays, settings)
    if len(candidates) == 1:
        return candidates[0]
    margins = margins_of(view, candidates, settings)
    if not WEIGHTED:
        values = search(view, candidates, rng, budget, settings, rest_value, margins)
        return candidates[clearly_better(values, settings, margins)]
    pasts = past_plays(view)
    weights: list[float] = []

    def weigh(hidden: Hidden) -> None:
        weights.append(deal_weight(view, pasts, hidden))

    values = search(view, candidates, rng, budget, settings, rest_value, margins, weigh, weights)
    return candidates[clearly_better(values, settings, margins, weights)]
