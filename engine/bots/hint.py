"""A hint for one seat: level 5's play, in data a sentence can be built from.

`appraise` weighs every distinct play of the seat (plays equal up to suits, R2, are one)
as level 5 weighs its candidates (`deep`): it deals the cards the seat cannot see,
consistently with its view (`sampling`, the caídas let go included), plays each play and
the rest of the packet out with level 3 in every seat, and values where the packet leaves
the game by the chance of winning, in points (`deep.win_value`: a game is worth 40 points,
each point of margin a quarter more). Every play meets the same deals, so their differences
are the plays', not the luck of the sample. The recommended play is level 5's: level 3's
choice unless another of level 3's best few beats it clearly (`search.clearly_better`), so
sampling noise alone never turns a sound play into a mistake.

It reads nothing but the seat's `View` and its legal list, and its generator is seeded from
the view and a fixed seed: the same position always gets the same hint, and no card the
seat cannot see can change it.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, Play
from engine.bots import Budget
from engine.bots.counting import own_plays
from engine.bots.deep import LEVEL5, SAMPLE_FACTOR, win_value
from engine.bots.greedy import capture_points
from engine.bots.search import candidates_of, clearly_better, margins_of, search
from engine.cards import card_code
from engine.views import View

#: the budget of a hint when none is given: level 5's at a tournament (96 deals).
DEFAULT_BUDGET = Budget(samples=24)


@dataclass(frozen=True, slots=True)
class PlayValue:
    """One play as a sentence needs it: the card, what it takes, what it scores at once
    (R9 caída and limpia), and its expected worth in points (see the module docstring)."""

    play: Play
    caida: bool
    limpia: bool
    points: int
    value: float

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-able form (card codes, as in a record, R15)."""
        return {
            "card": card_code(self.play.card),
            "take": [card_code(card) for card in sorted(self.play.take)],
            "caida": self.caida,
            "limpia": self.limpia,
            "points": self.points,
            "value": round(self.value, 3),
        }


@dataclass(frozen=True, slots=True)
class Appraisal:
    """Every distinct play of a position, valued on the same ``deals``; ``best`` indexes the
    recommended one in ``plays`` (level 3's ranking first, then the others).

    Values compare deal by deal: `gain` is the mean gain of one play over another and its
    standard error, much smaller than either value's spread, since the deals are shared."""

    plays: tuple[PlayValue, ...]
    best: int
    deals: int
    target: int  # the card a caída would catch (-1: none), to match plays up to suits
    values: tuple[tuple[float, ...], ...]  # each play's value on each deal, for paired errors

    @property
    def recommended(self) -> PlayValue:
        """The play level 5 makes here."""
        return self.plays[self.best]

    def index_of(self, play: Play) -> int:
        """Return the index in ``plays`` of the play equal to ``play`` up to suits (R2)."""
        wanted = play_key(play, self.target)
        for index, each in enumerate(self.plays):
            if play_key(each.play, self.target) == wanted:
                return index
        raise ValueError(f"{play} is not one of the appraised plays")

    def gain(self, one: int, other: int) -> tuple[float, float]:
        """Return the mean gain of play ``one`` over play ``other`` and its standard error."""
        gains = [a - b for a, b in zip(self.values[one], self.values[other], strict=True)]
        if len(gains) < 2:
            return (gains[0] if gains else 0.0), 0.0
        return statistics.fmean(gains), statistics.stdev(gains) / math.sqrt(len(gains))


def play_key(play: Play, target: int) -> tuple[int, tuple[int, ...], bool]:
    """Return what makes two plays different (R2: suits never matter, but the caught card
    of a caída does, R9)."""
    return play.card >> 2, tuple(sorted(card >> 2 for card in play.take)), target in play.take


@dataclass(frozen=True, slots=True)
class Hint:
    """Level 5's play and by how much it beats the next best play (None: the only play).

    The margin can be a little below 0: level 5 keeps level 3's play against one that is
    not clearly better (`search.clearly_better`), and such a play may average a bit more."""

    play: PlayValue
    margin: float | None
    next_best: PlayValue | None
    deals: int

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-able form."""
        return {
            "play": self.play.to_json(),
            "margin": None if self.margin is None else round(self.margin, 3),
            "next_best": None if self.next_best is None else self.next_best.to_json(),
            "deals": self.deals,
        }


def distinct_plays(view: View, legal: tuple[Action, ...]) -> list[Play]:
    """Return the viewer's plays, one of each kind up to suits (R2), in legal order."""
    target = -1 if view.caida_target is None else view.caida_target
    seen: set[tuple[int, tuple[int, ...], bool]] = set()
    plays = []
    for play in own_plays(view, legal):
        key = play_key(play, target)
        if key not in seen:
            seen.add(key)
            plays.append(play)
    return plays


def play_value(view: View, play: Play, value: float) -> PlayValue:
    """Return ``play`` in ``view`` as a `PlayValue` worth ``value``."""
    target = view.caida_target
    return PlayValue(
        play=play,
        caida=target is not None and target in play.take and target >> 2 == play.card >> 2,
        limpia=bool(play.take) and len(play.take) == len(view.table),
        points=capture_points(view, play) if play.take else 0,
        value=value,
    )


def position_seed(view: View, seed: int) -> str:
    """Return the generator seed of a position: the fixed seed and where the view stands
    (hand, packet, plays so far, seat), nothing the seat cannot see."""
    return f"coach/{seed}/{view.hand_number}/{view.packet}/{len(view.history)}/{view.viewer}"


def appraise(
    view: View, legal: tuple[Action, ...], budget: Budget = DEFAULT_BUDGET, seed: int = 0
) -> Appraisal | None:
    """Value every distinct play of the viewer (None: it has no play to make).

    ``budget.samples`` counts as level 5 counts it (`deep.SAMPLE_FACTOR` deals each); under
    a deadline the deals finished in time count (none: values of 0, level 3's play stands).
    """
    plays = distinct_plays(view, legal)
    if view.turn != view.viewer or not plays:
        return None
    candidates = candidates_of(view, plays, LEVEL5)
    ordered = candidates + [play for play in plays if play not in candidates]
    if budget.samples:
        budget = Budget(budget.samples * SAMPLE_FACTOR, budget.deadline, budget.clock)
    rng = random.Random(position_seed(view, seed))
    values = search(view, ordered, rng, budget, LEVEL5, win_value)
    kept = values[: len(candidates)]
    best = clearly_better(kept, LEVEL5, margins_of(view, candidates, LEVEL5)) if kept[0] else 0
    appraised = tuple(
        play_value(view, play, statistics.fmean(each) if each else 0.0)
        for play, each in zip(ordered, values, strict=True)
    )
    target = -1 if view.caida_target is None else view.caida_target
    return Appraisal(appraised, best, len(values[0]), target, tuple(map(tuple, values)))


def hint(
    view: View, legal: tuple[Action, ...], budget: Budget = DEFAULT_BUDGET, seed: int = 0
) -> Hint | None:
    """Return level 5's play for the viewer and what it is worth (None: not its turn)."""
    appraisal = appraise(view, legal, budget, seed)
    if appraisal is None:
        return None
    best = appraisal.recommended
    others = [each for index, each in enumerate(appraisal.plays) if index != appraisal.best]
    if not others:
        return Hint(best, None, None, appraisal.deals)
    runner_up = max(others, key=lambda each: each.value)
    return Hint(best, best.value - runner_up.value, runner_up, appraisal.deals)
