"""Views and redaction: each viewer sees only what the rules let them see."""

from __future__ import annotations

from engine import Game, Phase, parse_card, redact
from engine.events import Announced, DealerDrawn, HandCounted, PacketDealt
from tests.engine.helpers import act, cards, deal, trail_until
from tests.engine.test_announce import RONDA_1
from tests.engine.test_play import WORKED


def test_a_seat_sees_its_own_hand_only_and_a_spectator_none() -> None:
    game = deal(0, WORKED)
    view = game.view(2)
    assert view.hand == game.hand(2)
    assert view.hand_sizes == (5, 5, 5, 5)
    assert game.view(None).hand is None
    assert view.undealt == 20
    assert view.turn == 1
    assert view.to_act == (1,)


def test_views_show_the_public_play_for_counting_cards() -> None:
    game = deal(0, WORKED)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC", "1 6S:2C,4D,7H,JC")
    view = game.view(3)
    assert view.seen == cards("2C 4D 7H JC 6S")
    assert view.table == ()
    assert view.hand_sizes == (4, 3, 4, 4)
    assert view.pile_sizes == (0, 5)
    assert [(e.seat, e.caida) for e in view.history][-1] == (1, False)
    assert set(view.unseen()) == set(range(40)) - view.seen - set(game.hand(3))


def test_the_caida_target_is_the_card_just_trailed_R9() -> None:
    game = deal(0, WORKED)
    act(game, "1 2C")
    assert game.view(None).caida_target == parse_card("2C")
    act(game, "2 4D", "3 7H", "0 JC", "1 6S:2C,4D,7H,JC")
    assert game.view(None).caida_target is None


def test_packet_dealt_keeps_only_the_viewers_cards() -> None:
    game = deal(0, WORKED)
    dealt = next(e for e in game.start_events if isinstance(e, PacketDealt))
    for viewer in (0, 1, 2, 3, None):
        seen = redact(dealt, viewer)
        assert isinstance(seen, PacketDealt)
        assert [hand is not None for hand in seen.hands] == [s == viewer for s in range(4)]
        if viewer is not None:
            assert seen.hands[viewer] == dealt.hands[viewer]


def test_a_ronda_rank_is_hidden_until_the_hand_summary_R6() -> None:
    game = deal(0, RONDA_1, options={"special_claims": "off"})
    ronda = next(e for e in game.start_events if isinstance(e, Announced))
    assert redact(ronda, 0) == Announced(1, "ronda", None, 4)
    assert redact(ronda, None).rank is None  # type: ignore[union-attr]
    assert redact(ronda, 1).rank == "5"  # type: ignore[union-attr]
    assert game.view(2).ronda_announced == (1,)
    events = trail_until(game, lambda g: g.phase is not Phase.PLAY or g.hand_number > 0)
    counted = next(e for e in events if isinstance(e, HandCounted))
    assert redact(counted, 2) == counted
    assert counted.rondas == ((0, 1, "5"),)


def test_the_diamond_draw_and_a_cuarenta_are_public_R3_R6() -> None:
    game = Game.new(seed=11)
    drawn = game.start_events[0]
    assert isinstance(drawn, DealerDrawn)
    assert redact(drawn, None) == drawn
    assert game.view(None).draw_cards == drawn.cards
    cuarenta = deal(0, {2: "KC KD KH KS AC"})
    shown = next(e for e in cuarenta.start_events if isinstance(e, Announced))
    assert redact(shown, 1) == shown
    assert cuarenta.view(None).cuarenta == (2, shown.cards)


def test_the_claim_state_is_public_R10() -> None:
    game = deal(0, {})
    trail_until(game, lambda g: g.phase is not Phase.PLAY)
    act(game, "1 claim 5")
    view = game.view(0)
    assert view.claims_open
    assert view.claims == ((1, "5", False),)
    assert view.claims_ended == (False, True)
    assert view.to_act == (0, 2)
