"""The ladder's rules as values (R14): levels over wins, losses and draws; the saved score."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.ladder.rules import MARGIN_CAP, Chica, LadderRun, level_for, saved_score


def chica(level: int) -> Chica:
    return Chica("table", "join-key-123", 0, "table.token", level)


def play(run: LadderRun) -> LadderRun:
    return run.dealt(chica(run.level))


def test_r14_the_bot_starts_at_level_1_and_rises_one_level_per_win_up_to_4() -> None:
    run = LadderRun("tok")
    levels = []
    for _ in range(6):
        run = play(run)
        levels.append(run.level)
        run = run.won(margin=4)
    assert levels == [1, 2, 3, 4, 4, 4]
    assert run.streak == 6


def test_r14_a_loss_ends_the_streak_and_the_next_bot_is_level_1_again() -> None:
    run = play(play(LadderRun("tok")).won(10)).won(6)
    assert (run.streak, run.level) == (2, 3)
    run = play(run).ended("lost", margin=-12)
    assert (run.streak, run.margins, run.level) == (0, 0, 1)
    assert run.last is not None
    assert run.last.result == "lost"
    assert run.last.level == 3


def test_r14_a_draw_both_dealt_four_of_a_kind_ends_the_streak() -> None:
    run = play(play(LadderRun("tok")).won(10)).ended("draw")
    assert (run.streak, run.level, run.score) == (0, 1, 0)
    assert run.best == saved_score(1, 10)


def test_r14_new_ends_the_streak_but_keeps_the_best_score() -> None:
    run = play(play(play(LadderRun("tok")).won(20)).won(30)).ended("abandoned")
    assert (run.streak, run.best) == (0, 20_050)


def test_a_win_a_stand_in_played_part_of_is_void_same_streak_same_level() -> None:
    run = play(play(LadderRun("tok")).won(8))
    voided = run.voided()
    assert (voided.streak, voided.margins, voided.level, voided.chica) == (1, 8, 2, None)


def test_r14_saved_score_is_streak_times_10000_plus_margins() -> None:
    assert saved_score(0, 0) == 0
    assert saved_score(3, 57) == 30_057
    assert saved_score(1, 9_999) == 19_999


def test_r14_the_sum_of_margins_is_capped_at_9999() -> None:
    assert saved_score(2, 10_000) == 29_999
    assert saved_score(250, 12_345) == 2_509_999
    run = LadderRun("tok", streak=249, margins=9_990)
    assert play(run).won(40).score == 2_509_999


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=2, max_value=60), max_size=300))
def test_r14_score_and_best_follow_the_formula_over_any_run_of_wins(margins: list[int]) -> None:
    run = LadderRun("tok")
    for margin in margins:
        run = play(run).won(margin)
    assert run.score == len(margins) * 10_000 + min(sum(margins), MARGIN_CAP)
    assert run.best == run.score
    assert run.level == level_for(len(margins))


def test_a_cuarenta_won_from_behind_counts_as_a_win_with_no_margin() -> None:
    run = play(play(LadderRun("tok")).won(12)).won(0)
    assert (run.streak, run.margins, run.level, run.score) == (2, 12, 3, 20_012)


def test_refusals_name_the_rule() -> None:
    with pytest.raises(ValueError, match="R14"):
        level_for(-1)
    with pytest.raises(ValueError, match="R14"):
        LadderRun("tok").won(-2)
    with pytest.raises(ValueError, match="R14"):
        LadderRun("tok").ended("won")


def test_a_run_round_trips_through_its_stored_json() -> None:
    run = play(play(LadderRun("tok", name="Lucho")).won(12))
    assert LadderRun.from_json(run.to_json(), version=run.version) == run
