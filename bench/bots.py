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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import time

from engine import Game, Phase, Play
from engine.bots import Budget, choose, levels
from engine.rules import PROFILES
from engine.views import View
from server.bots import INLINE_MAX_LEVEL, BotRunner, budget_of
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


def run(args: argparse.Namespace) -> int:
    """Time every chosen level and print the figures."""
    chosen = tuple(int(text) for text in args.levels.split(",") if text) or levels()
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
