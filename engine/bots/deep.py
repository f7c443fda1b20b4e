"""Level 5: level 4's search aimed at winning the game, looking past the packet.

Level 4 scores a playout by points at the end of the packet. Level 5 changes what it looks
at and what it wants:

- Horizon: each playout runs to the end of the hand (the next packets are dealt from the
  sampled stock), so the card count (R11) and R10 awards are counted, not estimated.
- Goal: the result is the chance of winning the game from the scores the hand leaves
  (`winchance`, R12), so the 30 (no more rondas, no R10 award), 36 and 38 thresholds
  (R6, R9, R10) and a game won in play weigh what they are worth; points weigh a little.
- Inference: it reads how the others played — a seat that let a caída go (R9) probably
  holds no card of that rank — and deals its samples accordingly (`sampling`).
- Candidates: like level 4, level 3's best three, and level 3's choice stands unless another
  beats it clearly. (A broader version — four candidates, a lower bar to override — lost to
  level 4 in a duplicate tournament: the noisier whole-hand playouts misled it more often.)

It keeps level 4's sampling of consistent deals and its common deals for every candidate.
"""

from __future__ import annotations

import random

from engine.actions import Action
from engine.bots import Budget, register
from engine.bots.search import SearchSettings, decide, points_and_count
from engine.bots.winchance import win_chance
from engine.game import Game
from engine.phase import Phase
from engine.scoring import count_points
from engine.views import View

LEVEL5 = SearchSettings(
    candidates=3,
    window=4.0,
    override=0.5,
    confidence=1.0,
    samples=32,
    max_samples=400,
    whole_hand=True,
    declined=True,
)
#: a whole game, in points: the weight of the chance of winning against points.
GAME_VALUE = 40.0
#: what a point of margin adds: ties between equal chances go to points, and the count and
#: R9 points still steer play while the chance barely moves (early in a game).
POINT_WEIGHT = 0.25


def _scores_after_hand(game: Game, team: int) -> tuple[int, int, bool]:
    """Return (own, other, own team deals next) once the hand's awards and count are in."""
    scores = list(game._scores)
    if game._phase is Phase.CLAIMS:  # R10 awards (bots claim all), then the R11 count
        for owner, _ in game._r10:
            if scores[owner] < 30:
                scores[owner] += 10
        piles = game.pile_sizes
        count = count_points(piles, game.dealer & 1)
        scores = [scores[0] + count[0], scores[1] + count[1]]
        next_dealer = (game.dealer + 1) % game.rules.seats
    else:  # counted already (no claim window): the deal has passed left (R12)
        next_dealer = game.dealer
    return scores[team], scores[1 - team], next_dealer & 1 == team


def win_value(game: Game, team: int) -> float:
    """Return a playout's worth: the chance of winning the game, in points, plus a little."""
    if game._phase is Phase.FINISHED:
        winner = game._winner
        chance = 0.5 if winner == "draw" else float(winner == team)
    else:
        own, other, deals = _scores_after_hand(game, team)
        chance = win_chance(game.rules.profile, own, other, deals)
    return GAME_VALUE * chance + POINT_WEIGHT * points_and_count(game, team)


@register(5)
def win_search(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring."""
    return decide(view, legal, rng, budget, LEVEL5, win_value)
