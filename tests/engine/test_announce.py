"""R6 announcements (auto and manual), with R14's two-player variants."""

from __future__ import annotations

import pytest

from engine import Announce, Event, Game, IllegalAction, Phase, Play
from engine.events import Announced, GameOver
from tests.engine.helpers import act, cards, deal, rescored

RONDA_1 = {1: "5C 5D 5H AC KC", 2: "AD 2D 3D 4D 6D", 3: "AH 2H 3H 4H 6H", 0: "AS 2S 3S 4S 6S"}


def trail_out_packet(game: Game) -> list[Event]:
    """Trail every card of the current packet; return the events (the next deal's included)."""
    events: list[Event] = []
    packet = game.packet
    while game.packet == packet and game.phase is Phase.PLAY:
        trail = next(a for a in game.legal_actions() if isinstance(a, Play) and not a.take)
        events += game.apply(trail)
    return events


def announced(game: Game) -> list[Announced]:
    return [e for e in game.start_events if isinstance(e, Announced)]


def test_auto_announcement_scores_a_ronda_at_once_R6() -> None:
    game = deal(0, RONDA_1)
    (ronda,) = announced(game)
    assert (ronda.seat, ronda.call, ronda.rank, ronda.points) == (1, "ronda", "5", 4)
    assert game.scores == (0, 4)
    assert game.phase is Phase.PLAY


def test_ronda_points_option_2_R13_R6() -> None:
    game = deal(0, RONDA_1, options={"ronda_points": 2})
    assert game.scores == (0, 2)


def test_a_ronda_at_30_or_more_scores_nothing_and_is_not_auto_announced_R6() -> None:
    # the second packet's ronda is checked against the running score 30
    packet2 = {1: "7C 7D 7H JC QC"}
    game = rescored(deal(0, RONDA_1, packet2), (0, 30))
    events = trail_out_packet(game)
    assert game.packet == 1
    assert game.scores == (0, 30)
    assert not any(isinstance(e, Announced) for e in events)


def test_cuarenta_wins_at_once_at_any_score_and_is_shown_R6() -> None:
    game = deal(0, {2: "KC KD KH KS AC"})
    (four,) = announced(game)
    assert four.call == "cuarenta"
    assert four.cards == tuple(sorted(cards("KC KD KH KS")))
    assert game.winner == 0
    assert game.phase is Phase.FINISHED
    assert isinstance(game.start_events[-1], GameOver)


def test_two_cuarentas_first_in_announcement_order_wins_R6() -> None:
    # dealer 0: order 1, 2, 3, 0; seats 3 and 0 both hold four of a kind
    game = deal(0, {3: "QC QD QH QS AC", 0: "KC KD KH KS AD"})
    assert game.winner == 1
    assert [e.seat for e in announced(game)] == [3]


def test_manual_every_seat_announces_once_in_order_R6() -> None:
    game = deal(0, RONDA_1, options={"announcements": "manual"})
    assert game.phase is Phase.ANNOUNCE
    assert game.turn == 1
    assert game.scores == (0, 0)
    assert [str(a) for a in game.legal_actions()] == ["1 announce ronda", "1 announce pass"]
    with pytest.raises(IllegalAction, match="R6"):
        act(game, "2 announce pass")
    act(game, "1 announce ronda", "2 announce pass", "3 announce pass")
    with pytest.raises(IllegalAction, match=r"R6.*cannot announce 'ronda'"):
        act(game, "0 announce ronda")
    act(game, "0 announce pass")
    assert game.view(None).phase is Phase.PLAY
    assert game.turn == 1
    assert game.scores == (0, 4)
    with pytest.raises(IllegalAction, match=r"R6.*nothing can be announced"):
        act(game, "1 announce pass")


def test_manual_a_holder_who_passes_gives_up_and_a_later_cuarenta_wins_R6() -> None:
    game = deal(0, {1: "QC QD QH QS AC", 2: "KC KD KH KS AD"}, options={"announcements": "manual"})
    assert "1 announce cuarenta" in [str(a) for a in game.legal_actions()]
    act(game, "1 announce pass")
    events = act(game, "2 announce cuarenta")
    assert game.winner == 0
    assert isinstance(events[-1], GameOver)
    assert events[0].cards == tuple(sorted(cards("KC KD KH KS")))  # type: ignore[union-attr]


def test_manual_ronda_at_30_is_allowed_and_scores_nothing_on_the_running_score_R6() -> None:
    options = {"announcements": "manual"}
    game = deal(0, {1: "5C 5D 5H AC KC", 3: "6C 6D 6H 2C QC"}, options=options)
    game = rescored(game, (0, 26))
    act(game, "1 announce ronda", "2 announce pass")
    (ronda,) = act(game, "3 announce ronda")
    assert isinstance(ronda, Announced)
    assert ronda.points == 0
    assert game.scores == (0, 30)


def test_heads_up_both_holding_four_of_a_kind_is_a_draw_R14() -> None:
    game = deal(0, {1: "QC QD QH QS AC", 0: "KC KD KH KS AD"}, profile="heads-up")
    assert game.winner == "draw"
    assert game.phase is Phase.FINISHED
    assert [e.call for e in announced(game)] == ["cuarenta", "cuarenta"]


def test_heads_up_one_four_of_a_kind_wins_R14() -> None:
    game = deal(0, {0: "KC KD KH KS AD"}, profile="heads-up")
    assert game.winner == 0


def test_heads_up_ronda_scores_2_only_below_30_R14() -> None:
    game = deal(0, {1: "5C 5D 5H AC KC"}, profile="heads-up")
    assert game.scores == (0, 2)


def test_libre_2p_four_of_a_kind_scores_as_a_ronda_R14() -> None:
    game = deal(0, {1: "QC QD QH QS AC"}, profile="libre-2p")
    assert game.winner is None
    assert game.scores == (0, 4)
    (ronda,) = announced(game)
    assert ronda.call == "ronda"


def test_libre_2p_ronda_scores_below_38_not_at_38_R14() -> None:
    packet2 = {1: "7C 7D 7H JC QC"}
    game = rescored(deal(0, {1: "AC 2C 3C 4C 6C"}, packet2, profile="libre-2p"), (0, 38))
    events = trail_out_packet(game)
    assert game.packet == 1
    assert game.scores == (0, 38)
    assert not any(isinstance(e, Announced) for e in events)


def test_libre_2p_ronda_at_36_scores_4_and_wins_R14_R9() -> None:
    packet2 = {1: "7C 7D 7H JC QC"}
    game = rescored(deal(0, {1: "AC 2C 3C 4C 6C"}, packet2, profile="libre-2p"), (0, 36))
    events = trail_out_packet(game)
    assert game.scores == (0, 40)
    assert game.winner == 1
    assert isinstance(events[-1], GameOver)


def test_nothing_is_announced_in_play_R6() -> None:
    game = deal(0, RONDA_1)
    with pytest.raises(IllegalAction, match="R6"):
        game.apply(Announce(1, "ronda"))
