"""Level 5: level 4's search, aimed at winning the game and looking past the packet.

Level 4 scores a playout by the points at the end of the packet. Level 5 keeps level 4's
short, low-noise playouts (to the end of the packet, level 3 in every seat, every candidate
on the same sampled deals) and changes what it looks at and what it wants:

- Goal and horizon: a playout is worth the chance of winning the game (`winchance`, R12)
  from where the packet leaves it, looking past the packet: the hand's count is still to
  come, so the chance is averaged over the count each split of the remaining cards gives
  (R11, each card to either team with even chance), after the R10 awards still due. So the
  30 (no more rondas nor awards), 36 and 38 thresholds (R6, R9, R10) and a game won in play
  weigh what they are worth. Points weigh a little, so equal chances go to more points.
  (An earlier level 5 played the whole hand out instead: in heads-up, four packets long,
  those playouts were too noisy and it lost to level 4.)
- Inference: it reads how the others played — a seat that let a caída go (R9) probably
  holds no card of that rank — and deals its samples accordingly (`sampling`).
- Effort: it may think longer than level 4 (at the server 500 ms against 300 ms), and
  spends it on `SAMPLE_FACTOR` deals per sample of the budget: with more deals the standard
  error of a candidate's gain shrinks, so it can consider more of level 3's plays and
  override level 3 on smaller, still clear, gains.

Strategy fusion (choosing each deal's best line as if the hidden cards were known) does not
arise in these playouts: every later move, its own included, is level 3's, computed from
what that seat can see (`playout.position_in`), so only the play at the root is chosen,
once, on the average over all deals.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import comb

from engine.actions import Action
from engine.bots.registry import Budget, register
from engine.bots.search import (
    Outcome,
    SearchSettings,
    decide,
    points_and_count,
    scores_with_awards,
)
from engine.bots.winchance import win_chance
from engine.phase import Phase
from engine.scoring import count_points
from engine.views import View

#: deals level 5 plays out per sample of its budget (see the module docstring).
SAMPLE_FACTOR = 4

LEVEL5 = SearchSettings(
    candidates=4,
    window=6.0,
    override=0.25,
    confidence=2.0,
    samples=24 * SAMPLE_FACTOR,
    max_samples=1600,
    whole_hand=False,
    declined=True,
)
#: a whole game, in points: the weight of the chance of winning against points.
GAME_VALUE = 40.0
#: what a point of margin adds: ties between equal chances go to points, and the count and
#: R9 points still steer play while the chance barely moves (early in a game).
POINT_WEIGHT = 0.25


@lru_cache(maxsize=65536)
def expected_chance(
    profile: str,
    own: int,
    other: int,
    own_pile: int,
    other_pile: int,
    remaining: int,
    own_deals_now: bool,
    zero_at_38: bool,
) -> float:
    """Return the chance of winning once the hand is counted, over the splits of the rest.

    The ``remaining`` cards still to be won go to either team with even chance (as
    `odds.count_margin` assumes); after the count the deal passes left (R12), to the other
    team.
    """
    dealer_team = 0 if own_deals_now else 1
    total = 0.0
    weight = 0.5**remaining
    for gained in range(remaining + 1):
        piles = (own_pile + gained, other_pile + remaining - gained)
        points = count_points(piles, dealer_team)
        mine = points[0] if not (zero_at_38 and own == 38) else 0
        theirs = points[1] if not (zero_at_38 and other == 38) else 0
        chance = win_chance(profile, own + mine, other + theirs, not own_deals_now)
        total += comb(remaining, gained) * weight * chance
    return total


def chance_of(game: Outcome, team: int) -> float:
    """Return the chance ``team`` wins the game from where a playout stopped (see above)."""
    rules = game.rules
    if game._phase is Phase.FINISHED:
        winner = game._winner
        return 0.5 if winner == "draw" else float(winner == team)
    own_deals = game.dealer & 1 == team
    if game._phase is Phase.WAITING:  # counted already (no claim window): the deal passed
        scores = game._scores
        return win_chance(rules.profile, scores[team], scores[1 - team], own_deals)
    due = scores_with_awards(game)  # R10 awards due, before the count
    piles = game.pile_sizes
    # in the claim window every card is played: what lies on the table goes to nobody (R11)
    remaining = 0 if game._phase is Phase.CLAIMS else 40 - piles[0] - piles[1]
    return expected_chance(
        rules.profile,
        due[team],
        due[1 - team],
        piles[team],
        piles[1 - team],
        remaining,
        own_deals,
        not rules.count_at_38,
    )


def win_value(game: Outcome, team: int) -> float:
    """Return a playout's worth: the chance of winning the game, in points, plus a little."""
    return GAME_VALUE * chance_of(game, team) + POINT_WEIGHT * points_and_count(game, team)


@register(5)
def win_search(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring."""
    if budget.samples:
        budget = Budget(budget.samples * SAMPLE_FACTOR, budget.deadline, budget.clock)
    return decide(view, legal, rng, budget, LEVEL5, win_value)
