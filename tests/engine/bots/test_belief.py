"""Level 6's belief: deals weighed by how likely the others' plays of the packet make them."""

from __future__ import annotations

import random

import pytest

from engine import Game, Hidden, Phase, Play, parse_card
from engine.bots import Budget, belief, choose
from engine.bots.belief import NOISE, deal_weight, past_plays, play_chance
from tests.engine.helpers import act, cards, deal


def test_the_state_before_each_of_the_others_plays_is_rebuilt_from_the_record_R7_R9() -> None:
    """Table, caída target, piles and hand sizes before each play, as the game had them."""
    game = Game.new("pagat-4p", seed="belief/replay")
    rng = random.Random(4)
    before: list[tuple[int, tuple[tuple[int, ...], ...], int, tuple[int, int]]] = []
    while game.phase is not Phase.FINISHED and len(before) < 7:
        for mover in game.to_act():
            action = choose(3, game.view(mover), game.legal_actions(mover), rng)
            if action is None:
                continue
            if isinstance(action, Play):
                view = game.view(mover)
                table = [[c for c in view.table if c >> 2 == rank] for rank in range(10)]
                target = -1 if view.caida_target is None else view.caida_target
                team = mover & 1
                piles = (view.pile_sizes[team], view.pile_sizes[1 - team])
                before.append((mover, tuple(tuple(sorted(t)) for t in table), target, piles))
            game.apply(action)
            break
    assert game.packet == 0, "seven plays of the first packet"
    viewer = game.turn
    assert viewer is not None
    pasts = past_plays(game.view(viewer))
    expected = [entry for entry in before if entry[0] != viewer]
    assert [p.seat for p in pasts] == [entry[0] for entry in expected]
    for past, (_, shown, target, piles) in zip(pasts, expected, strict=True):
        assert tuple(tuple(sorted(t)) for t in past.by_rank) == shown
        assert (past.caida_target, (past.pile, past.other_pile)) == (target, piles)


def test_a_seat_that_let_a_caida_go_rarely_held_the_rank_R9() -> None:
    """Seat 2 trailed 5S after seat 1 trailed QC: a deal that gives seat 2 a Q (it could have
    taken QC by caída) is far less likely than one that gives it none."""
    game = deal(0, {1: "QC AH 2H 3H 4H", 2: "5S 6S 7S JS KS", 3: "QD AD 2D 3D 4D"})
    act(game, "1 QC", "2 5S")
    view = game.view(3)
    (past_1, past_2) = past_plays(view)
    assert (past_1.seat, past_2.seat) == (1, 2)
    with_queen = tuple(sorted(cards("QS 6S 7S JS")))
    without = tuple(sorted(cards("KS 6S 7S JS")))
    likely, unlikely = play_chance(view, past_2, without), play_chance(view, past_2, with_queen)
    assert unlikely < likely / 3
    assert unlikely >= NOISE / 20  # never ruled out: a person may miss a caída
    hands = [(), tuple(sorted(cards("AH 2H 3H 4H"))), with_queen, ()]
    weight = deal_weight(view, [past_2], Hidden(tuple(hands), ()))
    assert weight == unlikely
    assert parse_card("QS") in with_queen


def test_level_6_with_the_belief_on_still_plays_legally(monkeypatch: pytest.MonkeyPatch) -> None:
    """The belief (off by default, `WEIGHTED`) still decides: a legal play at a few samples."""
    monkeypatch.setattr(belief, "WEIGHTED", True)
    game = deal(0, {1: "QC AH 2H 3H 4H", 2: "5S 6S 7S JS KS", 3: "QD AD 2D 3D 4D"})
    act(game, "1 QC", "2 5S")
    legal = game.legal_actions(3)
    action = choose(6, game.view(3), legal, random.Random(3), Budget(2))
    assert isinstance(action, Play)
    assert action in legal
