"""A few seconds of `cuarenta bench soak` at two tables: the command cannot rot.

Marked ``bench`` (excluded from `make test`): it starts a server process and plays all-bot
games (R7) and a reconnecting person's game while sampling the server's RSS.
"""

from __future__ import annotations

import argparse
import json

import pytest

from bench import soak

pytestmark = pytest.mark.bench


@pytest.mark.timeout(300)
def test_a_short_soak_samples_rss_finishes_games_and_reconnects(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    soak.add_arguments(parser)
    args = parser.parse_args(
        ["--tables", "2", "--minutes", "0.25", "--sample", "2", "--reconnect-every", "1", "--json"]
    )

    assert soak.run(args) == 0

    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    samples = [line for line in lines if line["result"] == "sample"]
    summary = lines[-1]
    assert len(samples) >= 3
    assert all(sample["rss_mib"] > 10 for sample in samples)
    assert summary["reconnects"] > 0
    assert summary["games"] > 0
    assert summary["errors"] == {}
    assert "growth" in out
