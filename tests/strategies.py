"""Hypothesis strategies shared by the tests: rules, tables, and games reached by random play."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import strategies as st

from engine import (
    Action,
    Claim,
    CloseClaims,
    Event,
    Game,
    Misdeal,
    Phase,
    TakeMissed,
)
from engine.rules import OPTION_VALUES

_TWO_PLAYER_OPTIONS = {
    "direction": st.sampled_from(OPTION_VALUES["direction"]),
    "misdeal_penalty": st.sampled_from(OPTION_VALUES["misdeal_penalty"]),
}

#: (profile, options given): every profile, with any subset of the options it allows (R13, R14).
rules_given = st.one_of(
    st.tuples(
        st.just("pagat-4p"),
        st.fixed_dictionaries(
            {},
            optional={name: st.sampled_from(values) for name, values in OPTION_VALUES.items()},
        ),
    ),
    st.tuples(
        st.sampled_from(["heads-up", "libre-2p"]),
        st.fixed_dictionaries({}, optional=_TWO_PLAYER_OPTIONS),
    ),
)

cards = st.integers(min_value=0, max_value=39)


@st.composite
def tables(draw: st.DrawFn, max_size: int = 9) -> tuple[int, list[int]]:
    """A played card and a table (in the order laid) that does not hold it."""
    card = draw(cards)
    table = draw(st.lists(cards.filter(lambda c: c != card), unique=True, max_size=max_size))
    return card, table


def random_step(game: Game, rng: random.Random, misdeals: bool = True) -> Action:
    """Choose a random next action as a table would see them: players, clock and referee.

    Players act at random (claims and missed-cards takes included, so wrong claims happen);
    the claim window closes now and then; the referee rules a misdeal rarely.
    """
    system = game.system_actions()
    if misdeals and Misdeal() in system and rng.random() < 0.02:
        return Misdeal()
    legal = list(game.legal_actions())
    if game.phase is Phase.CLAIMS and (not legal or rng.random() < 0.3):
        return CloseClaims()
    optional = [a for a in legal if isinstance(a, (Claim, TakeMissed))]
    if optional and rng.random() < 0.3:
        return rng.choice(optional)
    mandatory = [a for a in legal if not isinstance(a, (Claim, TakeMissed))]
    return rng.choice(mandatory or legal)


def play_randomly(
    game: Game,
    rng: random.Random,
    on_step: Callable[[Game, Action, tuple[Event, ...]], None] | None = None,
    max_steps: int = 2000,
    misdeals: bool = True,
) -> Game:
    """Play ``game`` with `random_step` until it ends (or waits), calling ``on_step``."""
    for _ in range(max_steps):
        if game.phase in (Phase.FINISHED, Phase.WAITING):
            break
        action = random_step(game, rng, misdeals)
        events = game.apply(action)
        if on_step is not None:
            on_step(game, action, events)
    return game


@st.composite
def random_games(draw: st.DrawFn) -> tuple[Game, random.Random]:
    """A new game of any profile and options, and the random source to play it with."""
    profile, options = draw(rules_given)
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    return Game.new(profile, options, seed=seed), random.Random(seed)
