"""Review a finished game: each play judged by the search at what its seat knew then.

For every play in a game record (R15) the game is replayed to just before it, and the seat
that made it is asked, through its own `View` only, what level 5 would have played
(`hint.appraise`: every distinct play valued on the same deals of the hidden cards, sampled
from that view with a generator seeded from the view and a fixed seed). No hindsight: the
cards the seat could not see reach the judgement only as the view's unseen set, so
re-dealing them consistently with the view changes nothing.

A play's **loss** is the expected points (level 5's measure: the chance of winning, a game
being worth 40 points, plus a quarter of the score margin) of the recommended play minus
those of the play made, deal by deal, never below 0; its **charged** loss is that less one
standard error (the deals are shared, so the error is small), never below 0, so the noise
of the deals alone never makes a sound play a mistake. Where the loss, give or take two
standard errors, could lie on either side of a grade's threshold, the position is searched
again on `WIDEN` times the deals (the error halves) before it is graded, so a mark stands on
an estimate whose error is small against the thresholds. Every step says how ``sure`` its
grade is: for a mark, the chance by the paired estimate that the play lost at least the
mark's threshold (at least 0.84, the charged loss being one error below the estimate); for
``good``, that it lost less than an inaccuracy. A play whose seat had one choice (up to
suits, R2) is ``forced`` and not judged. The grades, by charged loss in points (chosen
from reviews of bot games, where they separate levels 1, 2, 3 and 5: docs/coach.md):

- ``good`` below `INACCURACY` (0.5): within the noise of the deals, or a sound alternative;
- ``inaccuracy`` below `MISTAKE` (1.5): about a card of the count or a few % of the game;
- ``mistake`` below `BLUNDER` (3.0): about a caída (R9, 2 points) or more given away;
- ``blunder`` from 3.0: a caída with limpia handed over, or worse.

A seat's **accuracy** is 100 times the mean, over its judged plays, of ``exp(-charged /
ACCURACY_SCALE)``: 100 for a seat that always played level 5's play (or as well), about 78
for a loss of half a point a play, 22 for three. Announcements, claims and missed-card
takes are the routine of every bot (`routine`) and are not judged.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from typing import Any

from engine.actions import Action, Play, action_from_json
from engine.bots import Budget
from engine.bots.hint import PlayValue, appraise, distinct_plays, play_value
from engine.errors import IllegalAction
from engine.game import Game
from engine.record import Record
from engine.views import View

#: the loss (in points) from which a play is an inaccuracy, a mistake, a blunder.
INACCURACY = 0.5
MISTAKE = 1.5
BLUNDER = 3.0
#: the loss (in points) that divides a play's share of accuracy by e.
ACCURACY_SCALE = 2.0
#: the budget of each judged play, in level 5's samples (`deep.SAMPLE_FACTOR` deals each).
REVIEW_BUDGET = Budget(samples=16)
GRADES = ("good", "inaccuracy", "mistake", "blunder")
THRESHOLDS = (INACCURACY, MISTAKE, BLUNDER)
#: an uncertain position is searched again on this many times the deals (its error halves).
WIDEN = 4


def grade_of(loss: float) -> str:
    """Return the grade of a play that lost ``loss`` points (see the module docstring)."""
    if loss < INACCURACY:
        return "good"
    if loss < MISTAKE:
        return "inaccuracy"
    return "mistake" if loss < BLUNDER else "blunder"


@dataclass(frozen=True, slots=True)
class Step:
    """One play of the record: ``index`` in its actions, the play made and the better play
    (the play made itself when it was worth level 5's play or more), and the grade
    (``forced``: one choice)."""

    index: int
    seat: int
    hand: int
    packet: int
    played: PlayValue
    best: PlayValue
    loss: float
    error: float
    grade: str
    deals: int
    sure: float = 1.0

    @property
    def charged(self) -> float:
        """The loss the grade and the accuracy count: less one standard error, at least 0."""
        return max(0.0, self.loss - self.error)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-able form."""
        return {
            "index": self.index,
            "seat": self.seat,
            "hand": self.hand,
            "packet": self.packet,
            "played": self.played.to_json(),
            "best": self.best.to_json(),
            "loss": round(self.loss, 3),
            "error": round(self.error, 3),
            "grade": self.grade,
            "deals": self.deals,
            "sure": round(self.sure, 2),
        }


@dataclass(frozen=True, slots=True)
class SeatReview:
    """One seat's figures: its judged plays, accuracy, mean loss and plays of each grade."""

    seat: int
    judged: int
    accuracy: float | None
    mean_loss: float | None
    grades: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-able form."""
        return {
            "seat": self.seat,
            "judged": self.judged,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "mean_loss": None if self.mean_loss is None else round(self.mean_loss, 3),
            "grades": dict(self.grades),
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A game's review: every play's `Step` in record order and every seat's figures."""

    steps: tuple[Step, ...]
    seats: tuple[SeatReview, ...]
    samples: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-able form (to be stored beside the record)."""
        return {
            "format": "cuarenta-review/1",
            "samples": self.samples,
            "seed": self.seed,
            "steps": [step.to_json() for step in self.steps],
            "seats": [seat.to_json() for seat in self.seats],
        }


def judge(
    view: View, legal: tuple[Action, ...], made: Play, budget: Budget, seed: int, index: int = -1
) -> Step:
    """Judge ``made``, action ``index`` of a record, in ``view`` (its seat's own view and
    nothing more) against level 5's play; see the module docstring."""
    seat, hand, packet = made.seat, view.hand_number, view.packet
    if len(distinct_plays(view, legal)) == 1:
        forced = play_value(view, made, 0.0)
        return Step(index, seat, hand, packet, forced, forced, 0.0, 0.0, "forced", 0)
    appraisal = appraise(view, legal, budget, seed)
    assert appraisal is not None, "a play was made, so the seat had plays"
    at = appraisal.index_of(made)
    gain, error = appraisal.gain(appraisal.best, at)
    if budget.samples and gain > 0.0 and straddles(gain, error):
        wider = appraise(view, legal, replace(budget, samples=budget.samples * WIDEN), seed)
        assert wider is not None
        appraisal, at = wider, wider.index_of(made)
        gain, error = appraisal.gain(appraisal.best, at)
    played = replace(appraisal.plays[at], play=made)  # the very cards, not an equal play
    if gain <= 0.0:  # worth level 5's play or more: nothing better to show
        return Step(index, seat, hand, packet, played, played, 0.0, 0.0, "good", appraisal.deals)
    best = appraisal.recommended
    grade = grade_of(max(0.0, gain - error))  # = Step.charged
    sure = certainty(gain, error, grade)
    return Step(index, seat, hand, packet, played, best, gain, error, grade, appraisal.deals, sure)


def straddles(loss: float, error: float) -> bool:
    """Tell whether ``loss``, give or take two standard errors, crosses a grade's threshold."""
    return any(loss - 2 * error < threshold <= loss + 2 * error for threshold in THRESHOLDS)


def certainty(loss: float, error: float, grade: str) -> float:
    """The chance that a play estimated to lose ``loss`` (standard error ``error``, normal)
    lost at least ``grade``'s threshold; for ``good``, that it lost less than an inaccuracy."""
    rank = GRADES.index(grade)
    threshold = THRESHOLDS[rank - 1] if rank else INACCURACY
    if error <= 0.0:
        return 1.0
    below = statistics.NormalDist(loss, error).cdf(threshold)
    return below if grade == "good" else 1.0 - below


def summarize(seat: int, steps: list[Step]) -> SeatReview:
    """Return ``seat``'s figures from its judged steps (see the module docstring)."""
    judged = [step for step in steps if step.seat == seat and step.grade != "forced"]
    counts = tuple((grade, sum(1 for s in judged if s.grade == grade)) for grade in GRADES)
    if not judged:
        return SeatReview(seat, 0, None, None, counts)
    credit = [math.exp(-step.charged / ACCURACY_SCALE) for step in judged]
    mean_loss = statistics.fmean(step.loss for step in judged)
    return SeatReview(seat, len(judged), 100 * statistics.fmean(credit), mean_loss, counts)


def review(record: Record, budget: Budget = REVIEW_BUDGET, seed: int = 0) -> Review:
    """Review every play of ``record`` (see the module docstring); deterministic.

    A game in progress is reviewed up to its last action; an illegal action raises
    `IllegalAction` with its index, as replaying the record would (R15).
    """
    game = Game.from_record(record, play_actions=False)
    steps: list[Step] = []
    for index, obj in enumerate(record.actions):
        try:
            action = action_from_json(obj)
            if isinstance(action, Play) and action in game.legal_actions(action.seat):
                legal = game.legal_actions(action.seat)
                view = game.view(action.seat)
                steps.append(judge(view, legal, action, budget, seed, index))
            game.apply(action)
        except IllegalAction as error:
            error.index = index
            raise
    seats = tuple(summarize(seat, steps) for seat in range(game.rules.seats))
    return Review(tuple(steps), seats, budget.samples or 0, seed)
