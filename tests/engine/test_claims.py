"""R10 the ronda-caída award: the claim window, automatic awards, and off."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Phase
from engine.events import Awarded, Claimed, ClaimsClosed, ClaimsOpened, HandCounted, Played
from tests.engine.helpers import act, deal, rescored, trail_until

# seat 1 is dealt a ronda of 5s (scored at once, R6) and trails 5C; seat 2 catches it by caída
RONDA_CAUGHT = {1: "5C 5D 5H AC KC", 2: "5S 6H 7H JH QH"}


def caught(options: dict[str, object] | None = None) -> Game:
    game = deal(0, RONDA_CAUGHT, options=options)
    (played,) = act(game, "1 5C", "2 5S:5C")[1:]
    assert isinstance(played, Played)
    assert played.caida
    assert played.points == 4
    return game


def to_hand_end(game: Game) -> list[object]:
    return list(trail_until(game, lambda g: g.phase not in (Phase.PLAY, Phase.ANNOUNCE)))


def test_the_claim_window_opens_after_the_40th_card_and_a_valid_claim_scores_10_R10() -> None:
    game = caught()
    events = to_hand_end(game)
    assert isinstance(events[-1], ClaimsOpened)
    assert game.phase is Phase.CLAIMS
    assert game.turn is None
    assert game.to_act() == (0, 1, 2, 3)
    before = game.scores
    (claim,) = act(game, "2 claim 5")
    assert claim == Claimed(2, "5", True, 10)
    assert game.scores == (before[0] + 10, before[1])


def test_claims_come_before_the_count_R10_R12() -> None:
    game = caught()
    to_hand_end(game)
    act(game, "0 claim 5")
    events = act(game, "close-claims")
    assert isinstance(events[0], ClaimsClosed)
    assert isinstance(events[1], HandCounted)


def test_a_claim_already_used_is_wrong_and_ends_that_teams_claiming_R10() -> None:
    game = caught()
    to_hand_end(game)
    act(game, "2 claim 5")
    (wrong,) = act(game, "0 claim 5")
    assert wrong == Claimed(0, "5", False, 0)
    with pytest.raises(IllegalAction, match=r"R10.*wrong claim"):
        act(game, "2 claim 7")
    assert game.to_act() == (1, 3)
    assert game.legal_actions(0) == ()


def test_a_wrong_rank_scores_nothing_and_ends_claiming_R10() -> None:
    game = caught()
    to_hand_end(game)
    before = game.scores
    (wrong,) = act(game, "1 claim 5")  # team 1 has no event
    assert wrong == Claimed(1, "5", False, 0)
    assert game.scores == before
    assert game.to_act() == (0, 2)
    act(game, "2 claim 5")  # the other team still claims
    assert game.scores[0] == before[0] + 10


def test_a_valid_claim_at_30_or_more_scores_nothing_R10() -> None:
    game = caught()
    to_hand_end(game)
    game = rescored(game, (30, 4))
    (claim,) = act(game, "2 claim 5")
    assert claim == Claimed(2, "5", True, 0)
    assert game.scores == (30, 4)


def test_the_window_opens_even_with_nothing_to_claim_R10_R15() -> None:
    game = deal(0, {})
    events = to_hand_end(game)
    assert isinstance(events[-1], ClaimsOpened)
    assert len(game.legal_actions()) == 4 * 10  # any seat may name any rank


def test_unclaimed_events_lapse_when_the_window_closes_R10() -> None:
    game = caught()
    to_hand_end(game)
    before = game.scores
    events = act(game, "close-claims")
    counted = next(e for e in events if isinstance(e, HandCounted))
    assert game.scores == (before[0] + counted.points[0], before[1] + counted.points[1])


def test_special_claims_auto_awards_the_event_before_the_count_R10() -> None:
    game = caught({"special_claims": "auto"})
    before = game.scores
    events = to_hand_end(game)
    awarded = [e for e in events if isinstance(e, Awarded)]
    assert awarded == [Awarded(0, "5", 10)]
    assert events.index(awarded[0]) < next(
        i for i, e in enumerate(events) if isinstance(e, HandCounted)
    )
    counted = next(e for e in events if isinstance(e, HandCounted))
    assert game.scores[0] == before[0] + 10 + counted.points[0]


def test_special_claims_off_has_no_award_and_no_window_R10() -> None:
    game = caught({"special_claims": "off"})
    events = to_hand_end(game)
    assert not any(isinstance(e, (Awarded, ClaimsOpened)) for e in events)


def test_the_award_exists_even_if_the_ronda_was_not_announced_R10() -> None:
    game = deal(0, RONDA_CAUGHT, options={"announcements": "manual"})
    act(game, "1 announce pass", "2 announce pass", "3 announce pass", "0 announce pass")
    act(game, "1 5C", "2 5S:5C")
    to_hand_end(game)
    (claim,) = act(game, "2 claim 5")
    assert claim == Claimed(2, "5", True, 10)


def test_two_player_profiles_have_no_claim_window_R14() -> None:
    game = deal(0, {}, profile="heads-up")
    events = trail_until(game, lambda g: g.phase is not Phase.PLAY or g.hand_number > 0)
    assert not any(isinstance(e, ClaimsOpened) for e in events)
