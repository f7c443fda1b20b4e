"""`cuarenta bench roots`: how good the searching levels' choices are, against the true deal.

The positions are the play decisions (two or more plays, every second one kept) of level-3
self-play games from seeds ``bench-roots/<profile>/<i>``; each position keeps the game, so
its hidden cards are known. Each level chooses once (seeded, a fixed number of samples, the
server's move lists); its choice and level 3's are then played out on the true deal, level 3
in every seat to the packet's end, and valued as level 5 values a playout (`deep.win_value`:
40 points times the chance of winning the game, plus a quarter of the point margin). The
figure is the mean, over positions, of the chosen play's value less level 3's choice's: what
the level's overrides of level 3 gain where they differ, with a 95% interval. The others
in these games are level 3, so the deals behind their plays are distributed as the
searches' models assume; the playout after the root is level 3's, so this measures the root
decision, not a better continuation. ``3f`` is level 3 ranked with the follow-up
(`engine.bots.partner`), no search.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics

from bench.declines import level3_decisions
from engine import Game, Play
from engine.bots import Budget, choose
from engine.bots.counting import position_of, ranked_plays, without_gifts
from engine.bots.deep import win_value
from engine.bots.partner import partner_ranked
from engine.bots.playout import play_out
from engine.rules import PROFILES
from engine.views import View

Root = tuple[Game, View, tuple[Play, ...]]


def roots(profile: str, count: int) -> list[Root]:
    """Return ``count`` play decisions of seeded level-3 games, each with its game."""
    found: list[Root] = []
    kept = 0
    for game, seat, view, _ in level3_decisions(profile, f"bench-roots/{profile}"):
        if len(found) == count:
            break
        offered = game.legal_actions(seat, by_rank=True)
        plays = tuple(a for a in offered if isinstance(a, Play))
        if len(plays) > 1 and game.turn == seat and not game.missed:
            if kept % 2 == 0:
                found.append((game.copy(), view, plays))
            kept += 1
    return found


def true_value(game: Game, play: Play, team: int) -> float:
    """Return ``play``'s playout on the true deal, valued as level 5 values one."""
    copy = game.copy()
    copy.apply(play)
    play_out(copy, False)
    return win_value(copy, team)


def _choice(level: str, view: View, plays: tuple[Play, ...], seed: int, samples: int) -> Play:
    if level == "3f":
        pos = position_of(view)
        return partner_ranked(view, without_gifts(pos, list(plays)))[0][1]
    action = choose(int(level), view, plays, random.Random(seed), Budget(samples=samples))
    assert isinstance(action, Play)
    return action


def measure(profile: str, count: int, samples: int, chosen: list[str]) -> dict[str, object]:
    """Return, per level, its choices' mean gain over level 3's on the true deals."""
    found = roots(profile, count)
    gains: dict[str, list[float]] = {level: [] for level in chosen}
    for index, (game, view, plays) in enumerate(found):
        team = view.viewer & 1  # type: ignore[operator]
        pos = position_of(view)
        third = ranked_plays(pos, without_gifts(pos, list(plays)))[0][1]
        values: dict[Play, float] = {third: true_value(game, third, team)}
        for level in chosen:
            play = _choice(level, view, plays, index, samples)
            if play not in values:
                values[play] = true_value(game, play, team)
            gains[level].append(values[play] - values[third])
    figures: dict[str, object] = {}
    for level, found_gains in gains.items():
        mean = statistics.fmean(found_gains)
        half = 1.96 * statistics.stdev(found_gains) / math.sqrt(len(found_gains))
        figures[level] = {
            "gain": mean,
            "low": mean - half,
            "high": mean + half,
            "changed": sum(1 for gain in found_gains if gain != 0.0),
        }
    return {"profile": profile, "positions": len(found), "samples": samples, "levels": figures}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--profile", default="pagat-4p", choices=PROFILES)
    parser.add_argument("--positions", type=int, default=400, help="play decisions")
    parser.add_argument("--samples", type=int, default=12, help="budget samples (5, 6: x4 deals)")
    parser.add_argument("--levels", default="3f,4,5,6", help="comma-separated: 3f, 4, 5, 6")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Measure and print the figures."""
    chosen = [text for text in args.levels.split(",") if text]
    result = measure(args.profile, args.positions, args.samples, chosen)
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"root choices against the true deal, {result['positions']} positions, "
        f"{args.profile}, {args.samples} samples: gain over level 3 (win-value points)"
    )
    levels = result["levels"]
    assert isinstance(levels, dict)
    for level, row in levels.items():
        print(
            f"level {level}: {row['gain']:+.3f} (95% CI {row['low']:+.3f} .. {row['high']:+.3f}), "
            f"{row['changed']} choices differ in value"
        )
    return 0
