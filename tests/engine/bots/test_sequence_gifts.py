"""No bot gives sequence cards away (R8): a shortened sequence under ``sequence = manual``.

With ``sequence = manual`` a capture may stop its sequence early; the rest of the run are
missed cards, which the other team takes (R8). Taking them oneself never costs anything: the
table afterwards holds the same ranks either way (the missed cards are one of each rank, and
R2 makes suits irrelevant), only the cards go to the other pile and a limpia is lost. So a
capture that leaves missed cards is always a gift, and no level from 2 up may make one.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, Phase, Play, parse_card
from engine.bots import Budget, choose
from engine.bots.counting import appraise, position_of, ranked_plays
from engine.events import Played
from tests.engine.helpers import act, deal
from tests.strategies import rules_given


def _leaves_missed(game: Game, play: Play) -> bool:
    """Tell whether ``play`` leaves missed cards (R8), by playing it on a copy."""
    events = game.copy().apply(play)
    return any(isinstance(event, Played) and event.missed for event in events)


def test_level_3_takes_the_whole_sequence_instead_of_giving_the_king_away_R8() -> None:
    """Table K♣ J♦ Q♠, packet 2 of a hand of level-3 self-play (seed 111 of
    ``sequence = manual``): Q♥ takes Q♠ and K♣ in sequence, not Q♠ alone.

    Leaving K♣ seemed to keep a J from taking the lone J♦ as a limpia, but the opponents take
    K♣ as a missed card at once, so the J♦ is alone all the same (R8, R9).
    """
    game = deal(
        0,
        {1: "KC 2C 3C 4C 5C", 2: "JD 2D 3D 4D 5D", 3: "QS 2S 3S 4S 5S", 0: "QH 2H 3H 4H 5H"},
        options={"sequence": "manual"},
    )
    act(game, "1 KC", "2 JD", "3 QS")
    whole = Play(0, parse_card("QH"), frozenset({parse_card("QS"), parse_card("KC")}))
    short = Play(0, parse_card("QH"), frozenset({parse_card("QS")}))
    pos = replace(  # the numbers of the self-play game: 15 unseen cards, three of them Js
        position_of(game.view(0)),
        caida_target=-1,
        unseen=[2, 1, 1, 0, 3, 1, 1, 3, 2, 1],
        unseen_total=15,
        next_hand=5,
        score=34,
        other_score=24,
        pile=12,
        other_pile=5,
        dealer_own=False,
    )
    plays = [a for a in game.legal_actions(0) if isinstance(a, Play)]
    assert ranked_plays(pos, plays)[0][1] == whole
    assert appraise(pos, short) < appraise(pos, whole)
    for level in (3, 4, 5, 6):  # and in the real game's own position
        action = choose(level, game.view(0), game.legal_actions(0), random.Random(0), Budget(8))
        assert action == whole, level


@st.composite
def games_and_levels(draw: st.DrawFn) -> tuple[Game, random.Random, int]:
    """A new game of any house-rule family (``sequence = manual`` wherever a profile allows it,
    in most pagat-4p games), and a level from 2 up."""
    profile, options = draw(rules_given)
    if profile == "pagat-4p" and draw(st.integers(0, 3)):
        options = {**options, "sequence": "manual"}
    seed = draw(st.integers(0, 2**32 - 1))
    return Game.new(profile, options, seed=seed), random.Random(seed), draw(st.integers(2, 6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_and_levels())
def test_no_level_leaves_missed_sequence_cards_R8(case: tuple[Game, random.Random, int]) -> None:
    """Through a game of level-3 self-play, wherever a capture could leave missed cards the
    level under test takes the whole run (R8: the rest would be a gift)."""
    game, rng, level = case
    budget = Budget(samples=2)
    asked = 0
    while game.phase not in (Phase.FINISHED, Phase.WAITING) and asked < 8:
        for seat in game.to_act():
            legal = game.legal_actions(seat)
            view = game.view(seat)
            action = choose(3, view, legal, rng)
            if action is None:
                continue
            if any(isinstance(a, Play) and a.take and _leaves_missed(game, a) for a in legal):
                asked += 1
                chosen = choose(level, view, legal, rng, budget)
                assert isinstance(chosen, Play)
                assert not (chosen.take and _leaves_missed(game, chosen)), (level, chosen, game)
            game.apply(action)
            break
        else:
            game.apply(game.system_actions()[0])
