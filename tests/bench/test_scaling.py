"""A few seconds of `cuarenta bench scaling` at two tables: the report has every figure the
capacity model (docs/scaling.md) reads, each non-zero and sane.

Marked ``bench`` (excluded from `make test`): it starts private redis-servers and server
processes and plays all-bot games (R7).
"""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

import pytest

from bench import scaling

pytestmark = [
    pytest.mark.bench,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


def _report(capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    scaling.add_arguments(parser)
    common = ["--tables", "2", "--seconds", "1.5", "--warmup", "1", "--rounds", "1", "--json"]
    assert scaling.run(parser.parse_args([*common, *options])) == 0
    out = capsys.readouterr().out
    return dict(json.loads(out.splitlines()[-1]))


@pytest.mark.timeout(300)
def test_the_cost_and_viewer_figures_are_measured(capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(
        capsys, "--phases", "cost,viewers", "--watchers", "2", "--idle-connections", "20"
    )

    cost = report["cost"]
    assert cost["moves"] > 0
    assert cost["moves_per_s"] > 0
    assert 0 < cost["server_cpu_ms_per_move"] < 100
    assert cost["redis_commands_per_move"] >= 1  # at least the commit itself
    assert cost["redis_bytes_in_per_move"] > 100  # the state and the events
    assert cost["redis_cpu_us_per_move"] > 0
    assert cost["server_rss_mib"] > 10
    assert cost["load_cpu_supply"] > 0
    viewers = report["viewers"]
    assert viewers["bytes_per_viewer_per_move"] > 50  # at least an update frame
    assert viewers["idle_connection_kib"] > 0
    assert viewers["runs"][0][1]["moves"] > 0


@pytest.mark.timeout(300)
def test_one_and_two_processes_and_both_fsync_settings_are_compared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _report(capsys, "--phases", "scale,fsync", "--commits", "20")

    scale = report["scale"]
    assert scale["two_over_one"] > 0
    one, two = scale["runs"][0]
    assert (one["processes"], two["processes"]) == (1, 2)
    assert one["moves"] > 0
    assert two["moves"] > 0
    for setting in ("always", "everysec"):
        figures = report["fsync"][setting]
        assert figures["commits"] == 40
        assert 0 < figures["commit_p50_ms"] <= figures["commit_p99_ms"]
        assert figures["moves_per_s"][0] > 0
