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

The phases are ``bench.server_phases``; the windows, the bars and the report are
``bench.server_report``.

The load processes and the server share the machine's cores: every figure is for this machine
as a whole, and the load's own CPU use and loop lag are printed beside the server's.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from bench.load.errors import LoadBenchError, StatsError
from bench.load.worker import raise_open_file_limit
from bench.machine import machine
from bench.server_phases import closed_loop, paced
from bench.server_report import Report, json_lines, print_report


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
