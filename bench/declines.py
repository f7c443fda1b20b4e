"""`cuarenta bench declines`: how often levels 4 and up decline a caída or a limpia (R9).

A human partner reads a declined caída or limpia as a blunder, so a search should decline
one only when it is clearly better to. The positions are fixed: the play decisions of
level-3 self-play games from seeds ``bench-declines/<profile>/<i>`` at which some legal play
scores a caída or a limpia. Each level decides each position once (seeded), and the bench
counts the positions where it plays no scoring play, and among them those where level 3
itself would have scored (the search overrode level 3's caída or limpia).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Iterator

from engine import Game, Phase, Play
from engine.actions import Action
from engine.bots import Budget, choose
from engine.bots.greedy import capture_points
from engine.rules import PROFILES
from engine.views import View

Decision = tuple[View, tuple[Play, ...]]


def scores(view: View, play: Play) -> bool:
    """Tell whether ``play`` is a caída or a limpia that scores (R9)."""
    return bool(play.take) and capture_points(view, play) > 0


def level3_decisions(
    profile: str, prefix: str
) -> Iterator[tuple[Game, int, View, tuple[Action, ...]]]:
    """Yield every decision of level-3 self-play games seeded ``<prefix>/0``, ``/1`` … in turn:
    the game as it stands (copy it to keep it), the seat, its view and its legal actions."""
    for index in itertools.count():
        seed = f"{prefix}/{index}"
        game, rng = Game.new(profile, seed=seed), random.Random(seed)
        while game.phase is not Phase.FINISHED:
            for seat in game.to_act():
                view, legal = game.view(seat), game.legal_actions(seat)
                yield game, seat, view, legal
                action = choose(3, view, legal, rng)
                if action is not None:
                    game.apply(action)
                    break
            else:
                game.apply(game.system_actions()[0])


def scoring_positions(profile: str, count: int) -> list[Decision]:
    """Return ``count`` play decisions of seeded level-3 games where a play scores (R9)."""
    found: list[Decision] = []
    for game, seat, view, legal in level3_decisions(profile, f"bench-declines/{profile}"):
        if len(found) == count:
            break
        plays = tuple(a for a in legal if isinstance(a, Play))
        if plays and game.turn == seat and any(scores(view, p) for p in plays):
            found.append((view, plays))
    return found


def count_declines(
    profile: str, count: int, levels: tuple[int, ...], budget: Budget | float
) -> dict[str, object]:
    """Return, per level, the positions where it declined a scoring play (and level 3 did not).

    ``budget``: a `Budget` (fixed samples), or seconds per decision (a deadline, as served).
    """
    decisions = scoring_positions(profile, count)
    third = [choose(3, view, plays, random.Random(i)) for i, (view, plays) in enumerate(decisions)]
    result: dict[str, object] = {}
    for level in levels:
        declined = overrode = 0
        for index, (view, plays) in enumerate(decisions):
            spend = (
                budget
                if isinstance(budget, Budget)
                else Budget(deadline=time.monotonic() + budget, clock=time.monotonic)
            )
            action = choose(level, view, plays, random.Random(index), spend)
            if not (isinstance(action, Play) and scores(view, action)):
                declined += 1
                chosen3 = third[index]
                if isinstance(chosen3, Play) and scores(view, chosen3):
                    overrode += 1
        result[str(level)] = {"declined": declined, "over_level_3": overrode}
    return {"profile": profile, "positions": len(decisions), "levels": result}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--profile", default="pagat-4p", choices=PROFILES)
    parser.add_argument("--positions", type=int, default=300, help="scoring positions")
    parser.add_argument("--samples", type=int, default=16, help="samples per decision")
    parser.add_argument(
        "--deadline", type=float, default=0.0, help="seconds per decision instead of samples"
    )
    parser.add_argument("--levels", default="3,4,5", help="comma-separated levels")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Count the declines and print them."""
    chosen = tuple(int(text) for text in args.levels.split(",") if text)
    budget: Budget | float = args.deadline or Budget(samples=args.samples)
    result = count_declines(args.profile, args.positions, chosen, budget)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"declined caídas and limpias, {result['positions']} positions, {args.profile}")
    levels = result["levels"]
    assert isinstance(levels, dict)
    for level, row in levels.items():
        took = row["over_level_3"]
        print(f"level {level}: declined {row['declined']}, of which level 3 took {took}")
    return 0
