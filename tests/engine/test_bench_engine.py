"""`cuarenta bench engine` prints the figures it promises (a quick run, not a measurement)."""

from __future__ import annotations

import argparse
import json

import pytest

from bench import cli


def bench(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return cli.run(parser.parse_args(list(argv)))


def test_bench_engine_json_has_one_object_per_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("engine", "--seconds", "0.05", "--json") == 0
    lines = capsys.readouterr().out.splitlines()
    figures = [json.loads(line) for line in lines]
    assert [f["profile"] for f in figures] == ["pagat-4p", "heads-up"]
    for each in figures:
        assert {"profile", "games", "seconds", "games_per_s", "plays_per_s"} <= set(each)
        assert each["games"] >= 1
        assert each["plays_per_s"] > 0


def test_an_unknown_benchmark_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("nothing") == 2
    assert "no benchmark 'nothing'" in capsys.readouterr().out
