"""What `cuarenta bench server` found: its windows and paced steps, the bars a step is held by,
and the report printed (a table per phase, the ratios to the floors, JSON lines).

CPU supply varies between runs, so the results are ratios to the floors: the game floor over
the floor is what the game itself costs on this stack, the table server over the game floor what
everything a real table adds costs. A paced step is held when deliveries' p99 is under 50 ms, the
server's event-loop lag p99 under 20 ms, the pace is kept and nothing is refused.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.load.stats import Latency, ratio

SEATS = 4
DELIVERY_P99_LIMIT_MS = 50.0
LAG_P99_LIMIT_MS = 20.0
LAG_P99_CALM_MS = 50.0  # loop lag alone: the pauses a person would notice
PACE_KEPT = 0.95  # a paced step must deliver at least this share of its scheduled rounds
CLOSED_TARGET = 1 / 3
TABLES_TARGET = 2000


# ---------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Window:
    """One measurement window of one server under load."""

    target: str
    tables: int
    seconds: float
    rounds_per_s: float
    frames_per_s: float
    delivery: Latency
    server_lag: Latency
    load_lag: Latency
    server_cpu: float  # share of one core
    load_cpu: float  # share of one core, all load processes together
    errors: dict[str, int]
    gc_max_ms: float = 0.0  # the server's longest garbage collection in the window
    gc_share: float = 0.0  # the share of the window the server spent collecting
    gc_full: int = 0  # collections of the oldest generation (they walk every live object)

    @property
    def cpu_ms_per_round(self) -> float | None:
        """Server CPU time per table round: a cost that does not depend on the CPU supply."""
        return self.server_cpu / self.rounds_per_s * 1000 if self.rounds_per_s > 0 else None


@dataclass(frozen=True, slots=True)
class PacedStep:
    window: Window
    scheduled_per_s: float
    bytes_per_connection: float
    bytes_per_table: float
    rss_bytes: int
    growth_bytes_per_table_s: float  # RSS growth while playing: the cost of a game going on

    @property
    def holds(self) -> bool:
        w = self.window
        return (
            w.delivery.count > 0
            and w.delivery.p99_ms < DELIVERY_P99_LIMIT_MS
            and w.server_lag.p99_ms < LAG_P99_LIMIT_MS
            and not w.errors
            and w.rounds_per_s >= PACE_KEPT * self.scheduled_per_s
        )


@dataclass(slots=True)
class Report:
    machine: dict[str, Any]
    pace: float = 1.0
    closed: list[Window] = field(default_factory=list)  # in the order they ran
    paced: dict[str, list[PacedStep]] = field(default_factory=dict)

    def median_of(self, target: str, figure: str) -> float | None:
        """The median of one figure of ``target``'s closed-loop windows (None: no window)."""
        values = [getattr(w, figure) for w in self.closed if w.target == target]
        values = sorted(value for value in values if value is not None)
        return values[len(values) // 2] if values else None

    def closed_ratio(self) -> float | None:
        floor = self.median_of("floor", "rounds_per_s")
        ours = self.median_of("cuarenta", "rounds_per_s")
        return ratio(ours, floor) if floor and ours is not None else None

    def cpu_ratio(self, target: str = "cuarenta", over: str = "floor") -> float | None:
        """``target``'s median CPU per round over ``over``'s (the floor: how many times the
        floor's cost a round costs; the baseline: this tree's cost as a share of it)."""
        ours = self.median_of(target, "cpu_ms_per_round")
        theirs = self.median_of(over, "cpu_ms_per_round")
        return ours / theirs if ours and theirs else None

    def held_tables(self, lag_p99_ms: float | None = None) -> int:
        """The most tables a paced step held; ``lag_p99_ms``: held by the loop lag alone."""
        held = [
            step.window.tables
            for step in self.paced.get("cuarenta", [])
            if (step.holds if lag_p99_ms is None else step.window.server_lag.p99_ms <= lag_p99_ms)
        ]
        return max(held, default=0)


# ---------------------------------------------------------------------- printing
def _kb(value: float) -> str:
    return f"{value / 1024:.1f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_report(report: Report) -> None:
    m = report.machine
    print(
        f"server bench on {m['nproc']} cores ({m['cpu']}), Python {m['python']}, "
        f"load average {m['load_average_1m']} at the start"
    )
    if report.closed:
        any_window = report.closed[0]
        print(
            f"\nclosed loop: {any_window.tables} tables x {SEATS} seats, "
            f"{any_window.seconds:g} s window"
        )
        print(
            f"{'target':<9}{'rounds/s':>10}{'frames/s':>10}{'p50 ms':>8}{'p99 ms':>8}"
            f"{'lag p99':>9}{'srv CPU':>9}{'CPU ms/rd':>10}{'load CPU':>9}  errors"
        )
        for w in report.closed:
            print(
                f"{w.target:<9}{w.rounds_per_s:>10.0f}{w.frames_per_s:>10.0f}"
                f"{w.delivery.p50_ms:>8.1f}{w.delivery.p99_ms:>8.1f}{w.server_lag.p99_ms:>9.1f}"
                f"{w.server_cpu:>9.0%}{_ms(w.cpu_ms_per_round):>10}{w.load_cpu:>9.0%}  "
                f"{w.errors or '-'}"
            )
        closed = report.closed_ratio()
        if closed is not None:
            verdict = "met" if closed >= CLOSED_TARGET else "NOT met"
            print(f"cuarenta/floor rounds: {closed:.3f} (target >= {CLOSED_TARGET:.3f}: {verdict})")
        cpu = report.cpu_ratio()
        if cpu is not None:
            print(f"cuarenta/floor server CPU per round (medians): {cpu:.2f}x")
        game = report.cpu_ratio("game", "floor")
        if game is not None:
            print(f"game floor/floor server CPU per round (medians): {game:.2f}x")
        above = report.cpu_ratio("cuarenta", "game")
        if above is not None:
            print(f"cuarenta/game floor server CPU per round (medians): {above:.2f}x")
        base = report.cpu_ratio("cuarenta", "baseline")
        if base is not None:
            print(f"cuarenta/baseline server CPU per round (medians): {base:.3f}")
    for kind, steps in report.paced.items():
        if not steps:
            continue
        print(f"\npaced ({kind}): one action per table every {1 / report.pace:g} s")
        print(
            f"{'tables':>7}{'conns':>7}{'rounds/s':>10}{'p50 ms':>8}{'p99 ms':>8}{'lag p99':>9}"
            f"{'srv CPU':>9}{'CPU ms/rd':>10}{'load CPU':>9}{'KB/conn':>9}{'KB/table':>10}"
            f"{'RSS MB':>8}{'GC max':>8}{'GC %':>6}  holds"
        )
        for step in steps:
            w = step.window
            print(
                f"{w.tables:>7}{SEATS * w.tables:>7}{w.rounds_per_s:>10.0f}"
                f"{w.delivery.p50_ms:>8.1f}{w.delivery.p99_ms:>8.1f}{w.server_lag.p99_ms:>9.1f}"
                f"{w.server_cpu:>9.0%}{_ms(w.cpu_ms_per_round):>10}{w.load_cpu:>9.0%}"
                f"{_kb(step.bytes_per_connection):>9}"
                f"{_kb(step.bytes_per_table):>10}{step.rss_bytes / 2**20:>8.0f}"
                f"{w.gc_max_ms:>8.1f}{w.gc_share:>6.1%}  "
                f"{'yes' if step.holds else 'no'}{' ' + str(w.errors) if w.errors else ''}"
            )
    if report.paced.get("cuarenta"):
        held = report.held_tables()
        verdict = "met" if held >= TABLES_TARGET else "NOT met"
        print(
            f"tables held at p99 < {DELIVERY_P99_LIMIT_MS:g} ms and loop lag p99 < "
            f"{LAG_P99_LIMIT_MS:g} ms: {held} (target >= {TABLES_TARGET}: {verdict})"
        )
        calm = report.held_tables(LAG_P99_CALM_MS)
        print(f"tables at loop lag p99 <= {LAG_P99_CALM_MS:g} ms (loop lag alone): {calm}")


def json_lines(report: Report) -> list[str]:
    lines = [{"bench": "server", "result": "machine", **report.machine}]
    for window in report.closed:
        lines.append(
            {
                "bench": "server",
                "result": "closed",
                **asdict(window),
                "cpu_ms_per_round": window.cpu_ms_per_round,
            }
        )
    for steps in report.paced.values():
        for step in steps:
            lines.append(
                {
                    "bench": "server",
                    "result": "paced",
                    **asdict(step),
                    "cpu_ms_per_round": step.window.cpu_ms_per_round,
                    "holds": step.holds,
                }
            )
    lines.append(
        {
            "bench": "server",
            "result": "summary",
            "closed_ratio": report.closed_ratio(),
            "cpu_ratio": report.cpu_ratio(),
            "baseline_cpu_ratio": report.cpu_ratio("cuarenta", "baseline"),
            "game_cpu_ratio": report.cpu_ratio("game", "floor"),
            "over_game_cpu_ratio": report.cpu_ratio("cuarenta", "game"),
            "held_tables": report.held_tables(),
            "lag_calm_tables": report.held_tables(LAG_P99_CALM_MS),
        }
    )
    return [json.dumps(line, separators=(",", ":")) for line in lines]
