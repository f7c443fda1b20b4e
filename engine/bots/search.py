"""Level 4: level 3, checked by playing its best few plays out on sampled deals.

Before a play it deals the unseen cards many times (`sampling`: consistent with announcements,
a cuarenta not shown, cards a seat could not hold), and for each deal plays each candidate
and the rest of the packet out with level 3 in every seat (`playout`), scoring the team's
points plus the expected value of its card count (`odds.count_margin`, R11). Every candidate
meets the same deals, so their difference is the play, not the luck of the sample.

Why not every legal play, and why only override level 3 when clearly better: in the
four-player game a playout with level-3 partners misjudges plays that need a partner's help
(naive versions of this search lose to level 3). So the candidates are level 3's best few,
and level 3's own choice stands unless another one beats it clearly: by a margin, and by
two standard errors, so sampling noise alone rarely makes the difference; to decline a
caída or a limpia level 3 takes (R9), which a human partner reads as a blunder when it is
not clearly right, the margin is a point larger (`SearchSettings.decline`).

Samples are spent adaptively: after `SearchSettings.least` deals, and every few deals
after that, the search stops once every candidate is decided — clearly better than level
3's choice, or clearly not — so easy decisions cost a few deals and the budget goes to the
close ones. Under a deadline alone (the server) the search plays more deals before it may
stop (`SearchSettings.served_least`) and may play many more in all (``max_samples``): the
fast core plays the same time's worth of deals several times over, so the served search
settles its choice surer at the same latency; at fixed samples nothing changes.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass

from engine.actions import Action, Play
from engine.bots.counting import WIN_VALUE, own_plays, position_of, ranked_plays, without_gifts
from engine.bots.fastplay import play_out
from engine.bots.greedy import capture_points
from engine.bots.odds import count_margin
from engine.bots.registry import Budget, register
from engine.bots.routine import routine
from engine.bots.sampling import evidence_of, sampler_of
from engine.bridge import Deals, move_of
from engine.core import Core
from engine.coredeals import deal_hidden
from engine.game import Game
from engine.phase import Phase
from engine.scoring import count_points
from engine.state import Hidden
from engine.views import View

#: the deals a served search plays before it may stop (`SearchSettings.served_least`)
SERVED_LEAST = 160


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How a sampling search spends its budget (levels 4 and 5 differ only here)."""

    candidates: int  # level 3's best plays considered
    window: float  # ... among those within this many points of level 3's best
    override: float  # a candidate must beat level 3's choice by this much on average
    confidence: float  # ... and by this many standard errors of that average
    samples: int  # samples when the budget gives neither samples nor a deadline
    max_samples: int  # cap under a deadline
    whole_hand: bool  # play the hand out, not just the packet
    declined: bool = False  # believe a seat that let a caída go lacks that rank (sampling)
    decline: float = 1.0  # the extra gain needed to decline level 3's caída or limpia (R9)
    least: int = 8  # deals before the search may stop early (every `every` deals after)
    every: int = 4
    #: ``least`` and ``every`` under a deadline alone (the server): the fast core plays
    #: several times the deals the server's budget bought before it, and a search that
    #: plays at least these many before it may stop spends them on a surer choice
    served_least: int = SERVED_LEAST
    served_every: int = 16
    #: the standard errors needed to decline level 3's caída or limpia (None: ``confidence``)
    decline_confidence: float | None = None
    #: at each check, stop playing out the candidates already clearly short of their margin,
    #: so the deals left go to the candidates still in doubt (level 6)
    race: bool = False

    def confidence_for(self, margin: float) -> float:
        """The standard errors a candidate needing ``margin`` (`margins_of`) must clear."""
        if self.decline_confidence is None or margin < self.override + self.decline:
            return self.confidence
        return self.decline_confidence


LEVEL4 = SearchSettings(
    candidates=3,
    window=4.0,
    override=0.5,
    confidence=2.0,
    samples=24,
    max_samples=800,
    whole_hand=False,
)

#: what a playout's end is read as: a fast core (a search's playouts), or a `Game` (others)
Outcome = Core | Game
Evaluate = Callable[[Outcome, int], float]


def points_and_count(game: Outcome, team: int) -> float:
    """Return the team's score margin plus its expected count margin (R11) and R10 awards."""
    scores = game._scores
    value = float(scores[team] - scores[1 - team])
    if game._phase is Phase.FINISHED:
        return value + (WIN_VALUE if game._winner == team else -WIN_VALUE)
    piles = game.pile_sizes
    if game._phase is not Phase.CLAIMS:  # the hand goes on: the count is still a chance
        return value + count_margin(piles[team], piles[1 - team], game.dealer & 1 == team)
    due = scores_with_awards(game)
    count = count_points(piles, game.dealer & 1)  # the hand is over: the exact count (R11)
    return float(due[team] - due[1 - team] + count[team] - count[1 - team])


def scores_with_awards(game: Outcome) -> tuple[int, int]:
    """Return the scores once the R10 awards still due are claimed (bots claim them all):
    each adds 10 while its team is below 30, checked claim by claim (R10)."""
    scores = list(game._scores)
    for owner, _ in game._r10:
        if scores[owner] < 30:
            scores[owner] += 10
    return scores[0], scores[1]


def candidates_of(view: View, plays: list[Play], settings: SearchSettings) -> list[Play]:
    """Return level 3's best plays, its own first choice first."""
    pos = position_of(view)
    ranked = ranked_plays(pos, without_gifts(pos, plays))  # R8: never a gift, even on noise
    best = ranked[0][0]
    return [
        play for worth, play in ranked[: settings.candidates] if worth >= best - settings.window
    ]


def search(
    view: View,
    candidates: list[Play],
    rng: random.Random,
    budget: Budget,
    settings: SearchSettings,
    evaluate: Evaluate,
    margins: list[float] | None = None,
    weigh: Callable[[Hidden], None] | None = None,
    weights: list[float] | None = None,
) -> list[list[float]]:
    """Return each candidate's values, one per sampled deal (the same deals for all).

    With ``margins`` (each candidate's `margins_of`) it stops as soon as every candidate is
    `decided`; under a deadline it starts no deal the last one's time says would end past
    it, and stops at the first playout that passes it, keeping only whole deals (none if it
    has passed already: level 3's choice then stands). ``weigh`` is called with each whole
    deal (level 6 appends its weight to ``weights``).
    """
    team = view.viewer & 1  # type: ignore[operator]
    evidence = evidence_of(view, settings.declined)
    limit = budget.samples or (settings.max_samples if budget.deadline else settings.samples)
    served = budget.samples is None and budget.deadline is not None
    least = settings.served_least if served else settings.least
    every = settings.served_every if served else settings.every
    values: list[list[float]] = [[] for _ in candidates]
    moves = [move_of(play) for play in candidates]
    deals, sampler = Deals(view), sampler_of(view, evidence)
    live = list(range(len(candidates)))  # the candidates still played out (`race`)
    done = 0
    clock, deadline = budget.clock, budget.deadline
    timed = clock is not None and deadline is not None
    now = clock() if clock is not None and timed else 0.0  # read once a deal, at its end
    last = 0.0  # how long the last deal took (on ``clock``)
    while done < limit:
        if timed and now + last >= deadline:  # type: ignore[operator]
            break
        began = now
        dealt = deal_hidden(sampler, rng)  # `sample_hidden`'s deal, on ints
        base = deals.lay(dealt)  # the fast core plays it out
        deal: list[float] = []
        for index in live:
            if deal and budget.expired():  # out of time mid-deal: drop the deal unfinished
                return values
            game = base.copy()
            game.apply(moves[index])
            play_out(game, settings.whole_hand)
            deal.append(evaluate(game, team))
        for index, value in zip(live, deal, strict=True):
            values[index].append(value)
        if clock is not None and timed:
            now = clock()
            last = now - began
        if weigh is not None:
            seats = view.rules.seats
            weigh(Hidden(tuple(tuple(hand) for hand in dealt[:seats]), tuple(dealt[seats])))
        done += 1
        check = done >= least and (done - least) % every == 0
        if margins and check:
            if decided(values, margins, settings, weights):
                break
            if settings.race:
                live = [0, *(i for i in live[1:] if not short(values, i, margins, settings))]
    return values


def margins_of(view: View, candidates: list[Play], settings: SearchSettings) -> list[float]:
    """Return the gain over level 3's choice (the first) each candidate needs to be played:
    ``override``, plus ``decline`` where the first scores R9 points now and it scores fewer."""
    first = capture_points(view, candidates[0]) if candidates[0].take else 0
    margins = [0.0]
    for play in candidates[1:]:
        points = capture_points(view, play) if play.take else 0
        margins.append(settings.override + (settings.decline if points < first else 0.0))
    return margins


def short(
    values: list[list[float]], index: int, margins: list[float], settings: SearchSettings
) -> bool:
    """Tell whether candidate ``index`` is clearly short of its margin (``confidence``
    standard errors below it): more deals would hardly make it the choice."""
    gain, error = _gain(values, index)
    return gain + settings.confidence_for(margins[index]) * error < margins[index]


def _gain(
    values: list[list[float]], index: int, weights: list[float] | None = None
) -> tuple[float, float]:
    """Return the mean gain of candidate ``index`` over the first, deal by deal, and its
    standard error (with ``weights``: the weighted mean, over the effective sample size).

    A candidate dropped from a `race` has fewer values: they pair with the first's values of
    the same deals, its first ones."""
    gains = [mine - first for mine, first in zip(values[index], values[0], strict=False)]
    if weights is None:
        gain = math.fsum(gains) / len(gains)  # `statistics.fmean`
        error = stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
        return gain, error
    weights = weights[: len(gains)]
    total = math.fsum(weights)
    if total <= 0.0:
        return 0.0, math.inf
    gain = math.fsum(w * g for w, g in zip(weights, gains, strict=True)) / total
    spread = math.fsum(w * (g - gain) ** 2 for w, g in zip(weights, gains, strict=True)) / total
    effective = total * total / math.fsum(w * w for w in weights)
    return gain, math.sqrt(spread / effective) if effective > 1.0 else math.inf


#: bits beyond a float's precision that make the rounded-to-odd root round correctly
_SQRT_BITS = 2 * sys.float_info.mant_dig + 3


def stdev(data: list[float]) -> float:
    """Return ``statistics.stdev(data)``, the very same float, without fractions.

    As `statistics` does, the variance is exact (floats are fractions over powers of two:
    here over their largest denominator, in ints) and its square root correctly rounded, so
    every comparison of a gain with its error, and every decision, is as before."""
    ratios = [value.as_integer_ratio() for value in data]
    scale = max(denominator for _, denominator in ratios)
    total = squares = 0
    for numerator, denominator in ratios:
        scaled = numerator * (scale // denominator)
        total += scaled
        squares += scaled * scaled
    count = len(data)
    return _sqrt_of_fraction(count * squares - total * total, count * (count - 1) * scale * scale)


def _sqrt_of_fraction(n: int, m: int) -> float:
    """The square root of n/m as a float, correctly rounded (`statistics`' own method)."""
    q = (n.bit_length() - m.bit_length() - _SQRT_BITS) // 2
    if q >= 0:
        root = _root_to_odd(n, m << 2 * q) << q
        return root / 1
    return _root_to_odd(n << -2 * q, m) / (1 << -q)


def _root_to_odd(n: int, m: int) -> int:
    """The square root of n/m, rounded to an integer to odd."""
    root = math.isqrt(n // m)
    return root | (root * root * m != n)


def decided(
    values: list[list[float]],
    margins: list[float],
    settings: SearchSettings,
    weights: list[float] | None = None,
) -> bool:
    """Tell whether more deals would hardly change the choice: every other candidate's gain
    is beyond its confidence's standard errors of its margin (clearly above or below)."""
    for index in range(1, len(values)):
        gain, error = _gain(values, index, weights)
        confidence = settings.confidence_for(margins[index])
        if abs(gain - margins[index]) <= confidence * error:
            return False
    return True


def clearly_better(
    values: list[list[float]],
    settings: SearchSettings,
    margins: list[float] | None = None,
    weights: list[float] | None = None,
) -> int:
    """Return the candidate that beats the first (level 3's choice) clearly, else 0.

    Clearly: its mean gain over the first, deal by deal, exceeds its margin (``override``,
    or `margins_of`) and ``confidence`` standard errors of that gain, so sampling noise
    alone rarely overrides. Of several, the one with the largest gain.
    """
    if not values or not values[0]:
        return 0
    best, best_gain = 0, 0.0
    for index in range(1, len(values)):
        gain, error = _gain(values, index, weights)
        margin = settings.override if margins is None else margins[index]
        confidence = settings.confidence_for(margin)
        if gain > margin and gain > confidence * error and gain > best_gain:
            best, best_gain = index, gain
    return best


def decide(
    view: View,
    legal: tuple[Action, ...],
    rng: random.Random,
    budget: Budget,
    settings: SearchSettings,
    evaluate: Evaluate,
) -> Action | None:
    """Choose a play by sampling search (or the routine action outside plays)."""
    decided, action = routine(view, legal)
    if decided:
        return action
    plays = own_plays(view, legal)
    candidates = candidates_of(view, plays, settings)
    if len(candidates) == 1:
        return candidates[0]
    margins = margins_of(view, candidates, settings)
    values = search(view, candidates, rng, budget, settings, evaluate, margins)
    return candidates[clearly_better(values, settings, margins)]


@register(4)
def sampling_search(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring."""
    return decide(view, legal, rng, budget, LEVEL4, points_and_count)
