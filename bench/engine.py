"""`cuarenta bench engine`: random games per CPU-second, side by side, as ratios.

One process, one core. A random game starts from a seed and plays uniformly random legal
actions (every listed capture its own choice; the claim window closed at once; no referee)
until someone wins: the figure a bot's playouts would see. Four engines play them, in
alternated rounds so a change in the machine's load hits all alike:

- ``main``: the tree of a baseline (``--baseline PATH``, else ``git archive main`` into a
  temporary folder; ``--no-baseline`` skips it), its own `bench.engine` in a child process;
- ``game``: this tree's `engine.Game` (the readable reference);
- ``core``: the fast core (`engine.core`) as this process runs it (`engine.bridge.CORE_KIND`);
- ``pure``: the fast core's plain-Python source, even where a compiled build exists.

Legal-action generation of `Game` is also timed alone, on positions met in those games.
``--json`` prints one object per profile per line.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import CloseClaims, Game, Phase
from engine.bridge import CORE_KIND, pure_core
from engine.corestate import CLAIMS, CLOSE_CLAIMS, FINISHED, other_move

PROFILES = ("pagat-4p", "heads-up")
#: the child process that plays a baseline tree's random games (its own `bench.engine`)
_BASELINE = (
    "import json, sys; sys.path.insert(0, sys.argv[1]); from bench.engine import play_random_games"
    "\nr = play_random_games(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))"
    "\nprint(json.dumps({'games': r['games'], 'plays': r['plays'], 'cpu': r['cpu_seconds']}))"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the benchmark's options."""
    parser.add_argument("--profile", choices=("pagat-4p", "heads-up", "libre-2p"), action="append")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per engine (3)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="the tree to compare with (default: main)")
    parser.add_argument("--no-baseline", action="store_true", help="compare with no baseline")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def play_random_games(profile: str, seconds: float, seed: int) -> dict[str, Any]:
    """Play random games with `Game` for about ``seconds``; return the counts and times."""
    rng = random.Random(seed)
    pick = rng.random
    close = CloseClaims()
    games = plays = 0
    sample: list[Game] = []
    start = time.perf_counter()
    cpu = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game.new(profile, seed=rng.getrandbits(32))
        while game.phase is not Phase.FINISHED:
            legal = game.legal_actions()
            if game.phase is Phase.CLAIMS:
                game.apply(close)
                continue
            game.apply(legal[int(pick() * len(legal))])
            plays += 1
            if plays % 97 == 0 and len(sample) < 2000:
                sample.append(game.copy())
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "plays": plays,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu,
        "sample": sample,
    }


def play_core_games(module: ModuleType, profile: str, seconds: float, seed: int) -> dict[str, Any]:
    """The same random games on a fast core ``module`` (the same seeds: the same games)."""
    rng = random.Random(seed)
    pick = rng.random
    close = other_move(CLOSE_CLAIMS)
    new = module.Core.new
    games = plays = 0
    start = time.perf_counter()
    cpu = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = new(profile, None, rng.getrandbits(32))
        while game.phase != FINISHED:
            legal = game.legal()
            if game.phase == CLAIMS:
                game.apply(close)
                continue
            game.apply(legal[int(pick() * len(legal))])
            plays += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "plays": plays,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu,
    }


def play_baseline_games(tree: Path, profile: str, seconds: float, seed: int) -> dict[str, Any]:
    """The same random games on the baseline tree's `Game`, in a child process."""
    argv = [sys.executable, "-c", _BASELINE, str(tree), profile, str(seconds), str(seed)]
    out = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)
    return {"games": out["games"], "plays": out["plays"], "cpu_seconds": out["cpu"]}


@contextlib.contextmanager
def baseline_tree(args: argparse.Namespace) -> Iterator[Path | None]:
    """Yield the baseline tree: ``--baseline``, else main's files in a temporary folder."""
    if args.no_baseline:
        yield None
    elif args.baseline is not None:
        yield args.baseline
    else:
        with tempfile.TemporaryDirectory(prefix="cuarenta-main-") as folder:
            archive = subprocess.run(["git", "archive", "main"], capture_output=True, check=False)
            if archive.returncode != 0:
                yield None
                return
            subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
            yield Path(folder)


def time_legal_actions(sample: list[Game], rounds: int = 3) -> float:
    """Return `Game` legal-action generations per second over the sampled positions.

    Each generation runs on a fresh copy, so nothing listed before is reused.
    """
    copies = [game.copy() for _ in range(rounds) for game in sample if game.phase is Phase.PLAY]
    if not copies:
        return 0.0
    gc.collect()
    gc.disable()  # the copies made just above would trigger a full collection mid-timing
    try:
        start = time.perf_counter()
        for game in copies:
            game.legal_actions()
        return len(copies) / (time.perf_counter() - start)
    finally:
        gc.enable()


def measure(
    profile: str, seconds: float, seed: int, tree: Path | None = None, rounds: int = 1
) -> dict[str, Any]:
    """Return the figures for one profile: each engine's games per CPU-second, and ratios."""
    share = seconds / rounds
    totals: dict[str, list[float]] = {}
    pure = pure_core()
    import engine.core as fast

    sample: list[Game] = []
    plays = wall = 0.0
    for index in range(rounds):
        runs: dict[str, dict[str, Any]] = {}
        if tree is not None:
            runs["main"] = play_baseline_games(tree, profile, share, seed + index)
        runs["game"] = play_random_games(profile, share, seed + index)
        runs["core"] = play_core_games(fast, profile, share, seed + index)
        runs["pure"] = play_core_games(pure, profile, share, seed + index)
        sample += runs["game"].pop("sample")
        plays += runs["game"]["plays"]
        wall += runs["game"]["seconds"]
        for name, run in runs.items():
            total = totals.setdefault(name, [0.0, 0.0])
            total[0] += run["games"]
            total[1] += run["cpu_seconds"]
    rates = {name: games / max(cpu, 1e-9) for name, (games, cpu) in totals.items()}
    base = rates.get("main", rates["game"])
    games = int(totals["game"][0])
    return {
        "bench": "engine",
        "profile": profile,
        "core": CORE_KIND,
        "games": games,
        "plays": int(plays),
        "seconds": round(wall, 3),
        "games_per_s": round(games / wall, 1),
        "plays_per_s": round(plays / wall),
        "legal_per_s": round(time_legal_actions(sample)),
        **{f"{name}_games_per_cpu_s": round(rate, 1) for name, rate in rates.items()},
        **{f"{name}_vs_main": round(rate / base, 2) for name, rate in rates.items()},
        "baseline": "main" if "main" in rates else "game",
    }


def run(args: argparse.Namespace) -> int:
    """Measure each profile and print the figures."""
    with baseline_tree(args) as tree:
        for profile in args.profile or PROFILES:
            figures = measure(profile, args.seconds, args.seed, tree, max(1, args.rounds))
            if args.json:
                print(json.dumps(figures), flush=True)
                continue
            shown = "  ".join(
                f"{name} {figures[name + '_games_per_cpu_s']} ({figures[name + '_vs_main']}x)"
                for name in ("main", "game", "core", "pure")
                if name + "_games_per_cpu_s" in figures
            )
            print(
                f"engine {profile}: random games per CPU-second, x {figures['baseline']}: "
                f"{shown}  [core: {figures['core']}; {args.rounds} alternated rounds of "
                f"{args.seconds / max(1, args.rounds):.1f} s each]",
                flush=True,
            )
    return 0
