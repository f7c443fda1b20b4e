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

- Belief (`WEIGHTED_SEATS`): each sampled deal weighed by the chance that the others,
  holding what the deal gives them, made the plays they made this packet (`infer`). The
  gains over the first candidate are then weighted means, their standard errors those of
  the effective sample size, and the deals lose level 5's trail filter (the weights carry
  that evidence).

Where level 6 measured worse than level 5 as served (`LEVEL5_SEATS`), it plays level 5's
search: a higher level is never the weaker one.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.actions import Action, Play
from engine.bots.counting import own_plays, position_of, ranked_plays, without_gifts
from engine.bots.deep import (
    GAME_VALUE,
    LEVEL5,
    POINT_WEIGHT,
    SAMPLE_FACTOR,
    chance_of,
    win_search,
)
from engine.bots.infer import Likelihood
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
from engine.bridge import Deals
from engine.phase import Phase
from engine.state import Hidden
from engine.views import View

#: the tables where the follow-up ranks the plays: heads-up, where the follower is the player
#: itself and its hand is known. In pagat-4p, where the partner's hand is a chance, level 6
#: with it lost to level 5 as served (BENCHMARKS.md, bots).
FOLLOW_UP_SEATS = (2,)

#: the tables where the deals are weighed by the others' plays (the belief above, `infer`).
WEIGHTED_SEATS: tuple[int, ...] = (4,)
#: the tables where level 6 plays level 5's search: where, as served, it measured worse than
#: level 5 (its mean margin below zero; BENCHMARKS.md, bots), so it is never the weaker.
LEVEL5_SEATS: tuple[int, ...] = (2,)

#: level 5's settings, racing; weighted, level 5's without its trail filter (the weights
#: carry that evidence) nor the race (its drops read unweighted gains).
LEVEL6 = replace(LEVEL5, race=True)
LEVEL6_WEIGHTED = replace(LEVEL5, declined=False)


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
    seats = view.rules.seats
    if seats in LEVEL5_SEATS:
        return win_search(view, legal, rng, budget)
    decided, action = routine(view, legal)
    if decided:
        return action
    if budget.samples:
        budget = Budget(budget.samples * SAMPLE_FACTOR, budget.deadline, budget.clock)
    plays = own_plays(view, legal)
    weighted = seats in WEIGHTED_SEATS
    settings = LEVEL6_WEIGHTED if weighted else LEVEL6
    candidates = candidates_of(view, plays, settings)
    if len(candidates) == 1:
        return candidates[0]
    margins = margins_of(view, candidates, settings)
    if not weighted:
        values = search(view, candidates, rng, budget, settings, rest_value, margins)
        return candidates[clearly_better(values, settings, margins)]
    weights: list[float] = []
    likelihood: list[Likelihood] = []

    def weigh(hidden: Hidden) -> None:
        if not likelihood:
            likelihood.append(Likelihood(view, Deals(view).core(hidden)))
        weights.append(likelihood[0].weight(hidden))

    values = search(view, candidates, rng, budget, settings, rest_value, margins, weigh, weights)
    return candidates[clearly_better(values, settings, margins, weights)]
