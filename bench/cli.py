"""`cuarenta bench <what> [options]`: run the module that measures it.

Each benchmark is a module exposing ``add_arguments(parser)`` and ``run(args) -> int``; it is
imported only when chosen, so a benchmark that needs Redis never loads for ``cuarenta bench
engine``. Every benchmark starts what it measures itself (servers, a private redis-server) with
the settings it needs, so it runs the same from any shell, and each has options small enough
for a smoke run of a second or two (`SMOKE`, run by ``tests/bench/test_smoke.py``). ``all``
runs `ORDER`, passing each the options it understands.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

#: name -> (module, one-line help): every benchmark there is.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "engine": ("bench.engine", "random games, plays and legal-action lists per second"),
    "bots": ("bench.bots", "decision time per bot level (in process, or as the server serves)"),
    "server": ("bench.server", "the table server under load beside a raw broadcast floor"),
    "store": ("bench.store", "Redis against memory, commands per commit, takeover, idle unload"),
    "scaling": ("bench.scaling", "per-move costs on Redis, viewers, two processes, fsync"),
    "soak": ("bench.soak", "the server's memory over a long run of games and reconnects"),
    "referee_cost": ("bench.load.referee_cost", "the referee's CPU per play, no sockets"),
    "relay_cost": ("bench.load.relay_cost", "CPU per round when a second process relays"),
    "routing": ("bench.routing", "behind caddy: relayed share, CPU per move, 3 processes vs 1"),
    "declines": ("bench.declines", "how often the searching levels decline a caida or limpia"),
    "roots": ("bench.roots", "the searching levels' choices valued on the true deal"),
    "follow_up": ("bench.follow_up", "level 3 with the follow-up term against level 3"),
    "tournament": ("bench.tournament", "duplicate tournament between two bot levels"),
    "ceiling": ("bench.ceiling", "a clairvoyant player against each level: the headroom"),
    "chaos": ("bench.chaos", "faults of every kind under play behind caddy; audits every table"),
    "coach": ("bench.coach", "hint latency as served, idle and while all-bot tables play"),
    "review": ("bench.review", "the coach's marks on level 5's plays, judged again wider"),
    "pocket": ("bench.pocket", "the offline ladder in Chromium, CPU throttled: deal, decisions"),
    "waiting": ("bench.waiting", "turn-based tables waiting in Redis, and the push's latency"),
    "lid": ("bench.lid", "server and clients stopped (SIGSTOP) for minutes: stand-ins on wake"),
    "viewer_bytes": ("bench.viewer_bytes", "bytes per move to a seat and a spectator, v3 vs v4"),
}
#: the benchmarks ``all`` (``make bench``) runs, in order; the others run by name.
ORDER = ("engine", "bots", "server", "store")
#: each benchmark at a size that runs in seconds and still prints every figure it has.
SMOKE: dict[str, tuple[str, ...]] = {
    "engine": ("--seconds", "0.2"),
    "bots": ("--positions", "4", "--samples", "2"),
    "server": (
        # 12 tables: more sockets (48) and tables than the server's per-address caps allow
        *("--tables", "12", "--seconds", "0.5", "--warmup", "0.2", "--ramp", "12"),
        *("--clients", "1", "--pace", "4"),
    ),
    # A 2 s lease: at 0.5 s a loaded CI run's host never saw its turn in 60 s; a loop stall
    # past so short a lease can hand the table over before the kill the takeover measures
    "store": ("--tables", "12", "--seconds", "0.5", "--lease", "2", "--idle-tables", "2"),
    "scaling": (
        *("--tables", "2", "--seconds", "0.3", "--warmup", "0.1", "--watchers", "1"),
        *("--idle-connections", "40", "--rounds", "1", "--commits", "20", "--monitor", "0.2"),
    ),
    "soak": ("--tables", "12", "--minutes", "0.03", "--sample", "0.5", "--idle-unload", "1"),
    "referee_cost": ("--plays", "200"),
    "relay_cost": ("--tables", "2", "--seconds", "0.5"),
    "routing": ("--tables", "2", "--seconds", "0.5", "--warmup", "0.5", "--rounds", "1"),
    "declines": ("--positions", "4", "--samples", "2"),
    "roots": ("--positions", "4", "--samples", "2"),
    "follow_up": ("--pairs", "1"),
    "tournament": ("3", "2", "--pairs", "1", "--jobs", "1", "--samples", "2"),
    "ceiling": ("--pairs", "1", "--levels", "1"),
    "chaos": (
        *("--minutes", "0", "--faults", "vanish_client", "--servers", "1", "--tables", "1"),
        *("--bot-tables", "0", "--gap", "0.1", "0.2"),
    ),
    "coach": ("--tables", "2", "--level", "4", "--hints", "3", "--warmup", "0.2"),
    "review": ("--positions", "3", "--samples", "2", "--profile", "heads-up"),
    "pocket": ("--levels", "1", "--moves", "2", "--throttle", "1"),
    "waiting": ("--tables", "20", "--real", "2", "--seconds", "0.5", "--moves", "3"),
    "lid": ("--tables", "1", "--lid", "0.5", "--before", "0.5", "--after", "1"),
    "viewer_bytes": ("--games", "1"),
}


def _known() -> str:
    return ", ".join(BENCHMARKS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``what`` and pass every further argument to that benchmark."""
    parser.description = "\n".join(
        ["print performance figures (see BENCHMARKS.md); benchmarks:"]
        + [f"  {name:<13} {help_}" for name, (_, help_) in BENCHMARKS.items()]
        + [f"  {'all':<13} {', '.join(ORDER)} (make bench)"]
        + ["`cuarenta bench <what> --help` lists a benchmark's options."]
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("what", help=f"one of {_known()}, or all")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="the benchmark's own options")


def _run_one(what: str, module: ModuleType, options: list[str], strict: bool) -> int:
    parser = argparse.ArgumentParser(prog=f"cuarenta bench {what}", description=module.__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    module.add_arguments(parser)
    if strict:
        return int(module.run(parser.parse_args(options)))
    known, _ = parser.parse_known_args(options)
    return int(module.run(known))


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmark(s); the exit code is the first failure's, else 0."""
    if args.what != "all":
        if args.what not in BENCHMARKS:
            print(f"cuarenta bench: no benchmark {args.what!r} (known: {_known()}, all)")
            return 2
        module = importlib.import_module(BENCHMARKS[args.what][0])
        return _run_one(args.what, module, args.options, strict=True)
    worst = 0
    for what in ORDER:
        module = importlib.import_module(BENCHMARKS[what][0])
        worst = worst or _run_one(what, module, args.options, strict=False)
    return worst
