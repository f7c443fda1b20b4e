"""Level 6's inference (`engine.bots.infer`): the others' plays this packet weigh the deals."""

from __future__ import annotations

import random

import pytest

from engine import Game, Hidden, Phase, Play, parse_card
from engine.bots import Budget, belief, choose
from engine.bots.infer import NOISE, Likelihood, past_plays
from engine.bots.sampling import evidence_of, sample_hidden
from engine.bridge import Deals
from tests.engine.helpers import act, cards, deal


def _likelihood(game: Game, viewer: int) -> Likelihood:
    view = game.view(viewer)
    return Likelihood(
        view, Deals(view).core(sample_hidden(view, evidence_of(view), random.Random(0)))
    )


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
    likelihood = _likelihood(game, 3)
    assert [past.seat for past in likelihood.pasts] == [1, 2]
    with_queen = tuple(sorted(cards("QS 6S 7S JS")))
    without = tuple(sorted(cards("KS 6S 7S JS")))
    likely, unlikely = likelihood.chance(1, without), likelihood.chance(1, with_queen)
    assert unlikely < likely / 3
    assert unlikely >= NOISE / 20  # never ruled out: a person may miss a caída
    first = likelihood.chance(0, tuple(sorted(cards("AH 2H 3H 4H"))))
    hands = [(), tuple(sorted(cards("AH 2H 3H 4H"))), with_queen, ()]
    assert likelihood.weight(Hidden(tuple(hands), ())) == pytest.approx(first * unlikely)
    assert parse_card("QS") in with_queen


def test_a_seat_that_trailed_rather_than_capture_rarely_held_the_capturing_rank_R7() -> None:
    """Seat 3 trailed KD on a table of 4H and 5S: holding a 5 it would have captured."""
    game = deal(0, {1: "4H AH 2H 3H 6H", 2: "5S 6S 7S JS KS", 3: "KD AD 2D 3D 7D"})
    act(game, "1 4H", "2 5S", "3 KD")
    likelihood = _likelihood(game, 0)
    assert [past.seat for past in likelihood.pasts] == [1, 2, 3]
    with_five = tuple(sorted(cards("5D AD 2D 3D")))
    without = tuple(sorted(cards("JD AD 2D 3D")))
    assert likelihood.chance(2, with_five) < likelihood.chance(2, without) / 3


def _mid_packet() -> Game:
    game = Game.new("pagat-4p", seed="infer/no-peeking")
    rng = random.Random(2)
    plays = 0
    while plays < 7:
        for mover in game.to_act():
            action = choose(3, game.view(mover), game.legal_actions(mover), rng)
            if action is None:
                continue
            plays += isinstance(action, Play)
            game.apply(action)
            break
    return game


def test_redealing_the_cards_the_seat_cannot_see_never_changes_level_6s_belief_R1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Any deal of the unseen cards consistent with the view (other hands, the stock) gives
    the same likelihoods and, with the belief on, the same play at a fixed seed."""
    monkeypatch.setattr(belief, "WEIGHTED_SEATS", (4,))
    game = _mid_packet()
    seat = game.turn
    assert seat is not None
    view = game.view(seat)
    probe = sample_hidden(view, evidence_of(view), random.Random(99))
    expected_weight = _likelihood(game, seat).weight(probe)
    expected = choose(6, view, game.legal_actions(seat), random.Random(5), Budget(samples=4))
    evidence = evidence_of(view, declined=True)
    for redeal in range(3):
        other = Game.from_view(view, sample_hidden(view, evidence, random.Random(redeal)))
        assert any(other.hand(s) != game.hand(s) for s in range(4) if s != seat)
        assert other.view(seat) == view
        assert _likelihood(other, seat).weight(probe) == expected_weight
        again = choose(
            6, other.view(seat), other.legal_actions(seat), random.Random(5), Budget(samples=4)
        )
        assert again == expected
