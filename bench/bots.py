"""`cuarenta bench bots`: how long each bot level takes to choose a play, on one core.

The positions are fixed: the play decisions met in level-3 self-play games from seeds
``bench-bots/<profile>/<i>``, every ``stride``-th one kept, so early, middle and late plays
of both packets are all represented. Each level decides every position once, in this
process, with a fixed number of samples for the searching levels (what a tournament uses);
the time is the process's CPU time, i.e. one core, whatever else the machine is doing.

``--as-served``: the decisions are asked of the server's `BotRunner` instead (levels 4 and
up in its worker pool within their own budgets, `server.bots`), from the server's move lists,
by ``--tables`` tables at once (each asks its next decision when its last is answered), and
the time is wall time from the request to the answer: queueing for a worker included. The
pool is started before the clock runs (a server's is warm).

``--compare``: the searching levels side by side with a baseline tree (``--baseline PATH``,
else a ``git archive`` of `BASE_REF`, the tree before the fast core), in alternated rounds,
as ratios: CPU per decision at fixed samples, and at the server's budget (its search share
of the level's budget, on the process's CPU clock so the machine's load does not change it)
the deals a decision plays out, median and mean, and per CPU-second, and the p95 of its CPU
time (a search stops early once its choice is clear, or at its ``max_samples``: then the
deals it needs, not the budget, bound them). Each level decides every position once
untimed first: a server's workers are warm. The baseline runs this file's
`compare_figures` on its own engine, in a child.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import Game, Phase, Play
from engine.bots import Budget, choose, levels
from engine.rules import PROFILES
from engine.views import View
from server.bots import INLINE_MAX_LEVEL, SEARCH_SHARE, BotRunner, budget_of
from server.config import Settings

Position = tuple[View, tuple[Play, ...]]


def positions(profile: str, count: int, stride: int = 3, by_rank: bool = False) -> list[Position]:
    """Return ``count`` play decisions (view, legal plays) from seeded level-3 games.

    ``by_rank``: the plays as the server offers them (`Game.legal_actions`, R2)."""
    found: list[Position] = []
    seen = 0
    game_index = 0
    while len(found) < count:
        seed = f"bench-bots/{profile}/{game_index}"
        game, rng = Game.new(profile, seed=seed), random.Random(seed)
        game_index += 1
        while game.phase is not Phase.FINISHED and len(found) < count:
            acted = False
            for seat in game.to_act():
                view, legal = game.view(seat), game.legal_actions(seat)
                plays = tuple(a for a in legal if isinstance(a, Play))
                if by_rank:
                    offered = game.legal_actions(seat, by_rank=True)
                    plays = tuple(a for a in offered if isinstance(a, Play))
                if plays and game.turn == seat and not game.missed:
                    if seen % stride == 0:
                        found.append((view, plays))
                    seen += 1
                action = choose(3, view, legal, rng)
                if action is not None:
                    game.apply(action)
                    acted = True
                    break
            if not acted:
                game.apply(game.system_actions()[0])
    return found


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def measure(profile: str, count: int, samples: int, chosen: tuple[int, ...]) -> dict[str, object]:
    """Return, per level, the mean, p95 and max CPU milliseconds of a play decision."""
    decisions = positions(profile, count)
    figures: dict[str, object] = {}
    for level in chosen:
        times = []
        for index, (view, legal) in enumerate(decisions):
            rng = random.Random(index)
            start = time.process_time()
            choose(level, view, legal, rng, Budget(samples=samples))
            times.append(1000 * (time.process_time() - start))
        figures[str(level)] = {
            "decisions": len(times),
            "mean_ms": statistics.fmean(times),
            "p95_ms": _p95(times),
            "max_ms": max(times),
        }
    return {"profile": profile, "samples": samples, "positions": count, "levels": figures}


def measure_served(
    profile: str, count: int, chosen: tuple[int, ...], tables: int
) -> dict[str, object]:
    """Return, per level, the wall milliseconds from request to answer at the server's runner."""
    decisions = positions(profile, count, by_rank=True)
    settings = Settings()
    runner = BotRunner(settings.bot_workers, settings.bot_budget_s)

    async def ask(level: int, index: int) -> float:
        view, legal = decisions[index]
        start = time.perf_counter()
        await runner.decide(level, view, legal, index)
        return 1000 * (time.perf_counter() - start)

    async def table(level: int, share: range, times: list[float]) -> None:
        for index in share:
            times.append(await ask(level, index))

    async def measure_all() -> dict[str, object]:
        await asyncio.gather(*(ask(max(chosen), 0) for _ in range(runner.workers)))  # warm up
        figures: dict[str, object] = {}
        for level in chosen:
            times: list[float] = []
            shares = [range(first, len(decisions), tables) for first in range(tables)]
            await asyncio.gather(*(table(level, share, times) for share in shares))
            figures[str(level)] = {
                "decisions": len(times),
                "budget_ms": 1000 * budget_of(level, settings.bot_budget_s)
                if level > INLINE_MAX_LEVEL
                else None,
                "p50_ms": statistics.median(times),
                "p95_ms": _p95(times),
                "max_ms": max(times),
            }
        return figures

    try:
        figures = asyncio.run(measure_all())
    finally:
        runner.close()
    return {
        "profile": profile,
        "as_served": True,
        "tables": tables,
        "workers": runner.workers,
        "positions": count,
        "levels": figures,
    }


#: the function a search calls once per deal, by tree: this one's, then older trees'
_DEAL_CALLS = ("deal_hidden", "sample_hidden")
#: ``--compare``'s baseline unless ``--baseline``: the tree before the fast core (main then)
BASE_REF = "e991fdb"


def compare_figures(
    profile: str, count: int, samples: int, chosen: tuple[int, ...]
) -> dict[str, dict[str, float]]:
    """Return, per level, CPU ms per decision at ``samples``, and the deals played out per
    decision at the server's budget (`SEARCH_SHARE` of it, on the CPU clock)."""
    from engine.bots import search as searching

    decisions = positions(profile, count)
    dealt = [0]  # deals per decision (the first counts those at fixed samples)
    name = next(name for name in _DEAL_CALLS if name in vars(searching))
    sample = vars(searching)[name]

    def counted(*args: object) -> object:
        dealt[-1] += 1
        return sample(*args)

    vars(searching)[name] = counted
    figures: dict[str, dict[str, float]] = {}
    try:
        for level in chosen:
            for index, (view, legal) in enumerate(decisions):  # warm, as a server's workers are
                choose(level, view, legal, random.Random(index), Budget(samples=samples))
            start = time.process_time()
            for index, (view, legal) in enumerate(decisions):
                choose(level, view, legal, random.Random(index), Budget(samples=samples))
            cpu_ms = 1000 * (time.process_time() - start) / len(decisions)
            share = SEARCH_SHARE * budget_of(level, Settings().bot_budget_s)
            start = time.process_time()
            served: list[float] = []
            for index, (view, legal) in enumerate(decisions):
                dealt.append(0)
                began = time.process_time()
                budget = Budget(deadline=began + share, clock=time.process_time)
                choose(level, view, legal, random.Random(index), budget)
                served.append(1000 * (time.process_time() - began))
            deals = dealt[-len(decisions) :]
            figures[str(level)] = {
                "cpu_ms": cpu_ms,
                "deals_median": statistics.median(deals),
                "deals_mean": statistics.fmean(deals),
                "deals_per_cpu_s": sum(deals) / (time.process_time() - start),
                "served_p95_ms": _p95(served),
                "share_ms": 1000 * share,
            }
    finally:
        vars(searching)[name] = sample
    return figures


_CHILD = (
    "import importlib.util, json, sys; sys.path.insert(0, sys.argv[1])"
    "\nspec = importlib.util.spec_from_file_location('bench_bots_probe', sys.argv[2])"
    "\nprobe = importlib.util.module_from_spec(spec); spec.loader.exec_module(probe)"
    "\nlevels = tuple(int(level) for level in sys.argv[6].split(','))"
    "\nprint(json.dumps(probe.compare_figures(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),"
    " levels)))"
)


def compare(
    tree: Path, profile: str, count: int, samples: int, chosen: tuple[int, ...], rounds: int
) -> dict[str, dict[str, dict[str, float]]]:
    """Return ``compare_figures`` of the baseline ``tree`` (``base``) and of this tree
    (``now``), each averaged over ``rounds`` alternated runs."""
    levels_arg = ",".join(map(str, chosen))
    runs: dict[str, list[dict[str, dict[str, float]]]] = {"base": [], "now": []}
    for _ in range(rounds):
        argv = [sys.executable, "-c", _CHILD, str(tree), __file__, profile, str(count)]
        argv += [str(samples), levels_arg]
        child = subprocess.run(argv, check=False, capture_output=True, text=True)
        if child.returncode != 0:
            raise RuntimeError(f"the baseline's bench failed:\n{child.stderr}")
        runs["base"].append(json.loads(child.stdout))
        runs["now"].append(compare_figures(profile, count, samples, chosen))
    return {
        name: {
            level: {key: statistics.fmean(run[level][key] for run in done) for key in row}
            for level, row in done[0].items()
        }
        for name, done in runs.items()
    }


@contextmanager
def _base_tree(args: argparse.Namespace) -> Iterator[Path | None]:
    """Yield ``--baseline``, else `BASE_REF`'s files in a temporary folder (None: none)."""
    if args.no_baseline:
        yield None
        return
    if args.baseline is not None:
        yield args.baseline
        return
    with tempfile.TemporaryDirectory(prefix="cuarenta-base-") as folder:
        archive = subprocess.run(["git", "archive", BASE_REF], capture_output=True, check=False)
        if archive.returncode != 0:
            yield None
            return
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)


def _print_compare(args: argparse.Namespace, chosen: tuple[int, ...]) -> int:
    from engine.bridge import CORE_KIND  # not needed by a baseline's child process

    searching = tuple(level for level in chosen if level > INLINE_MAX_LEVEL)
    with _base_tree(args) as tree:
        if tree is None:
            print(f"bench bots --compare: no baseline (git archive {BASE_REF}; --baseline PATH)")
            return 2
        result = compare(tree, args.profile, args.positions, args.samples, searching, args.rounds)
    if args.json:
        print(json.dumps({"profile": args.profile, "core": CORE_KIND, **result}))
        return 0
    print(
        f"bots, base ({args.baseline or BASE_REF}) vs now ({CORE_KIND} core), {args.positions} "
        f"plays, {args.profile}, {args.rounds} alternated rounds; CPU at {args.samples} samples;"
        " at the server's budget (its search share, CPU clock): deals and CPU per decision"
    )
    for level in map(str, searching):
        base, now = result["base"][level], result["now"][level]
        deals = now["deals_median"] / max(base["deals_median"], 1)
        print(
            f"level {level}: CPU/decision {base['cpu_ms']:.1f} -> {now['cpu_ms']:.1f} ms "
            f"({now['cpu_ms'] / base['cpu_ms']:.2f}x) | served: median deals "
            f"{base['deals_median']:.0f} -> {now['deals_median']:.0f} ({deals:.2f}x), mean "
            f"{base['deals_mean']:.1f} -> {now['deals_mean']:.1f}, deals/CPU-s "
            f"{base['deals_per_cpu_s']:.0f} -> {now['deals_per_cpu_s']:.0f}, p95 "
            f"{base['served_p95_ms']:.0f} -> {now['served_p95_ms']:.0f} ms "
            f"(share {now['share_ms']:.0f} ms)"
        )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--profile", default="pagat-4p", choices=PROFILES)
    parser.add_argument("--positions", type=int, default=200, help="play decisions timed")
    parser.add_argument("--samples", type=int, default=16, help="samples for levels 4 and 5")
    parser.add_argument("--levels", default="", help="comma-separated levels (default: all)")
    parser.add_argument(
        "--as-served",
        action="store_true",
        help="ask the server's bot runner (its budgets and pool); wall time, queueing included",
    )
    parser.add_argument("--tables", type=int, default=2, help="as served: tables asking at once")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--compare", action="store_true", help="base vs now, as ratios")
    parser.add_argument(
        "--baseline", type=Path, help=f"--compare: the tree (default: git archive {BASE_REF})"
    )
    parser.add_argument("--no-baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=2, help="--compare: alternated rounds")


def run(args: argparse.Namespace) -> int:
    """Time every chosen level and print the figures."""
    chosen = tuple(int(text) for text in args.levels.split(",") if text) or levels()
    if args.compare:
        return _print_compare(args, chosen)
    if args.as_served:
        served = measure_served(args.profile, args.positions, chosen, args.tables)
        if args.json:
            print(json.dumps(served))
            return 0
        print(
            f"bot decision time as served, {served['positions']} plays, {args.profile}, "
            f"{args.tables} tables, {served['workers']} workers, wall time request to answer"
        )
        rows = served["levels"]
        assert isinstance(rows, dict)
        for level, row in rows.items():
            budget = f"  (budget {row['budget_ms']:.0f} ms)" if row["budget_ms"] else ""
            print(
                f"level {level}: p50 {row['p50_ms']:.2f} ms  p95 {row['p95_ms']:.2f} ms  "
                f"max {row['max_ms']:.2f} ms{budget}"
            )
        return 0
    result = measure(args.profile, args.positions, args.samples, chosen)
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"bot decision time, {result['positions']} plays, {args.profile}, "
        f"{args.samples} samples, CPU time on one core"
    )
    figures = result["levels"]
    assert isinstance(figures, dict)
    for level, row in figures.items():
        print(
            f"level {level}: mean {row['mean_ms']:.2f} ms  p95 {row['p95_ms']:.2f} ms  "
            f"max {row['max_ms']:.2f} ms"
        )
    return 0
