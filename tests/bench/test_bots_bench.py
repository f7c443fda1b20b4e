"""`cuarenta bench bots`: fixed positions, every level timed on each."""

from __future__ import annotations

from bench.bots import measure, positions


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
