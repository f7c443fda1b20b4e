"""The learned policy: level 3's plays ranked by a small network, with no search (a stand-in).

`cuarenta train --model policy` (`engine.bots.learn`) fits, per profile, a network over
`features.NAMES` (standardised; one hidden layer of tanh units plus a linear term) to what
level 5's evaluation (`deep.win_value`: the chance of winning, a little of the points) says
each play is worth, averaged over sampled deals played out by level 3 to the packet's end.
The weights live in ``policy.json`` beside this module (tens of KB, read once; inference on
the standard library): a few hundred multiplications a play, no deals at all.

`learned_move` plays the model's best play, unless it does not beat level 3's choice by the
model's ``margin`` (chosen when it was trained): level 3 then stands, as in level 5's search.
A profile without weights plays level 3. Registered apart from the ladder
(`registry.STAND_INS`, `CHEAP_LEVEL`): it stands in for a search level, it is no rung.
Stand-ins 51 and 52 check the model's play against level 3's with a short search where the
two differ (52 stops the check once it is settled, so close calls get the deals).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from operator import mul
from pathlib import Path

from engine.actions import Action, Play
from engine.bots.counting import own_plays, position_of, ranked_plays, without_gifts
from engine.bots.deep import LEVEL5, win_value
from engine.bots.features import NAMES, features
from engine.bots.registry import Budget, stand_in
from engine.bots.routine import routine
from engine.bots.search import SearchSettings, clearly_better, search
from engine.views import View

#: where `cuarenta train --model policy` writes the weights and `weights` reads them.
POLICY_PATH = Path(__file__).with_name("policy.json")
#: the number the learned policy goes by where a level is asked for (tournaments, metrics).
CHEAP_LEVEL = 50


@dataclass(frozen=True, slots=True)
class Model:
    """One profile's network over `features.NAMES` and the gain needed to leave level 3.

    A row ``x`` is worth ``out . tanh(hidden z + bias) + linear . z``, ``z`` the row
    standardised (``(x - mean) / scale``); ``hidden`` has one tuple per hidden unit."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    hidden: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    out: tuple[float, ...]
    linear: tuple[float, ...]
    margin: float
    #: the same network with the standardisation folded into its weights (`fold`), which is
    #: what `worth` computes with: a row is then a few dot products, no per-feature division.
    folded: tuple[tuple[tuple[float, ...], ...], tuple[float, ...], tuple[float, ...], float] = (
        field(init=False, repr=False, compare=False)
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "folded", fold(self))

    def worth(self, row: list[float]) -> float:
        """The network's value of one `features` row."""
        hidden, bias, linear, offset = self.folded
        total: float = offset + sum(map(mul, linear, row))
        for unit, unit_bias, out in zip(hidden, bias, self.out, strict=True):
            total += out * math.tanh(unit_bias + sum(map(mul, unit, row)))
        return total


def fold(
    model: Model,
) -> tuple[tuple[tuple[float, ...], ...], tuple[float, ...], tuple[float, ...], float]:
    """Return ``model``'s hidden weights, biases, linear term and offset over the raw row:
    ``w . (x - m) / s + b`` is ``(w / s) . x + (b - (w / s) . m)``."""
    inverse = [1.0 / scale for scale in model.scale]

    def over_raw(weights: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(w * i for w, i in zip(weights, inverse, strict=True))

    hidden = tuple(over_raw(unit) for unit in model.hidden)
    bias = tuple(
        b - sum(map(mul, unit, model.mean)) for unit, b in zip(hidden, model.bias, strict=True)
    )
    linear = over_raw(model.linear)
    return hidden, bias, linear, -sum(map(mul, linear, model.mean))


def _floats(values: object) -> tuple[float, ...]:
    assert isinstance(values, list)
    return tuple(float(value) for value in values)


def model_of(entry: Mapping[str, object]) -> Model:
    """Return one profile's `Model` from its JSON form."""
    hidden = entry["hidden"]
    assert isinstance(hidden, list)
    margin = entry["margin"]
    assert isinstance(margin, int | float)
    return Model(
        _floats(entry["mean"]),
        _floats(entry["scale"]),
        tuple(_floats(unit) for unit in hidden),
        _floats(entry["bias"]),
        _floats(entry["out"]),
        _floats(entry["linear"]),
        float(margin),
    )


def parse(raw: Mapping[str, object]) -> dict[str, Model]:
    """Return profile -> `Model` from the JSON form (its feature names must be `NAMES`)."""
    if raw.get("names") != list(NAMES):
        return {}  # trained on other features: level 3 plays until it is trained again
    profiles = raw.get("profiles")
    assert isinstance(profiles, dict)
    return {profile: model_of(entry) for profile, entry in profiles.items()}


@lru_cache(maxsize=1)
def weights() -> Mapping[str, Model]:
    """Return the committed model (none if the file is missing)."""
    if not POLICY_PATH.exists():
        return {}
    return parse(json.loads(POLICY_PATH.read_text(encoding="utf-8")))


def scores(model: Model, view: View, plays: list[Play]) -> list[float]:
    """Return the model's worth of each play (of its `features` row)."""
    return [model.worth(row) for row in features(view, plays)]


def choose_play(view: View, plays: list[Play], model: Model | None) -> Play:
    """Return level 3's choice unless the model rates another clearly (its margin) higher."""
    pos = position_of(view)
    ranked = ranked_plays(pos, without_gifts(pos, plays))  # R8: never a gift
    first = ranked[0][1]
    if model is None or len(ranked) == 1:
        return first
    candidates = [play for _, play in ranked]
    worth = scores(model, view, candidates)
    best = max(range(len(candidates)), key=lambda i: (worth[i], -i))
    if worth[best] > worth[0] + model.margin:
        return candidates[best]
    return first


@stand_in(CHEAP_LEVEL)
def learned_move(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring (no deals: ``budget`` is not spent)."""
    decided, action = routine(view, legal)
    if decided:
        return action
    return choose_play(view, own_plays(view, legal), weights().get(view.rules.profile))


#: the stand-in that checks the model's choice with a short search (`checked_move`).
CHECKED_LEVEL = 51
#: its deals, and how surely the model's play must beat level 3's on them (level 5's values).
CHECK_DEALS = 24
CHECK = replace(LEVEL5, override=0.0, confidence=1.0, least=CHECK_DEALS, samples=CHECK_DEALS)


#: the stand-in that checks the same way but stops once the check is settled (`settled_move`):
#: after 8 deals, and every 4 after, the search stops when the model's gain over level 3's
#: play is a standard error from zero either way, so the deals go to the close calls, up to
#: `SETTLE_DEALS`: less CPU than 51 and not measurably stronger against level 5, nor near
#: it (BENCHMARKS.md); neither is served (`CHEAP_LEVEL` is).
SETTLED_LEVEL = 52
SETTLE_DEALS = 32
SETTLE = replace(CHECK, least=8, every=4, samples=SETTLE_DEALS)


def _checked(
    view: View,
    legal: tuple[Action, ...],
    rng: random.Random,
    budget: Budget,
    settings: SearchSettings,
    settle: bool,
) -> Action | None:
    decided, action = routine(view, legal)
    if decided:
        return action
    plays = own_plays(view, legal)
    model = weights().get(view.rules.profile)
    chosen = choose_play(view, plays, model)
    pos = position_of(view)
    first = ranked_plays(pos, without_gifts(pos, plays))[0][1]
    if chosen == first:
        return first
    deals = Budget(settings.samples, budget.deadline, budget.clock)
    margins = [0.0, 0.0] if settle else None  # `search.decided`: stop once settled
    values = search(view, [first, chosen], rng, deals, settings, win_value, margins)
    return [first, chosen][clearly_better(values, settings)]


@stand_in(CHECKED_LEVEL)
def checked_move(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """The learned policy's play where it is level 3's; where it is not, the two are played
    out on `CHECK_DEALS` sampled deals (level 5's search and values) and the model's stands
    only if it gains there by a standard error: the model proposes, a short search decides."""
    return _checked(view, legal, rng, budget, CHECK, settle=False)


@stand_in(SETTLED_LEVEL)
def settled_move(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """`checked_move`, its check stopped once settled (see `SETTLED_LEVEL`)."""
    return _checked(view, legal, rng, budget, SETTLE, settle=True)
