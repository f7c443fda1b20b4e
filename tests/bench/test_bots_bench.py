"""`cuarenta bench bots`: fixed positions, every level timed on each."""

from __future__ import annotations

from bench.bots import measure, measure_served, positions
from bench.declines import count_declines, scores, scoring_positions
from engine.bots import Budget


def test_the_positions_are_fixed_play_decisions() -> None:
    first, second = positions("pagat-4p", 5), positions("pagat-4p", 5)
    assert [view for view, _ in first] == [view for view, _ in second]
    assert all(view.turn == view.viewer and plays for view, plays in first)


def test_every_chosen_level_is_timed_on_every_position() -> None:
    result = measure("heads-up", 4, 2, (1, 3))
    figures = result["levels"]
    assert isinstance(figures, dict)
    assert set(figures) == {"1", "3"}
    assert all(row["decisions"] == 4 and row["p95_ms"] >= 0 for row in figures.values())


def test_the_declines_bench_counts_positions_where_a_caida_or_limpia_was_legal_R9() -> None:
    decisions = scoring_positions("heads-up", 6)
    assert len(decisions) == 6
    assert all(any(scores(view, play) for play in plays) for view, plays in decisions)
    result = count_declines("heads-up", 6, (2, 3), Budget(samples=2))
    levels = result["levels"]
    assert isinstance(levels, dict)
    assert levels["2"]["over_level_3"] <= levels["2"]["declined"] <= 6
    assert levels["3"] == {"declined": levels["3"]["declined"], "over_level_3": 0}


def test_as_served_every_level_is_asked_of_the_servers_runner_in_wall_time() -> None:
    result = measure_served("heads-up", 3, (2, 4), 2)
    figures = result["levels"]
    assert isinstance(figures, dict)
    assert figures["4"]["budget_ms"] == 300.0
    assert figures["2"]["budget_ms"] is None  # decided inline, on the loop
    assert all(row["decisions"] == 3 and row["max_ms"] >= row["p50_ms"] for row in figures.values())
