"""`cuarenta bench server`: the table server under load, side by side with two floors.

Measured from outside, by load processes on 127.0.0.1 (``bench.load``), against servers
started as child processes in the same run: ``cuarenta serve --store memory --bot-delay 0``
(with an event-loop lag probe); ``bench.floor``, a websockets broadcast server with no game
logic (one frame in, four copies out per table round); and, in the closed loop,
``bench.game_floor``, the least a server of the game does per move with this tree's engine and
codec (validate, judge, redact and number, send each seat its update; no store, seats, clocks
or anything else a real table has). CPU supply varies between runs, so the results are ratios
to the floors: the game floor over the floor is what the game itself costs on this stack, the
table server over the game floor what everything a real table adds costs.

1. Closed loop: ``--tables`` tables of four seats; each table's next seat acts as soon as its
   turn reaches it. Figure: table rounds per second, as a fraction of the floor's (target 1/3).
2. Paced: every table one action per ``1 / --pace`` seconds, ``--ramp`` tables in ascending
   steps, then the floor at the last step reached. A step is held when deliveries' p99 is under
   50 ms, the server's event-loop lag p99 under 20 ms, the pace is kept and nothing is refused
   (target: 2,000 tables); the ramp goes on past a step that misses that but keeps the loop
   lag p99 within 50 ms (the bar a person notices). Each step also records the server's RSS
   per connection and per table (RSS before/after, divided).

The load processes and the server share the machine's cores: every figure is for this machine
as a whole, and the load's own CPU use and loop lag are printed beside the server's.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.load.errors import LoadBenchError, StatsError
from bench.load.fleet import Fleet, FleetFigures
from bench.load.stats import Latency, per_unit, rate, ratio
from bench.load.targets import TargetKind, TargetProcess, Usage
from bench.load.worker import raise_open_file_limit

SEATS = 4
DELIVERY_P99_LIMIT_MS = 50.0
LAG_P99_LIMIT_MS = 20.0
LAG_P99_CALM_MS = 50.0  # loop lag alone: the pauses a person would notice
PACE_KEPT = 0.95  # a paced step must deliver at least this share of its scheduled rounds
CLOSED_TARGET = 1 / 3
TABLES_TARGET = 2000
START_DELAY_S = 0.3
LAG_LINES_WAIT_S = 3.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tables",
        type=int,
        default=250,
        help="closed-loop tables of four seats (default %(default)s)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="measurement window of each phase and step (default %(default)s)",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        help="seconds of play before each window (default %(default)s)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=1.0,
        help="paced actions per second per table (default %(default)s)",
    )
    parser.add_argument(
        "--ramp",
        default="250,500,1000",
        help="paced steps: total tables, ascending (default %(default)s)",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=2,
        choices=(1, 2, 3, 4),
        help="load processes (default %(default)s)",
    )
    parser.add_argument(
        "--phases", default="closed,paced", help="closed, paced or both (default %(default)s)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="closed loop: rounds of the servers, alternated (default %(default)s)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="closed loop: also serve this checkout of the project (a `git archive` of the tree "
        "to compare with), alternated with this tree in every round",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="write a CPU-time cProfile of the table server's closed-loop run here",
    )
    parser.add_argument("--json", action="store_true", help="also print one JSON line per result")


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


# ---------------------------------------------------------------------- measuring
_STARTED = time.monotonic()


def progress(text: str) -> None:
    """One line on stderr per stage, so a long run shows where it is (stdout is the report)."""
    print(f"[{time.monotonic() - _STARTED:6.1f} s] {text}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    """What the figures depend on: cores, CPU model, Python, and how busy the machine was."""
    model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def measure(
    target: TargetProcess,
    fleet: Fleet,
    warmup: float,
    seconds: float,
) -> tuple[FleetFigures, Usage, Usage, list[float], list[tuple[int, float]]]:
    """Play ``warmup`` seconds, then measure ``seconds``: load figures, server usage, lag and
    the collector's pauses (generation, seconds)."""
    start = time.monotonic() + warmup
    end = start + seconds
    fleet.send_measure(start, end)
    time.sleep(max(0.0, start - time.monotonic()))
    before = target.usage()
    time.sleep(max(0.0, end - time.monotonic()))
    after = target.usage()
    figures = fleet.measured()
    waited = time.monotonic() + LAG_LINES_WAIT_S  # the probe reports once a second
    while target.latest_lag_sample() < end and time.monotonic() < waited:
        time.sleep(0.05)
    return figures, before, after, target.lag_between(start, end), target.gc_between(start, end)


def window_of(
    kind: str,
    tables: int,
    seconds: float,
    figures: FleetFigures,
    before: Usage,
    after: Usage,
    lag: list[float],
    pauses: list[tuple[int, float]],
) -> Window:
    return Window(
        target=kind,
        tables=tables,
        seconds=seconds,
        rounds_per_s=rate(figures.rounds, seconds),
        frames_per_s=rate(figures.frames, seconds),
        delivery=Latency.of_seconds(figures.latencies),
        server_lag=Latency.of_seconds(lag),
        load_lag=Latency.of_seconds(figures.lag),
        server_cpu=(after.cpu_s - before.cpu_s) / seconds,
        load_cpu=figures.cpu_s / seconds,
        errors=figures.errors,
        gc_max_ms=max((pause for _, pause in pauses), default=0.0) * 1000,
        gc_share=sum(pause for _, pause in pauses) / seconds,
        gc_full=sum(1 for generation, _ in pauses if generation == 2),
    )


def closed_loop(
    kind: TargetKind,
    args: argparse.Namespace,
    profile: Path | None = None,
    tree: Path | None = None,
) -> Window:
    """Every table plays as fast as its turns come back: the throughput figure. ``tree``: serve
    that checkout (the window's target is then ``baseline``)."""
    label = "baseline" if tree is not None else kind
    progress(f"closed loop, {label}: starting the server and {args.clients} load process(es)")
    with (
        TargetProcess(kind, profile, tree) as target,
        Fleet(kind, target.url, args.clients) as fleet,
    ):
        progress(f"closed loop, {label}: connecting {args.tables} tables")
        fleet.connect(args.tables)
        fleet.seat()
        progress(f"closed loop, {label}: playing")
        fleet.start(time.monotonic() + START_DELAY_S, 0.0)
        figures, before, after, lag, pauses = measure(
            target, fleet, START_DELAY_S + args.warmup, args.seconds
        )
        return window_of(label, args.tables, args.seconds, figures, before, after, lag, pauses)


def paced(kind: TargetKind, steps: list[int], args: argparse.Namespace) -> list[PacedStep]:
    """Add tables step by step at the given pace while a step holds, or at least keeps the
    server's loop lag p99 within ``LAG_P99_CALM_MS`` (the speed issue's bar)."""
    interval = 1 / args.pace
    results: list[PacedStep] = []
    with TargetProcess(kind) as target, Fleet(kind, target.url, args.clients) as fleet:
        for tables in steps:
            progress(f"paced, {kind}: {tables} tables")
            added = tables - fleet.tables
            before = target.usage()
            fleet.connect(added)
            connected = target.usage()
            fleet.seat()
            seated = target.usage()
            fleet.start(time.monotonic() + START_DELAY_S, interval)
            warmup = START_DELAY_S + max(args.warmup, 2 * interval)  # every new table has played
            figures, start, end, lag, pauses = measure(target, fleet, warmup, args.seconds)
            step = PacedStep(
                window=window_of(kind, tables, args.seconds, figures, start, end, lag, pauses),
                scheduled_per_s=tables * args.pace,
                bytes_per_connection=per_unit(before.rss_bytes, connected.rss_bytes, SEATS * added),
                bytes_per_table=per_unit(connected.rss_bytes, seated.rss_bytes, added),
                rss_bytes=end.rss_bytes,
                growth_bytes_per_table_s=per_unit(start.rss_bytes, end.rss_bytes, tables)
                / args.seconds,
            )
            results.append(step)
            if not step.holds and step.window.server_lag.p99_ms > LAG_P99_CALM_MS:
                break  # past both bars: the strict one and the loop lag a person notices
    return results


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


# ---------------------------------------------------------------------- command
def parse_ramp(text: str) -> list[int]:
    """``"500,1000,2000"`` -> [500, 1000, 2000]; steps must be positive and ascending."""
    try:
        steps = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise StatsError(f"--ramp takes table counts like 500,1000,2000, not {text!r}") from None
    if not steps or steps[0] <= 0 or any(b <= a for a, b in itertools.pairwise(steps)):
        raise StatsError(f"--ramp steps must be positive and ascending, got {text!r}")
    return steps


def run(args: argparse.Namespace) -> int:
    phases = {part.strip() for part in args.phases.split(",")}
    try:
        steps = parse_ramp(args.ramp)
        if args.tables <= 0 or args.seconds <= 0 or args.pace <= 0:
            raise StatsError("--tables, --seconds and --pace must be positive")
        raise_open_file_limit()  # inherited by the servers and the load processes
        report = Report(machine(), pace=args.pace)
        if args.rounds <= 0:
            raise StatsError("--rounds must be positive")
        if "closed" in phases:
            for _ in range(args.rounds):  # alternated: the machine's CPU supply drifts
                report.closed.append(closed_loop("floor", args))
                report.closed.append(closed_loop("game", args))
                report.closed.append(closed_loop("cuarenta", args, args.profile))
                if args.baseline is not None:
                    report.closed.append(closed_loop("cuarenta", args, tree=args.baseline))
        if "paced" in phases:
            report.paced["cuarenta"] = paced("cuarenta", steps, args)
            reached = report.paced["cuarenta"][-1].window.tables  # the floor at the same load
            report.paced["floor"] = paced("floor", [reached], args)
    except LoadBenchError as exc:
        print(f"cuarenta bench server: {exc}", file=sys.stderr)
        return 1
    print_report(report)
    if args.json:
        for line in json_lines(report):
            print(line)
    return 0
