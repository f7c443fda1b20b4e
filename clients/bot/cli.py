"""``cuarenta bot``: seat a wire bot at a table, or fill K new tables with them.

    cuarenta bot LINK --level N [--seat S] [--pace SECONDS] [--games G]
    cuarenta bot SERVER --tables K --level N [--pace SECONDS]

With a link, one bot takes a seat (a host link also makes it start the game once the table is
full) and prints the final score when the game ends. With ``--tables`` the argument is a
server address: K tables are created and every seat is a wire bot (the load benchmarks' load);
``--json`` prints the outcome as one JSON object. Any failure is one line on stderr and a
non-zero exit code. A bot whose server goes away keeps its seat and resumes it (with its seat
token) once the server is back; SIGINT (Ctrl-C) or SIGTERM closes every bot's connection and
exits with 130 or 143.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

from clients.bot.fleet import FleetResult, run_fleet
from clients.bot.player import BotPlan, WireBot, playable_level
from clients.links import TableLink
from clients.reconnect import LastingSession
from clients.session import SessionError
from engine import bots

T = TypeVar("T")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="LINK",
        help="a table link (http://HOST:PORT/t/KEY); with --tables, a server",
    )
    parser.add_argument("--level", type=int, default=2, help="bot level of engine.bots")
    parser.add_argument("--seat", type=int, default=None, help="the seat to take (default: free)")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause before each action (default 0)",
    )
    parser.add_argument("--games", type=int, default=1, help="games to play before leaving")
    parser.add_argument(
        "--tables",
        type=int,
        default=None,
        metavar="K",
        help="create K tables on the server and fill them with bots",
    )
    parser.add_argument(
        "--profile",
        default="pagat-4p",
        choices=("pagat-4p", "heads-up", "libre-2p"),
        help="the tables' profile (with --tables)",
    )
    parser.add_argument("--name", default=None, help="the name shown at the table")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's choices")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")


def run(args: argparse.Namespace) -> int:
    level = playable_level(args.level)
    if level != args.level:
        print(
            f"cuarenta bot: level {args.level} is not available "
            f"(levels: {', '.join(map(str, bots.levels()))}); playing level {level}",
            file=sys.stderr,
        )
    if args.games < 1 or args.pace < 0 or (args.tables is not None and args.tables < 1):
        print(
            "cuarenta bot: --games and --tables must be at least 1, --pace not negative",
            file=sys.stderr,
        )
        return 2
    plan = BotPlan(level=level, pace_s=args.pace, games=args.games, seed=args.seed)
    try:
        if args.tables is not None:
            fleet = asyncio.run(
                until_signalled(run_fleet(args.target, args.tables, plan, args.profile))
            )
            print(_fleet_text(fleet, args.json))
        else:
            link = TableLink.parse(args.target)
            print(asyncio.run(until_signalled(_one_bot(link, args, plan))))
    except SessionError as exc:
        print(f"cuarenta bot: {exc}", file=sys.stderr)
        return 1
    except Interrupted as exc:
        print(f"cuarenta bot: stopped ({exc.signal.name})", file=sys.stderr)
        return 128 + exc.signal.value
    except KeyboardInterrupt:  # before the loop ran
        return 130
    return 0


class Interrupted(Exception):
    """SIGINT or SIGTERM ended the bots (their connections were closed on the way out)."""

    def __init__(self, signum: signal.Signals) -> None:
        super().__init__(signum.name)
        self.signal = signum


async def until_signalled(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` until it ends or SIGINT/SIGTERM cancels it (raises `Interrupted`).

    Every signal cancels it again: a bot reconnecting to a dead server must stop at Ctrl-C
    whatever step it is in.
    """
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    received: list[signal.Signals] = []

    def stop(signum: signal.Signals) -> None:
        received.append(signum)
        task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await task
    except asyncio.CancelledError:
        if received:
            raise Interrupted(received[0]) from None
        raise
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


async def _one_bot(link: TableLink, args: argparse.Namespace, plan: BotPlan) -> str:
    name = args.name or f"Bot {plan.level} (wire)"
    place = LastingSession(link, name, seat=args.seat)
    await place.open()
    try:
        tally = await WireBot(place, plan).run()
    finally:
        await place.close()
    final = tally.games[-1]
    assert final.view is not None
    seat = final.you.seat
    if args.json:
        return json.dumps(
            {
                "table": final.info.table,
                "seat": seat,
                "games": len(tally.games),
                "winner": final.view.winner,
                "scores": final.view.scores,
                "actions": tally.actions,
                "refused": tally.refused,
            }
        )
    return (
        f"table {final.info.table} seat {seat}: team {final.view.winner} wins "
        f"{final.view.scores[0]}-{final.view.scores[1]} ({tally.actions} actions)"
    )


def _fleet_text(fleet: FleetResult, as_json: bool) -> str:
    if as_json:
        return json.dumps(
            {
                "tables": [
                    {
                        "table": t.table,
                        "games": t.games,
                        "winner": t.winner,
                        "scores": list(t.scores),
                        "actions": t.actions,
                    }
                    for t in fleet.tables
                ],
                "seconds": round(fleet.seconds, 3),
                "actions": fleet.actions,
                "actions_per_s": round(fleet.actions / fleet.seconds, 1) if fleet.seconds else None,
            }
        )
    lines = [
        f"table {t.table}: {t.games} game(s), last won by team {t.winner} "
        f"{t.scores[0]}-{t.scores[1]}"
        for t in fleet.tables
    ]
    lines.append(f"{len(fleet.tables)} tables, {fleet.actions} actions in {fleet.seconds:.1f} s")
    return "\n".join(lines)
