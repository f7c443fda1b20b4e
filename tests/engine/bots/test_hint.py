"""A hint: level 5's play for one seat, from that seat's view only (R9 caída and limpia)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine import Game, Record, card_code
from engine.bots import Budget
from engine.bots.hint import appraise, hint
from engine.bots.sampling import evidence_of, sample_hidden

GAMES = Path(__file__).parents[2] / "data" / "games"
#: a small budget keeps the tests quick; the hint is deterministic at any budget.
SMALL = Budget(samples=2)

#: dealer 0: seat 1 gets the first five cards, seat 2 the next five (R4), and leads KH.
PACK = [
    *("KH", "2C", "3C", "4C", "6C", "KC", "2D", "3D", "5D", "7D"),
    *("QH", "AH", "AS", "4H", "6H", "QC", "JH", "JS", "5H", "7H"),
    *("KD", "KS", "QD", "QS", "JC", "JD", "AC", "AD", "2H", "2S"),
    *("3H", "3S", "4D", "4S", "5C", "5S", "6D", "6S", "7C", "7S"),
]


def _caida_position() -> Game:
    """Seat 1 has trailed KH alone on an empty table; seat 2 holds KC (R9: caída, limpia)."""
    record = Record.from_json(
        {
            "format": "cuarenta-record/1",
            "dealer": 0,
            "packs": [PACK],
            "actions": [{"type": "play", "seat": 1, "card": "KH", "take": []}],
        }
    )
    return Game.from_record(record)


def _mid_packet() -> Game:
    """A committed game, six plays into its first packet."""
    record = Record.from_json(json.loads((GAMES / "coach-gifted-caida.json").read_text()))
    return Game.from_record(
        Record(
            record.profile,
            record.options,
            record.dealer,
            record.draw,
            record.packs,
            record.actions[:6],
        )
    )


def test_a_hint_on_an_obvious_caida_recommends_the_caida_r9() -> None:
    game = _caida_position()
    found = hint(game.view(2), game.legal_actions(2), SMALL)
    assert found is not None
    assert card_code(found.play.play.card) == "KC"
    assert [card_code(card) for card in found.play.play.take] == ["KH"]
    assert found.play.caida
    assert found.play.limpia
    assert found.play.points == 4  # R9: a caída that empties the table
    assert found.margin is not None
    assert found.margin > 0
    assert found.next_best is not None
    assert found.next_best.value == found.play.value - found.margin


def test_a_hint_is_words_ready_json() -> None:
    game = _caida_position()
    found = hint(game.view(2), game.legal_actions(2), SMALL)
    assert found is not None
    out = json.loads(json.dumps(found.to_json()))
    assert out["play"] == {
        "card": "KC",
        "take": ["KH"],
        "caida": True,
        "limpia": True,
        "points": 4,
        "value": round(found.play.value, 3),
    }
    assert out["deals"] == 8  # level 5's deals per sample of the budget


def test_no_hint_when_it_is_not_the_seats_turn() -> None:
    game = _caida_position()
    assert hint(game.view(3), game.legal_actions(3), SMALL) is None


def test_redealing_the_cards_the_seat_cannot_see_never_changes_its_hint() -> None:
    """The hint reads only the seat's view: any deal of the unseen cards consistent with it
    (other hands, the stock) gives the same view, legal list and hint at a fixed seed."""
    for game in (_caida_position(), _mid_packet()):
        seat = game.turn
        assert seat is not None
        view = game.view(seat)
        expected = hint(view, game.legal_actions(seat), SMALL, seed=5)
        assert expected is not None
        evidence = evidence_of(view, declined=True)
        for redeal in range(3):
            hidden = sample_hidden(view, evidence, random.Random(redeal))
            other = Game.from_view(view, hidden)
            assert any(other.hand(s) != game.hand(s) for s in range(4) if s != seat)
            assert other.view(seat) == view
            again = hint(other.view(seat), other.legal_actions(seat), SMALL, seed=5)
            assert again == expected


def test_the_same_position_always_gets_the_same_hint() -> None:
    game = _mid_packet()
    seat = game.turn
    assert seat is not None
    one = hint(game.view(seat), game.legal_actions(seat), SMALL)
    two = hint(game.view(seat), game.legal_actions(seat), SMALL)
    assert one == two
    assert one is not None


def test_a_hint_out_of_time_is_level_3s_play_on_no_deals() -> None:
    """Under a deadline already passed no deal is played out: level 3's choice stands."""
    game = _caida_position()
    late = Budget(deadline=0.0, clock=lambda: 1.0)
    found = hint(game.view(2), game.legal_actions(2), late)
    assert found is not None
    assert found.deals == 0
    assert found.play.caida  # level 3 takes a caída with limpia too (R9)


def test_taking_the_trailed_card_by_a_sum_is_a_limpia_but_no_caida_r9() -> None:
    record = Record.from_json(
        {
            "format": "cuarenta-record/1",
            "dealer": 0,
            "packs": [PACK],
            "actions": [
                {"type": "play", "seat": 1, "card": "4C", "take": []},
                {"type": "play", "seat": 2, "card": "2D", "take": []},
            ],
        }
    )
    game = Game.from_record(record)
    appraisal = appraise(game.view(3), game.legal_actions(3), SMALL)
    assert appraisal is not None
    (summed,) = [
        each for each in appraisal.plays if card_code(each.play.card) == "6H" and each.play.take
    ]
    assert sorted(map(card_code, summed.play.take)) == ["2D", "4C"]
    assert not summed.caida
    assert summed.limpia
    assert summed.points == 2
