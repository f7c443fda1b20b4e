"""`cuarenta bench engine`: complete random games, plays and legal-action lists per second.

One process, one core. A random game starts with `Game.new` and plays uniformly random legal
actions (every listed capture its own choice; the claim window closed at once; no referee)
until someone wins: the figure a bot's playouts would see. Legal-action generation is also
timed alone, on positions met in those games, with the per-position cache emptied each time.
``--json`` prints one object per profile per line.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from typing import Any

from engine import CloseClaims, Game, Phase

PROFILES = ("pagat-4p", "heads-up")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the benchmark's options."""
    parser.add_argument("--profile", choices=("pagat-4p", "heads-up", "libre-2p"), action="append")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per profile (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def play_random_games(profile: str, seconds: float, seed: int) -> dict[str, Any]:
    """Play random games for about ``seconds``; return the counts and the time taken."""
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


def time_legal_actions(sample: list[Game], rounds: int = 3) -> float:
    """Return legal-action generations per second over the sampled positions.

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


def measure(profile: str, seconds: float, seed: int) -> dict[str, Any]:
    """Return the figures for one profile."""
    counts = play_random_games(profile, seconds, seed)
    elapsed = counts["seconds"]
    return {
        "bench": "engine",
        "profile": profile,
        "games": counts["games"],
        "plays": counts["plays"],
        "seconds": round(elapsed, 3),
        "cpu_seconds": round(counts["cpu_seconds"], 3),
        "games_per_s": round(counts["games"] / elapsed, 1),
        "games_per_cpu_s": round(counts["games"] / counts["cpu_seconds"], 1),
        "plays_per_s": round(counts["plays"] / elapsed),
        "plays_per_game": round(counts["plays"] / max(counts["games"], 1), 1),
        "legal_per_s": round(time_legal_actions(counts["sample"])),
    }


def run(args: argparse.Namespace) -> int:
    """Measure each profile and print the figures."""
    for profile in args.profile or PROFILES:
        figures = measure(profile, args.seconds, args.seed)
        if args.json:
            print(json.dumps(figures), flush=True)
        else:
            print(
                f"engine {profile}: {figures['games_per_s']} games/s, "
                f"{figures['plays_per_s']} plays/s, {figures['legal_per_s']} legal lists/s "
                f"({figures['games']} random games in {figures['seconds']} s on one core, "
                f"{figures['cpu_seconds']} s CPU)",
                flush=True,
            )
    return 0
