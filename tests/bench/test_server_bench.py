"""A tiny `cuarenta bench server` run: both servers start, tables play, every figure is there.

Marked ``bench`` (excluded from `make test`): it starts two servers and load processes and
plays real games (first legal play, R7; R10 awards automatic) for a few seconds.
"""

from __future__ import annotations

import argparse
import json

import pytest

from bench import server

pytestmark = pytest.mark.bench
STARTS_AND_PLAYS_S = 600  # four server starts and load processes; slow on a busy 2-core machine


@pytest.mark.timeout(STARTS_AND_PLAYS_S)
def test_tiny_server_bench_reports_rounds_latencies_memory_and_the_ratio_r7(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    server.add_arguments(parser)
    args = parser.parse_args(
        [
            "--tables",
            "4",
            "--seconds",
            "1.5",
            "--warmup",
            "0.5",
            "--ramp",
            "4,8",
            "--clients",
            "1",
            "--json",
        ]
    )

    assert server.run(args) == 0

    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    closed = {line["target"]: line for line in lines if line["result"] == "closed"}
    assert set(closed) == {"floor", "cuarenta"}
    for window in closed.values():
        assert window["rounds_per_s"] > 0
        assert window["delivery"]["count"] > 0
        assert window["errors"] == {}
    paced = [line for line in lines if line["result"] == "paced"]
    assert [step["window"]["target"] for step in paced][-1] == "floor"
    first = paced[0]
    assert first["window"]["tables"] == 4
    assert first["bytes_per_connection"] > 0
    assert first["window"]["server_lag"]["count"] > 0
    summary = lines[-1]
    assert summary["result"] == "summary"
    assert summary["closed_ratio"] == pytest.approx(
        closed["cuarenta"]["rounds_per_s"] / closed["floor"]["rounds_per_s"]
    )
    assert "cuarenta/floor rounds:" in out
