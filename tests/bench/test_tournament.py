"""`cuarenta tournament`: duplicate play from a versioned seed list, exact self-play symmetry."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench.tournament import Match, add_arguments, pair_line, pair_seed, play_pair, run


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("profile", ["pagat-4p", "heads-up"])
def test_a_bot_against_itself_has_a_margin_of_exactly_zero(
    profile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both games of a pair are the same game with the partnerships swapped (R1)."""
    assert run(_args("3", "3", "--pairs", "3", "--jobs", "2", "--profile", profile, "--json")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pairs"] == 3
    assert summary["margin_per_hand"] == {"mean": 0.0, "low": 0.0, "high": 0.0}
    assert summary["win_rate"]["mean"] == 0.5
    assert set(summary["decision_ms"]) == {"3"}


def test_swapping_the_levels_negates_every_pair() -> None:
    one = play_pair((Match(3, 2, "pagat-4p", (), 2, "v1"), 0))
    other = play_pair((Match(2, 3, "pagat-4p", (), 2, "v1"), 0))
    assert one.margin_per_hand == -other.margin_per_hand
    assert one.win_rate == 1 - other.win_rate


def test_seeds_come_from_a_named_versioned_list() -> None:
    assert pair_seed("v1", "pagat-4p", 7) == "cuarenta-duplicate/v1/pagat-4p/7"


def test_an_unknown_level_or_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("3", "9", "--pairs", "1")) == 2
    assert run(_args("3", "2", "--pairs", "1", "--option", "sequence=sideways")) == 2
    assert "R13" in capsys.readouterr().out


def test_the_text_report_names_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("2", "1", "--pairs", "2", "--jobs", "1")) == 0
    out = capsys.readouterr().out
    for label in ("pairs played", "margin per hand", "95% CI", "game win rate", "p95"):
        assert label in out


def test_a_logged_run_resumes_where_it_stopped_with_the_figures_of_an_unbroken_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A long run on a shared machine may be stopped: its logged pairs count, unreplayed."""
    log = tmp_path / "pairs.log"
    common = ("3", "2", "--jobs", "1", "--samples", "2", "--json")
    assert run(_args(*common, "--pairs", "2", "--log", str(log), "--progress", "1")) == 0
    captured = capsys.readouterr()
    running = [json.loads(line)["pairs"] for line in captured.err.splitlines()]
    assert running == [1, 2], "the running figures, as JSON lines"
    with log.open("a", encoding="utf-8") as lines:
        lines.write('{"match": {"a": 3, "b"')  # the last line of a killed run, cut short
    assert run(_args(*common, "--pairs", "3", "--log", str(log))) == 0
    resumed = json.loads(capsys.readouterr().out)
    logged = [json.loads(line) for line in log.read_text().splitlines() if line.endswith("}")]
    assert [record["index"] for record in logged] == [0, 1, 2], "pairs 0 and 1 not replayed"
    assert run(_args(*common, "--pairs", "3")) == 0
    unbroken = json.loads(capsys.readouterr().out)
    for figure in ("pairs", "hands", "margin_per_hand", "win_rate"):
        assert resumed[figure] == unbroken[figure]


def test_first_starts_at_a_later_pair_of_the_seed_list(tmp_path: Path) -> None:
    log = tmp_path / "pairs.log"
    assert (
        run(_args("2", "1", "--jobs", "1", "--first", "5", "--pairs", "2", "--log", str(log))) == 0
    )
    assert [json.loads(line)["index"] for line in log.read_text().splitlines()] == [5, 6]


def test_any_seed_list_name_gives_its_own_deals_and_v1_keeps_its_own() -> None:
    assert pair_seed("fresh", "heads-up", 7) == "cuarenta-duplicate/fresh/heads-up/7"
    assert pair_seed("fresh", "heads-up", 7) != pair_seed("v1", "heads-up", 7)
    one = play_pair((Match(3, 2, "heads-up", (), 2, "fresh"), 0))
    again = play_pair((Match(3, 2, "heads-up", (), 2, "fresh"), 0))
    other = play_pair((Match(3, 2, "heads-up", (), 2, "v1"), 0))
    assert one.games == again.games, "a name always gives the same deals"
    assert one.games != other.games


def test_as_served_decides_through_the_servers_runner_with_its_move_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As served, the figures are wall time per decision and the log marks the run apart
    from the fixed-sample runs (whose logs keep their key)."""
    log = tmp_path / "served.log"
    argv = ("3", "2", "--pairs", "1", "--as-served", "--seed-list", "t", "--json")
    assert run(_args(*argv, "--log", str(log))) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["as_served"], summary["samples"], summary["pairs"]) == (True, 0, 1)
    assert json.loads(log.read_text())["match"]["as_served"] is True
    fixed = Match(2, 1, "heads-up", (), 2, "v1")
    assert "as_served" not in json.loads(pair_line(fixed, play_pair((fixed, 0))))["match"]
