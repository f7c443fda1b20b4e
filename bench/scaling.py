"""`cuarenta bench scaling`: the measured constants of docs/scaling.md's capacity model.

Every phase runs ``cuarenta serve`` child processes on a private ``redis-server`` (free port,
temporary directory on disk, never the machine's own Redis) with all-bot tables, closed-loop and
saturated (the load: ``bench.scaling_load``; the counters read and the costs per move:
``bench.scaling_readings``). A *move* is a bot decision; each is one commit.

Phases (``--phases``, default all):

- ``cost``: one process, ``--tables`` tables, each watched by its host only. Per move: the
  server's CPU (``/proc``), Redis's CPU (``INFO cpu``), the commands clients sent Redis
  (``INFO commandstats``, this benchmark's own ``INFO`` excluded) and the bytes into and out of
  Redis (``INFO stats``); Redis memory per table created (``used_memory`` over tables created,
  those still playing included) and per finished game (``MEMORY USAGE`` of a finished table's
  keys, kept for the table TTL, and by key; its R15 record, kept for the record TTL, apart); the
  server's RSS while playing.
- ``viewers``: the same with ``--watchers`` more watchers per table (lean sockets that only
  count bytes): server CPU per extra viewer per move, bytes sent per viewer per move, and the
  RSS of an idle connection (``--idle-connections`` connections that said hello).
- ``scale``: one process against two (the tables split between them), same total tables, same
  private Redis, alternating ``--rounds`` times: total moves per second, two over one.
- ``fsync``: Redis with ``appendfsync always`` against ``everysec`` (one private server each):
  the latency of a commit-shaped script (an ``HSET`` of ``--state-bytes`` and an ``RPUSH`` of one
  event, one round trip at a time, ``--commits`` per batch, batches alternating), then the
  server's moves per second on each, alternating.

CPU per move is CPU time, so other processes on the machine change it little; rates (moves per
second, two over one) depend on the CPU the machine gives, printed beside them as the servers'
CPU seconds per second of wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from redis.asyncio import Redis

from bench.machine import machine
from bench.scaling_load import idle_connection_kib, played
from bench.scaling_readings import Window
from bench.store import private_redis

PHASES = ("cost", "viewers", "scale", "fsync")
WAIT_S = 60.0
_COMMIT_SCRIPT = """
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'version', ARGV[2])
return redis.call('RPUSH', KEYS[2], ARGV[3])
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated: %(default)s")
    parser.add_argument("--tables", type=int, default=40, help="all-bot tables (default 40)")
    parser.add_argument("--seconds", type=float, default=15.0, help="measurement window")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before each window")
    parser.add_argument("--watchers", type=int, default=4, help="extra watchers per table")
    parser.add_argument("--idle-connections", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2, help="alternations of scale and fsync")
    parser.add_argument("--commits", type=int, default=300, help="commits per fsync batch")
    parser.add_argument("--state-bytes", type=int, default=2000, help="state size of a commit")
    parser.add_argument("--monitor", type=float, default=3.0, help="seconds of MONITOR (cost)")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")


# ---------------------------------------------------------------------- fsync
async def commit_latencies(redis_url: str, commits: int, state_bytes: int) -> list[float]:
    """Milliseconds per commit-shaped script call, one at a time."""
    client = Redis.from_url(redis_url)
    try:
        script = client.register_script(_COMMIT_SCRIPT)
        state, event = b"s" * state_bytes, b"e" * 200
        out = []
        for n in range(commits):
            t0 = time.perf_counter()
            await script(keys=["{t}:meta", "{t}:log"], args=[state, n, event])
            out.append((time.perf_counter() - t0) * 1000)
        await client.delete("{t}:meta", "{t}:log")
        return out
    finally:
        await client.aclose()


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else 0.0


async def fsync_phase(args: argparse.Namespace) -> dict[str, Any]:
    settings = ("always", "everysec")
    latencies: dict[str, list[float]] = {s: [] for s in settings}
    windows: dict[str, list[Window]] = {s: [] for s in settings}
    with private_redis("always") as always, private_redis("everysec") as everysec:
        urls = {"always": always, "everysec": everysec}
        for _ in range(args.rounds * 2):
            for setting in settings:
                latencies[setting] += await commit_latencies(
                    urls[setting], args.commits, args.state_bytes
                )
        for _ in range(args.rounds):
            for setting in settings:
                windows[setting].append(
                    await played(f"appendfsync {setting}", urls[setting], 1, args.tables, args)
                )
    return {
        setting: {
            "commit_p50_ms": round(quantile(latencies[setting], 0.5), 3),
            "commit_p99_ms": round(quantile(latencies[setting], 0.99), 3),
            "commits": len(latencies[setting]),
            "moves_per_s": [w.moves_per_s for w in windows[setting]],
            "server_cpu_ms_per_move": [w.server_cpu_ms_per_move for w in windows[setting]],
        }
        for setting in settings
    }


# ---------------------------------------------------------------------- main


async def _main(args: argparse.Namespace, phases: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "tables": args.tables}
    with private_redis() as redis_url:
        if "cost" in phases:
            report["cost"] = asdict(
                await played("cost", redis_url, 1, args.tables, args, monitor_s=args.monitor)
            )
        if "viewers" in phases:
            pairs = []
            for _ in range(args.rounds):  # alternating: CPU per move drifts with the machine
                base = await played("viewers 0", redis_url, 1, args.tables, args)
                more = await played(
                    f"viewers +{args.watchers}", redis_url, 1, args.tables, args, args.watchers
                )
                pairs.append((base, more))
            extra = max(args.watchers, 1)
            deltas = [
                (more.server_cpu_ms_per_move - base.server_cpu_ms_per_move) / extra
                for base, more in pairs
            ]
            report["viewers"] = {
                "watchers_per_table": args.watchers,
                "cpu_ms_per_viewer_per_move": round(statistics.median(deltas), 4),
                "cpu_ms_per_viewer_per_move_runs": [round(d, 4) for d in deltas],
                "bytes_per_viewer_per_move": round(
                    statistics.median(more.viewer_bytes_per_move for _, more in pairs), 1
                ),
                "idle_connection_kib": round(
                    await idle_connection_kib(redis_url, args.idle_connections), 1
                ),
                "runs": [[asdict(base), asdict(more)] for base, more in pairs],
            }
        if "scale" in phases:
            pairs = []
            for _ in range(args.rounds):
                one = await played("1 process", redis_url, 1, args.tables, args)
                two = await played("2 processes", redis_url, 2, args.tables, args)
                pairs.append((one, two))
            ratios = [two.moves_per_s / max(one.moves_per_s, 1e-9) for one, two in pairs]
            report["scale"] = {
                "two_over_one": round(statistics.median(ratios), 3),
                "ratios": [round(r, 3) for r in ratios],
                "runs": [[asdict(one), asdict(two)] for one, two in pairs],
            }
    if "fsync" in phases:
        report["fsync"] = await fsync_phase(args)
    return report


def print_report(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(
        f"scaling: {report['tables']} all-bot tables, private Redis; {m['nproc']} cores "
        f"({m['cpu']}), Python {m['python']}, load average {m['load_average_1m']} at the start"
    )
    if "cost" in report:
        w = report["cost"]
        print(
            f"per move (1 process, {w['moves_per_s']:.0f} moves/s, CPU supply {w['cpu_supply']}): "
            f"server CPU {w['server_cpu_ms_per_move']:.3f} ms, Redis CPU "
            f"{w['redis_cpu_us_per_move']:.1f} us, {w['redis_commands_per_move']:.2f} Redis "
            f"calls inside Redis ({w['redis_commands_by_name']}), sent by the server "
            f"{w['client_commands_per_move']}, {w['redis_bytes_in_per_move']:.0f} B into Redis, "
            f"{w['redis_bytes_out_per_move']:.0f} B out; Redis memory "
            f"{w['redis_memory_kib_per_table']:.1f} KiB per table created, "
            f"{w['redis_kib_per_finished_table']:.1f} KiB per finished table "
            f"({w['redis_kib_by_part']}; its record "
            f"{w['redis_kib_per_record']:.1f} KiB apart); server RSS "
            f"{w['server_rss_mib']:.1f} MiB with {report['tables']} tables playing"
        )
    if "viewers" in report:
        v = report["viewers"]
        print(
            f"per viewer ({v['watchers_per_table']} more per table): "
            f"{v['cpu_ms_per_viewer_per_move']:.4f} ms server CPU (median of "
            f"{v['cpu_ms_per_viewer_per_move_runs']}) and "
            f"{v['bytes_per_viewer_per_move']:.0f} B sent per move; idle connection "
            f"{v['idle_connection_kib']:.1f} KiB RSS"
        )
    if "scale" in report:
        s = report["scale"]
        for one, two in s["runs"]:
            print(
                f"  1 process {one['moves_per_s']:.0f} moves/s (CPU {one['cpu_supply']}, load "
                f"{one['load_cpu_supply']}), 2 processes {two['moves_per_s']:.0f} (CPU "
                f"{two['cpu_supply']}, load {two['load_cpu_supply']})"
            )
        print(
            f"two processes over one, same tables: {s['two_over_one']:.2f} (median of "
            f"{len(s['ratios'])}: {s['ratios']})"
        )
    if "fsync" in report:
        for setting, f in report["fsync"].items():
            print(
                f"appendfsync {setting}: commit p50 {f['commit_p50_ms']:.3f} ms, p99 "
                f"{f['commit_p99_ms']:.3f} ms ({f['commits']} one at a time); server "
                f"moves/s {f['moves_per_s']}"
            )


def run(args: argparse.Namespace) -> int:
    phases = [p for p in args.phases.split(",") if p]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown or args.tables < 1 or args.seconds <= 0 or args.rounds < 1:
        print(
            f"cuarenta bench scaling: phases from {', '.join(PHASES)}; --tables, --seconds and "
            f"--rounds positive (unknown: {unknown})",
            file=sys.stderr,
        )
        return 2
    if shutil.which("redis-server") is None:
        print(
            "cuarenta bench scaling: redis-server is not installed (apt-get install redis-server)"
        )
        return 2
    report = asyncio.run(_main(args, phases))
    print_report(report)
    if args.json:
        print(json.dumps({"bench": "scaling", **report}))
    return 0


__all__ = ["add_arguments", "run"]
