"""A search's deals on ints (`engine.coredeals`, compiled with the core) are the readable
references' deals: `Sampler.deal` makes `sampling.sample_hidden`'s draws and deals (R4, R6,
R7), and `Deals.lay` lays each on a core as `Deals.core` does, R10 events included, on
positions of level-3 games of every profile and house rule."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Phase
from engine.bots import choose
from engine.bots.sampling import evidence_of, sample_hidden, sampler_of
from engine.bridge import Deals
from engine.state import Hidden
from tests.engine.test_core import core_state, variants


def _position(profile: str, options: dict[str, object], seed: int, steps: int) -> Game | None:
    """A level-3 game (rondas announced, caídas made) after up to ``steps`` actions."""
    game = Game.new(profile, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.phase is Phase.FINISHED:
            return None
        seats = game.to_act()
        if not seats:
            game.apply(game.system_actions()[0])
            continue
        seat = seats[0]
        action = choose(3, game.view(seat), game.legal_actions(seat, by_rank=True), rng)
        game.apply(action if action is not None else game.system_actions()[0])
    if game.phase is not Phase.PLAY or game.turn is None or game.missed:
        return None
    return game


@settings(max_examples=40, deadline=None)
@given(variants(), st.integers(0, 2**32), st.integers(0, 90), st.booleans())
def test_deals_on_ints_are_the_references_deals(
    variant: tuple[str, dict[str, object]], seed: int, steps: int, declined: bool
) -> None:
    game = _position(*variant, seed, steps)
    if game is None:
        return
    view = game.view(game.turn)
    evidence = evidence_of(view, declined)
    sampler, reference, laid = sampler_of(view, evidence), Deals(view), Deals(view)
    mine, theirs = random.Random(seed), random.Random(seed)
    seats = view.rules.seats
    for _ in range(6):
        dealt = sampler.deal(mine)
        hidden = sample_hidden(view, evidence, theirs)
        assert Hidden(tuple(map(tuple, dealt[:seats])), tuple(dealt[seats])) == hidden
        core, expected = laid.lay(dealt), reference.core(hidden)
        assert core_state(core) == core_state(expected)
        assert (core.ronda, core.four, core.ronda_caught, core.r10) == (
            expected.ronda,
            expected.four,
            expected.ronda_caught,
            expected.r10,
        )
        assert core.pack[core.deal_pos :] == expected.pack[expected.deal_pos :]
    assert mine.getstate() == theirs.getstate()
