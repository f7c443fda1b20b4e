"""`cuarenta bench ceiling`: how far each bot level is from a player who sees every card.

The **clairvoyant player** is a measuring stick, never a level offered to players: it sees
every hidden hand and the stock's order, and for each legal play it plays the rest of the
packet out with level 3 in every seat on the true deal, valuing where the packet leaves the
game as level 5 values a playout (`deep.win_value`: the chance of winning, in points, plus a
little of the score margin). What it wins over a level is the value of the hidden cards to
a player with level 3's playouts: the **headroom** a better guess of those cards could
still take.

Duplicate play as in `bench.tournament` (its seed lists and pair seeds): pair ``i`` is one
deal played twice with the partnerships swapped, the clairvoyant in one team and the level
in the other. Searching levels get a fixed number of samples, never a deadline, so the
figures do not depend on the machine's load. Reported per level: the clairvoyant's mean
point margin per hand over the level (both games' margins over both games' hands) with its
95% interval over pairs, and its game win rate.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from multiprocessing import Pool

from bench.tournament import MAX_HANDS, GameResult, PairResult, pair_seed
from bench.tournament import _interval as interval
from engine import Game, Phase, Play
from engine.actions import Action
from engine.bots import Budget, choose, levels
from engine.bots.counting import own_plays, position_of, ranked_plays
from engine.bots.deep import win_value
from engine.bots.playout import play_out
from engine.bots.routine import routine

#: the seed list the ceiling is measured on: no bot was tuned on its deals.
DEFAULT_SEED_LIST = "ceiling-1"


def clairvoyant(game: Game, seat: int) -> Action | None:
    """Return the clairvoyant's action for ``seat``: the play whose level-3 playout to the
    end of the packet, on the true deal, level 5 values most. Ties go to the play level 3
    ranks higher: the cards alone cannot tell them apart, and a tie broken by the legal list's
    order would measure the list, not the hidden cards (it played worse than level 3 there)."""
    view = game.view(seat)
    decided, action = routine(view, game.legal_actions(seat))
    if decided:
        return action
    plays = ranked_by_level_3(game, seat)
    if len(plays) == 1:
        return plays[0]
    team = seat & 1
    best, best_value = plays[0], -float("inf")
    for play in plays:
        value = playout_value(game, play, team)
        if value > best_value:
            best, best_value = play, value
    return best


def ranked_by_level_3(game: Game, seat: int) -> list[Play]:
    """Return ``seat``'s plays (one per play up to suits, R2), best first as level 3 ranks them."""
    view = game.view(seat)
    plays = own_plays(view, game.legal_actions(seat, by_rank=True))
    return [play for _, play in ranked_plays(position_of(view), plays)]


def playout_value(game: Game, play: Play, team: int) -> float:
    """Return level 5's value for ``team`` of ``play`` then level 3 to the packet's end, on the
    true deal."""
    trial = game.copy()
    trial.apply(play)
    play_out(trial, whole_hand=False)
    return win_value(trial, team)


def _act(game: Game, level: int, seer_team: int, rngs: list[random.Random], samples: int) -> bool:
    """Let the first seat that wants to act do so; return whether anyone acted."""
    for seat in game.to_act():
        if seat & 1 == seer_team:
            action = clairvoyant(game, seat)
        else:
            legal = game.legal_actions(seat)
            action = choose(level, game.view(seat), legal, rngs[seat], Budget(samples=samples))
        if action is not None:
            game.apply(action)
            return True
    return False


def play_game(level: int, index: int, swapped: bool, seed_list: str, samples: int) -> GameResult:
    """Play game ``swapped`` of pair ``index``: the clairvoyant holds team 0 unless swapped."""
    seed = pair_seed(seed_list, "pagat-4p", index)
    game = Game.new("pagat-4p", seed=seed)
    seer = 1 if swapped else 0
    rngs = [random.Random(f"{seed}/bot/{seat}") for seat in range(game.rules.seats)]
    while game.phase is not Phase.FINISHED and game.hand_number < MAX_HANDS:
        if not _act(game, level, seer, rngs, samples):
            game.apply(game.system_actions()[0])  # R10: nobody claims: the window closes
    scores, winner = game.scores, game.winner
    outcome = 0.5 if winner is None else float(winner == seer)
    return GameResult(scores[seer] - scores[1 - seer], game.hand_number + 1, outcome)


def play_pair(args: tuple[int, int, str, int]) -> PairResult:
    """Play both games of pair ``index`` against ``level`` (top-level: a pool pickles it)."""
    level, index, seed_list, samples = args
    one = play_game(level, index, False, seed_list, samples)
    return PairResult(index, (one, play_game(level, index, True, seed_list, samples)))


def headroom(level: int, pairs: list[PairResult]) -> dict[str, object]:
    """Return one level's figures: the clairvoyant's margin per hand and win rate over it."""
    margin = interval([pair.margin_per_hand for pair in pairs])
    wins = interval([pair.win_rate for pair in pairs])
    return {
        "level": level,
        "pairs": len(pairs),
        "hands": sum(game.hands for pair in pairs for game in pair.games),
        "headroom_per_hand": {"mean": margin[0], "low": margin[1], "high": margin[2]},
        "win_rate": {"mean": wins[0], "low": wins[1], "high": wins[2]},
    }


def measure(level: int, args: argparse.Namespace) -> dict[str, object]:
    """Play ``args.pairs`` pairs against ``level`` on ``args.jobs`` processes; with
    ``args.progress`` each finished pair is a JSON line on stderr (a stopped run's record)."""
    work = [(level, index, args.seed_list, args.samples) for index in range(args.pairs)]
    start = time.perf_counter()
    pairs: list[PairResult] = []
    with Pool(max(1, args.jobs)) as pool:
        for pair in pool.imap_unordered(play_pair, work, chunksize=1):
            pairs.append(pair)
            if args.progress:
                margins = [[game.margin, game.hands] for game in pair.games]
                line = {"level": level, "index": pair.index, "games": margins}
                print(json.dumps(line), file=sys.stderr, flush=True)
    pairs.sort(key=lambda pair: pair.index)
    return {**headroom(level, pairs), "wall_s": time.perf_counter() - start}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--pairs", type=int, default=20, help="duplicate pairs per level")
    parser.add_argument(
        "--levels", default="", help="comma-separated levels (default: every level)"
    )
    parser.add_argument("--seed-list", default=DEFAULT_SEED_LIST, metavar="NAME")
    parser.add_argument(
        "--samples", type=int, default=24, help="samples per decision for searching levels"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--progress", action="store_true", help="print each finished pair on stderr"
    )


def run(args: argparse.Namespace) -> int:
    """Measure the headroom over each chosen level and print it; 2 for an unknown level."""
    known = levels()
    try:
        chosen = [int(text) for text in args.levels.split(",")] if args.levels else list(known)
    except ValueError:
        chosen = [-1]
    if any(level not in known for level in chosen):
        print(f"cuarenta bench ceiling: levels must be among {list(known)}")
        return 2
    results = [measure(level, args) for level in chosen]
    if args.json:
        print(json.dumps({"seed_list": args.seed_list, "samples": args.samples, "levels": results}))
        return 0
    print(f"clairvoyant vs each level  seeds {args.seed_list}  samples {args.samples}")
    for result in results:
        margin, wins = result["headroom_per_hand"], result["win_rate"]
        assert isinstance(margin, dict)
        assert isinstance(wins, dict)
        print(
            f"level {result['level']}: headroom {margin['mean']:+.2f} points a hand "
            f"(95% CI {margin['low']:+.2f} .. {margin['high']:+.2f}), clairvoyant wins "
            f"{100 * wins['mean']:.0f}%, {result['pairs']} pairs, {result['wall_s']:.0f} s"
        )
    return 0
