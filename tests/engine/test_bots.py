"""Bots levels 1 and 2, the level registry and the budget; bots see one seat's view only."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from engine import Announce, Claim, EngineError, Game, Phase, Play, TakeMissed
from engine.bots import LEVELS, Budget, choose
from engine.bots.claims import entitled_claims
from tests.engine.helpers import act, deal, trail_until
from tests.engine.test_claims import RONDA_CAUGHT
from tests.engine.test_missed import MANUAL
from tests.engine.test_play import WORKED
from tests.strategies import play_randomly, random_games


def bot(level: int, game: Game, seat: int, seed: int = 0) -> object:
    return choose(level, game.view(seat), game.legal_actions(seat), random.Random(seed))


def test_levels_1_and_2_are_registered() -> None:
    assert {1, 2} <= set(LEVELS)
    with pytest.raises(EngineError, match="no bot level 99"):
        bot(99, Game.new(seed=1), 0)


def test_level_1_plays_a_random_legal_action_on_its_turn_only() -> None:
    game = Game.new(seed=4)
    turn = game.turn
    assert turn is not None
    choices = {bot(1, game, turn, seed) for seed in range(30)}
    assert choices <= set(game.legal_actions())
    assert len(choices) > 1
    assert bot(1, game, (turn + 1) % 4) is None


def test_level_2_takes_the_biggest_capture_R7() -> None:
    game = deal(0, WORKED)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC")
    assert str(bot(2, game, 1)) == "1 6S:2C,4D,7H,JC"


def test_level_2_breaks_a_tie_in_size_by_points_R9() -> None:
    # 3H may take 3C (trailed earlier) or 3D (just trailed: a caída); one card either way
    game = deal(0, {1: "3C", 2: "KS", 3: "3D", 0: "3H JD QD KD AS"})
    act(game, "1 3C", "2 KS", "3 3D")
    assert str(bot(2, game, 0)) == "0 3H:3D"


def test_level_2_trails_at_random_when_it_cannot_capture() -> None:
    game = Game.new(seed=2)
    turn = game.turn
    assert turn is not None
    action = bot(2, game, turn)
    assert isinstance(action, Play)
    assert not action.take


def test_level_2_announces_what_it_holds_R6() -> None:
    game = deal(0, RONDA_CAUGHT, options={"announcements": "manual"})
    assert bot(2, game, 1) == Announce(1, "ronda")
    act(game, "1 announce ronda")
    assert bot(2, game, 2) == Announce(2, "pass")


def test_level_2_claims_what_its_team_is_entitled_to_and_nothing_else_R10() -> None:
    game = deal(0, RONDA_CAUGHT)
    act(game, "1 5C", "2 5S:5C")
    trail_until(game, lambda g: g.phase is not Phase.PLAY)
    assert bot(2, game, 0) == Claim(0, "5")
    assert bot(2, game, 1) is None
    act(game, "0 claim 5")
    assert bot(2, game, 2) is None  # the event is used


def test_level_2_takes_missed_cards_R8() -> None:
    game = deal(0, WORKED, options=MANUAL)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC", "1 6S:2C,4D")
    assert bot(2, game, 0) == TakeMissed(0)
    assert bot(2, game, 2) == TakeMissed(2)


def test_budget_expires_at_its_deadline_on_its_clock() -> None:
    now = [0.0]
    budget = Budget(deadline=1.0, clock=lambda: now[0])
    assert not budget.expired()
    now[0] = 1.0
    assert budget.expired()
    assert not Budget(samples=10).expired()


@settings(max_examples=15, deadline=None)
@given(random_games())
def test_entitled_claims_from_the_view_match_the_hands_true_events_R10(
    drawn: tuple[Game, random.Random],
) -> None:
    game, rng = drawn

    def check(game: Game, *_: object) -> None:
        if game.phase is Phase.CLAIMS:
            for seat in range(game.rules.seats):
                truth = sorted("A234567JQK"[rank] for team, rank in game._r10 if team == seat & 1)
                assert sorted(entitled_claims(game.view(seat))) == truth

    play_randomly(game, rng, check)
