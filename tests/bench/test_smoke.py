"""Every `cuarenta bench` subcommand runs at its smoke size and prints its figures.

In the normal suite (not marked ``bench``), so a change that breaks a benchmark fails the build
rather than the next person who measures. Each runs through the command line in its own process,
as a reader would type it, starting its own servers (and private redis-server where it needs
one). No figure is asserted: only that the run ends well and says what it measured.

The shell here sets the per-address caps tighter than the server's defaults: a benchmark must
give the servers it starts the settings it needs itself, whatever the user's environment says.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import BENCHMARKS, SMOKE

ROOT = Path(__file__).resolve().parents[2]
#: generous: a smoke run takes seconds, but the suite shares two cores with everything else
RUN_TIMEOUT_S = 240
#: a line each benchmark prints only once it has measured something
FIGURES = {
    "engine": "random games per CPU-second",
    "bots": "level 6: mean",
    "server": "cuarenta/game floor server CPU per round",
    "store": "takeover after kill -9",
    "scaling": "two processes over one",
    "soak": "games finished",
    "referee_cost": "per play",
    "relay_cost": "total_ms_per_round",
    "routing": "relayed share with 3 processes",
    "declines": "level 5: declined",
    "roots": "level 6:",
    "follow_up": "game win rate",
    "waiting": "push after the move, p95",
    "tournament": "margin per hand",
    "ceiling": "headroom",
    "chaos": "violations: lost",
    "coach": "loaded / idle p95",
    "review": "held by the reference",
    "pocket": "first deal offline",
    "lid": "stand_ins_on_wake_max_per_seat",
    "viewer_bytes": "spectator v4/v3",
}
NEEDS_REDIS = {"store", "scaling", "relay_cost", "routing", "chaos", "waiting"}
#: Debian's caddy and redis-sentinel (make services); without them the benchmark is skipped
NEEDS_PROXY = {"chaos"}
PROXY_MISSING = shutil.which("caddy") is None or shutil.which("redis-sentinel") is None


def strict_shell() -> dict[str, str]:
    """The caller's environment without its ``CUARENTA_*``, plus caps tighter than the defaults."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CUARENTA_")}
    return env | {"CUARENTA_CONNECTIONS_PER_ADDRESS": "2", "CUARENTA_TABLES_PER_MIN": "1"}


def test_every_benchmark_has_a_smoke_size_and_a_figure_to_look_for() -> None:
    assert set(SMOKE) == set(BENCHMARKS) == set(FIGURES)


@pytest.mark.parametrize(
    "what",
    [
        pytest.param(
            name,
            marks=([pytest.mark.redis] if name in NEEDS_REDIS else [])
            + (
                [pytest.mark.skipif(PROXY_MISSING, reason="needs caddy and redis-sentinel")]
                if name in NEEDS_PROXY
                else []
            ),
        )
        for name in BENCHMARKS
    ],
)
@pytest.mark.timeout(RUN_TIMEOUT_S + 30)
def test_the_benchmark_runs_at_its_smoke_size_and_prints_its_figures(what: str) -> None:
    code, out, err = run_bench(what, *SMOKE[what])
    said = f"stdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}"
    assert code == 0, said
    assert FIGURES[what] in out, said


def run_bench(*argv: str) -> tuple[int, str, str]:
    """``cuarenta bench ARGV`` in its own process group, killed whole (its servers and
    redis-server included) if it outlives the timeout."""
    with subprocess.Popen(
        [sys.executable, "-m", "server.cli", "bench", *argv],
        cwd=ROOT,
        env=strict_shell(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            return -1, out, f"timed out after {RUN_TIMEOUT_S} s\n{err}"
    return process.returncode, out, err


def test_an_unknown_benchmark_is_refused_with_the_list_of_known_ones() -> None:
    code, out, _ = run_bench("floor")
    assert code == 2
    assert "no benchmark 'floor'" in out
    assert "tournament" in out
