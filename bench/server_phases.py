"""The two phases of `cuarenta bench server`: the closed loop and the paced ramp, each a
server under test (a child process) and load processes on 127.0.0.1 (``bench.load``).

Closed loop: every table's next seat acts as soon as its turn reaches it (the throughput
figure). Paced: every table one action per interval, tables added in ascending steps while a step
holds or at least keeps the server's loop lag p99 within ``LAG_P99_CALM_MS``; each step records
the server's RSS per connection and per table (RSS before/after, divided). Each window also reads
the server's CPU, loop lag and garbage-collector pauses.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench.load.fleet import Fleet, FleetFigures
from bench.load.stats import Latency, per_unit, rate
from bench.load.targets import TargetKind, TargetProcess, Usage
from bench.server_report import LAG_P99_CALM_MS, SEATS, PacedStep, Window

START_DELAY_S = 0.3
LAG_LINES_WAIT_S = 3.0


# ---------------------------------------------------------------------- measuring
_STARTED = time.monotonic()


def progress(text: str) -> None:
    """One line on stderr per stage, so a long run shows where it is (stdout is the report)."""
    print(f"[{time.monotonic() - _STARTED:6.1f} s] {text}", file=sys.stderr, flush=True)


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
        Fleet(kind, target.url, args.clients, version=target.version) as fleet,
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
