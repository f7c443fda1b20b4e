"""`cuarenta tournament A B --pairs N --profile P`: duplicate play between two bot levels.

Duplicate play removes the luck of the deal: pair ``i`` is one game dealt from a fixed seed
(the diamond draw and every pack come from it, R3/R4), played twice — once with level A in
the even seats (team 0), once with the partnerships swapped — so both levels hold the same
cards in the same seats in turn. The seeds come from a named, versioned seed list
(`SEED_LISTS`): the same command always plays the same games, on any machine.

Each seat's bot gets its own generator seeded from (pair, seat), the same in both games of a
pair, so a level against itself plays the two games identically and its margin is exactly 0.
Searching levels get a fixed number of samples (``--samples``), never a deadline, so results
do not depend on the machine's speed or load. Interrupted (Ctrl-C), it still reports the
pairs played so far, marked ``interrupted``.

``--seed-list NAME``: any name gives its own deals (``v1`` is the list the first tournaments
used), so a fresh name measures on games no earlier figure saw. ``--as-served``
plays as the server does: every decision is asked of the server's `BotRunner` (levels 4 and
up in its worker pool, each level within its own budget from the request, `server.bots`),
from the server's move list (``legal_actions(by_rank=True)``), and the decision times are
wall-clock, request to answer. Such figures depend on the machine and its load; pairs are
played one at a time in this process (the pool is the server's).

Long runs on a shared machine: ``--log FILE`` appends every finished pair as one JSON line
(its match, index, games and decision times), and a run with the same match and log skips
the pairs already there and counts them in its figures, so a stopped run resumes where it
stopped and a killed one loses at most the pair in progress. ``--first N`` starts at pair N
of the seed list (to split a range between runs). ``--progress K`` prints the running
figures (the ``--json`` object) as one JSON line on stderr every K pairs.

Reported: pairs played, mean point margin per hand of A over B (both games' final score
margins over both games' hands), A's game win rate (a heads-up draw counts half), each with
a 95% interval over pairs, and the mean and p95 decision time of every level's plays, in
CPU time of the deciding process (one core; unaffected by other load on a shared machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import Pool

from engine import Game, Phase, Play, resolve_rules
from engine.actions import Action
from engine.bots import Budget, choose, levels, stand_ins
from engine.rules import PROFILES
from engine.views import View, view_of
from server.bots import BotRunner
from server.config import Settings

#: seed list -> how pair ``i``'s seed is derived (never change a published entry); any other
#: name gives its own list by `SEED_FORMAT`.
SEED_LISTS: dict[str, str] = {"v1": "cuarenta-duplicate/v1/{profile}/{index}"}
SEED_FORMAT = "cuarenta-duplicate/{name}/{profile}/{index}"
DEFAULT_SEED_LIST = "v1"
#: a game that has not ended after this many hands is stopped (it never happens in practice).
MAX_HANDS = 60


@dataclass(frozen=True, slots=True)
class Match:
    """What every game of a tournament shares."""

    level_a: int
    level_b: int
    profile: str
    options: tuple[tuple[str, object], ...]
    samples: int
    seed_list: str
    as_served: bool = False


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game from level A's side: the score margin, the hands played, the result."""

    margin: int
    hands: int
    outcome: float  # 1 A won, 0 B won, 0.5 a draw (R14 heads-up)


@dataclass(slots=True)
class PairResult:
    """Both games of a pair, and the decision times (seconds) of each level's plays."""

    index: int
    games: tuple[GameResult, GameResult]
    times: dict[int, list[float]] = field(default_factory=dict)

    @property
    def margin_per_hand(self) -> float:
        """A's score margin over both games divided by the hands of both games."""
        hands = sum(game.hands for game in self.games)
        return sum(game.margin for game in self.games) / max(1, hands)

    @property
    def win_rate(self) -> float:
        """A's share of the pair's two games."""
        return sum(game.outcome for game in self.games) / 2


def pair_seed(seed_list: str, profile: str, index: int) -> str:
    """Return the seed of pair ``index`` in a seed list (a string: `random` hashes it stably)."""
    form = SEED_LISTS.get(seed_list, SEED_FORMAT)
    return form.format(name=seed_list, profile=profile, index=index)


class _Served:
    """The server's bot runner, in this process, and an event loop to ask it from."""

    runner: BotRunner | None = None
    loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def decide(cls, level: int, view: View, legal: tuple[Action, ...], seed: int) -> Action | None:
        if cls.runner is None or cls.loop is None:
            settings = Settings()
            cls.runner = BotRunner(settings.bot_workers, settings.bot_budget_s)
            cls.loop = asyncio.new_event_loop()
        return cls.loop.run_until_complete(cls.runner.decide(level, view, legal, seed))

    @classmethod
    def close(cls) -> None:
        """Stop the pool (a stopped run must not wait for its workers' last decisions)."""
        if cls.runner is not None:
            cls.runner.close()
            cls.runner = None


def _served_decision(
    level: int, game: Game, seat: int, rng: random.Random
) -> tuple[Action | None, float]:
    """Ask the server's runner, as a table would; return its answer and the wall seconds."""
    view, legal = view_of(game, seat), game.legal_actions(seat, by_rank=True)
    start = time.perf_counter()
    action = _Served.decide(level, view, legal, rng.randrange(2**32))
    return action, time.perf_counter() - start


def _act(
    game: Game,
    seats_level: dict[int, int],
    rngs: list[random.Random],
    match: Match,
    times: dict[int, list[float]],
) -> bool:
    """Let the first seat that wants to act do so; return whether anyone acted."""
    budget = Budget(samples=match.samples)
    for seat in game.to_act():
        level = seats_level[seat]
        action: Action | None
        if match.as_served:
            action, elapsed = _served_decision(level, game, seat, rngs[seat])
        else:
            view = game.view(seat)
            legal = game.legal_actions(seat)
            start = time.process_time()
            action = choose(level, view, legal, rngs[seat], budget)
            elapsed = time.process_time() - start
        if action is None:
            continue
        if isinstance(action, Play):
            times.setdefault(level, []).append(elapsed)
        game.apply(action)
        return True
    return False


def play_game(match: Match, index: int, swapped: bool, times: dict[int, list[float]]) -> GameResult:
    """Play game ``swapped`` of pair ``index``; level A holds team 0 unless swapped."""
    seed = pair_seed(match.seed_list, match.profile, index)
    game = Game.new(match.profile, dict(match.options), seed=seed)
    seats = game.rules.seats
    a_team = 1 if swapped else 0
    seats_level = {s: match.level_a if s & 1 == a_team else match.level_b for s in range(seats)}
    rngs = [random.Random(f"{seed}/bot/{seat}") for seat in range(seats)]
    while game.phase is not Phase.FINISHED and game.hand_number < MAX_HANDS:
        if not _act(game, seats_level, rngs, match, times):
            system = game.system_actions()  # R10: nobody claims any more: the window closes
            assert system, f"no one can act in {game}"
            game.apply(system[0])
    scores = game.scores
    margin = scores[a_team] - scores[1 - a_team]
    winner = game.winner
    outcome = 0.5 if winner == "draw" or winner is None else float(winner == a_team)
    return GameResult(margin, game.hand_number + 1, outcome)


def play_pair(args: tuple[Match, int]) -> PairResult:
    """Play both games of pair ``index`` (top-level, so a process pool can pickle it)."""
    match, index = args
    times: dict[int, list[float]] = {}
    games = (play_game(match, index, False, times), play_game(match, index, True, times))
    return PairResult(index, games, times)


def _interval(values: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def summarize(match: Match, pairs: list[PairResult], seconds: float) -> dict[str, object]:
    """Return the tournament's figures (what `--json` prints)."""
    margin = _interval([pair.margin_per_hand for pair in pairs])
    wins = _interval([pair.win_rate for pair in pairs])
    times: dict[int, list[float]] = {}
    for pair in pairs:
        for level, values in pair.times.items():
            times.setdefault(level, []).extend(values)
    return {
        **_match_key(match),
        "pairs": len(pairs),
        "games": 2 * len(pairs),
        "hands": sum(game.hands for pair in pairs for game in pair.games),
        "margin_per_hand": {"mean": margin[0], "low": margin[1], "high": margin[2]},
        "win_rate": {"mean": wins[0], "low": wins[1], "high": wins[2]},
        "decision_ms": {
            str(level): {
                "decisions": len(values),
                "mean": 1000 * statistics.fmean(values),
                "p95": 1000 * _p95(values),
            }
            for level, values in sorted(times.items())
        },
        "wall_s": seconds,
    }


def run_pairs(match: Match, indices: list[int], jobs: int) -> Iterator[PairResult]:
    """Yield the results of pairs ``indices``, played on ``jobs`` processes (as they finish)."""
    work = [(match, index) for index in indices]
    if jobs <= 1:
        yield from map(play_pair, work)
        return
    with Pool(jobs) as pool:
        yield from pool.imap_unordered(play_pair, work, chunksize=1)


def _match_key(match: Match) -> dict[str, object]:
    key: dict[str, object] = {
        "a": match.level_a,
        "b": match.level_b,
        "profile": match.profile,
        "options": dict(match.options),
        "samples": match.samples,
        "seed_list": match.seed_list,
    }
    if match.as_served:  # only then: the logs of earlier runs keep their key
        key["as_served"] = True
    return key


def pair_line(match: Match, pair: PairResult) -> str:
    """Return one pair as a JSON line of a ``--log`` file."""
    return json.dumps(
        {
            "match": _match_key(match),
            "index": pair.index,
            "games": [[game.margin, game.hands, game.outcome] for game in pair.games],
            "times": {str(level): values for level, values in pair.times.items()},
        }
    )


def logged_pairs(match: Match, path: str) -> dict[int, PairResult]:
    """Return the pairs of ``match`` recorded in log ``path`` (none if it does not exist yet).

    Lines of other matches are ignored, and so is a last line cut short by a kill (the log
    then gets a line break, so the next pair appended starts a line of its own).
    """
    found: dict[int, PairResult] = {}
    if not os.path.exists(path):
        return found
    key = _match_key(match)
    with open(path, encoding="utf-8") as log:
        text = log.read()
    if text and not text.endswith("\n"):  # cut short: the next pair starts on a line of its own
        with open(path, "a", encoding="utf-8") as log:
            log.write("\n")
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("match") != key:
            continue
        one, two = (GameResult(int(m), int(h), float(o)) for m, h, o in record["games"])
        times = {int(level): list(values) for level, values in record["times"].items()}
        found[int(record["index"])] = PairResult(int(record["index"]), (one, two), times)
    return found


def _options(text: list[str]) -> tuple[tuple[str, object], ...]:
    options: dict[str, object] = {}
    for item in text:
        name, _, value = item.partition("=")
        parsed: object = {"true": True, "false": False}.get(value, value)
        options[name] = int(value) if value.isdigit() else parsed
    return tuple(sorted(options.items()))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("a", type=int, help="bot level A")
    parser.add_argument("b", type=int, help="bot level B")
    parser.add_argument("--pairs", type=int, default=100, help="duplicate pairs (2 games each)")
    parser.add_argument("--profile", default="pagat-4p", choices=PROFILES)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house rule (R13), repeatable",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=24,
        help="samples per decision for searching levels (fixed: reproducible)",
    )
    parser.add_argument(
        "--seed-list",
        default=DEFAULT_SEED_LIST,
        metavar="NAME",
        help="which deals: v1 (the first tournaments' deals) or any name (its own deals)",
    )
    parser.add_argument(
        "--as-served",
        action="store_true",
        help="decide as the server does: its budgets, move lists and worker pool (wall time)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--progress",
        type=int,
        default=0,
        metavar="K",
        help="print the running figures as a JSON line on stderr every K pairs",
    )
    parser.add_argument("--first", type=int, default=0, metavar="N", help="start at pair N")
    parser.add_argument(
        "--log",
        default=None,
        metavar="FILE",
        help="append each pair as a JSON line; pairs already logged are skipped and counted",
    )


def _print(summary: dict[str, object]) -> None:
    margin = summary["margin_per_hand"]
    wins = summary["win_rate"]
    assert isinstance(margin, dict)
    assert isinstance(wins, dict)
    print(
        f"level {summary['a']} vs level {summary['b']}  profile {summary['profile']}  "
        f"options {summary['options']}  "
        + ("as served  " if summary.get("as_served") else f"samples {summary['samples']}  ")
        + f"seeds {summary['seed_list']}"
    )
    print(
        f"pairs played        {summary['pairs']} ({summary['games']} games, "
        f"{summary['hands']} hands)"
    )
    print(
        f"margin per hand     {margin['mean']:+.2f} points "
        f"(95% CI {margin['low']:+.2f} .. {margin['high']:+.2f})"
    )
    print(
        f"game win rate       {100 * wins['mean']:.1f}% "
        f"(95% CI {100 * wins['low']:.1f}% .. {100 * wins['high']:.1f}%)"
    )
    times = summary["decision_ms"]
    assert isinstance(times, dict)
    for level, figures in times.items():
        print(
            f"level {level} decisions  {figures['decisions']}: mean {figures['mean']:.2f} ms, "
            f"p95 {figures['p95']:.2f} ms"
        )
    print(f"wall time           {summary['wall_s']:.1f} s")
    if summary["interrupted"]:
        print("interrupted: the figures cover the pairs played before the stop")


def run(args: argparse.Namespace) -> int:
    """Play the tournament and print its figures; 2 for a bad level or option."""
    known = (*levels(), *stand_ins())  # a stand-in (50: the learned policy) plays as a level
    for level in (args.a, args.b):
        if level not in known:
            print(f"cuarenta tournament: no bot level {level} (levels: {list(known)})")
            return 2
    try:
        options = _options(args.option)
        resolve_rules(args.profile, dict(options))
    except ValueError as error:
        print(f"cuarenta tournament: {error}")
        return 2
    samples = 0 if args.as_served else args.samples  # as served: the server's deadlines
    match = Match(args.a, args.b, args.profile, options, samples, args.seed_list, args.as_served)
    jobs = 1 if args.as_served else args.jobs  # as served: the server's pool does the work
    start = time.perf_counter()
    wanted = range(args.first, args.first + args.pairs)
    logged = logged_pairs(match, args.log) if args.log else {}
    pairs = [logged[index] for index in wanted if index in logged]
    interrupted = False
    try:
        todo = [index for index in wanted if index not in logged]
        for pair in run_pairs(match, todo, jobs):
            pairs.append(pair)
            if args.log:
                with open(args.log, "a", encoding="utf-8") as log:
                    log.write(pair_line(match, pair) + "\n")
            if args.progress and len(pairs) % args.progress == 0:
                running = summarize(match, pairs, time.perf_counter() - start)
                print(json.dumps(running), file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # stopped early (Ctrl-C, SIGINT): report the pairs played
        interrupted = True
    finally:
        _Served.close()
    if not pairs:
        return 130
    pairs.sort(key=lambda pair: pair.index)
    summary = summarize(match, pairs, time.perf_counter() - start)
    summary["interrupted"] = interrupted
    if args.json:
        print(json.dumps(summary))
    else:
        _print(summary)
    return 0
