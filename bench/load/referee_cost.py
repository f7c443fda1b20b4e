"""``cuarenta bench referee_cost``: the server's CPU per play, without sockets or clocks.

Drives one ``server.core.referee.Referee`` (the sans-I/O room core) through whole games with four
seated connections, and splits the CPU time of each play into the referee's own work (rules,
events, redaction, one update per viewer), ``to_state`` (what the room commits to the store after
every change) and encoding the messages it sends (as the connections do: a message object
shared by several viewers is encoded once, ``server.frames``); and, on the receiving side, what
reading those frames costs the four clients (``msgpack.unpackb``, as the load clients do).
CPU time (``process_time``),
so other work on the machine does not inflate it. ``--policy first`` plays the first legal
action (trails) and shows how a crowded table's capture lists grow (R7; the server now offers
them up to suits, so they stay short).

``--bare`` plays the same kind of games with nothing around the room's own work: each play is
chosen from the engine's legal list (no snapshot decoded), applied, its stored form taken
(``Referee.stored_form``, what the room commits) and its messages encoded. Under an instruction
counter two trees then compare exactly (``valgrind --tool=cachegrind --cache-sim=no``, with
``PYTHONHASHSEED=0``, once with ``--plays 0``: the difference over the plays is their cost).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack
from pydantic import TypeAdapter

from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_fields
from server.config import Settings
from server.core.commands import Attach, Request
from server.core.referee import Outcome, Referee
from server.frames import FRAMES
from server.store.base import KeyRole

SEATS = 4


@dataclass
class Costs:
    plays: int = 0
    referee_s: float = 0.0
    state_s: float = 0.0
    encode_s: float = 0.0
    decode_s: float = 0.0
    state_bytes: int = 0
    most_legal: int = 0
    messages: Counter[str] = field(default_factory=Counter)
    bytes_by_type: Counter[str] = field(default_factory=Counter)

    def report(self, policy: str, games: int) -> str:
        per = 1000 / self.plays
        sizes = {
            kind: f"{count / self.plays:.1f} x {self.bytes_by_type[kind] // count} B"
            for kind, count in self.messages.items()
        }
        return (
            f"policy {policy}: {self.plays} plays in {games} game(s); CPU per play: referee "
            f"{self.referee_s * per:.3f} ms, to_state {self.state_s * per:.3f} ms "
            f"(last state {self.state_bytes} B), encode {self.encode_s * per:.3f} ms; clients' "
            f"decoding {self.decode_s * per:.3f} ms; "
            f"messages per play {sum(self.messages.values()) / self.plays:.1f}: {sizes}; "
            f"most legal actions in one snapshot {self.most_legal}"
        )


Decision = tuple[str, list[c.GameAction], int]
"""Who must decide, their legal list and the last event they saw."""


def _decision(out: Outcome) -> Decision | None:
    for conn, message in out.sent():  # decoded, outside the measured time
        if isinstance(message, s.Snapshot) and message.legal:
            return conn, message.legal, message.last_event
        if isinstance(message, s.Change) and message.legal:  # protocol 4
            return conn, message.legal, message.events[-1].n
    return None


def _choose(legal: list[c.GameAction], last_event: int, policy: str) -> c.ClientMessage:
    pick = (
        legal[0]
        if policy == "first"
        else max(legal, key=lambda action: len(getattr(action, "take", None) or ()))
    )
    return pick.model_copy(update={"at": last_event})


def measure(plays: int, policy: str, seed: int = 1, version: int = 3) -> tuple[Costs, int]:
    """Play ``plays`` actions (rematching after each game); return the costs and games.

    The games' packs come from ``seed``: the same games every run, so two trees (or an
    instruction counter such as callgrind) compare the same work.
    """
    packs = random.Random(seed)
    referee = Referee.create(
        "pagat-4p",
        {"special_claims": "auto"},
        0,
        Settings(bot_delay_s=0.0).referee_config(),
        seeds=lambda: packs.getrandbits(63),
    )
    conns = [f"conn{seat}" for seat in range(SEATS)]
    host = c.Join(key=referee.table.keys["host"], seat=0)
    referee.apply(Attach(conns[0], "s0", host, "host", version=version), 0.0)
    for seat in range(1, SEATS):
        join = c.Join(key=referee.table.keys["join"], seat=seat)
        referee.apply(Attach(conns[seat], f"s{seat}", join, "join", version=version), 0.0)
    decision = _decision(referee.apply(Request(conns[0], c.Start()), 0.0))
    costs, now, empty_games = Costs(), 1.0, 0
    while costs.plays < plays:
        if decision is None:  # the game is over: everyone asks for a rematch
            for conn in conns:
                decision = _decision(referee.apply(Request(conn, c.Rematch()), now)) or decision
            empty_games = 0 if decision is not None else empty_games + 1
            if empty_games > 3:  # a game may end at its deal (a cuarenta, R6), not four in a row
                raise RuntimeError("no seat has a decision and no game starts")
            continue
        conn, legal, last_event = decision
        costs.most_legal = max(costs.most_legal, len(legal))
        action = _choose(legal, last_event, policy)
        started = time.process_time()
        out = referee.apply(Request(conn, action), now)
        handled = time.process_time()
        state = referee.to_state()
        stored = time.process_time()
        for _, message in out.messages:
            data = FRAMES.encode(message)  # as Connection.push: shared messages encode once
            costs.messages[message.type] += 1
            costs.bytes_by_type[message.type] += len(data)
        encoded = time.process_time()
        for _, message in out.messages:
            msgpack.unpackb(FRAMES.encode(message))
        costs.decode_s += time.process_time() - encoded
        costs.referee_s += handled - started
        costs.state_s += stored - handled
        costs.encode_s += encoded - stored
        costs.state_bytes = len(state)
        costs.plays += 1
        now += 0.01
        decision = _decision(out)
    return costs, referee.table.game_no


def measure_bare(plays: int, seed: int = 1) -> float:
    """Play ``plays`` greedy captures as the room would, and nothing else; CPU seconds."""
    packs = random.Random(seed)
    referee = Referee.create(
        "pagat-4p",
        {"special_claims": "auto"},
        0,
        Settings(bot_delay_s=0.0).referee_config(),
        seeds=lambda: packs.getrandbits(63),
    )
    conns = [f"conn{seat}" for seat in range(SEATS)]
    for seat, conn in enumerate(conns):
        role: KeyRole = "host" if seat == 0 else "join"
        referee.apply(
            Attach(conn, f"s{seat}", c.Join(key=referee.table.keys[role], seat=seat), role), 0
        )
    referee.apply(Request(conns[0], c.Start()), 0.0)
    message: TypeAdapter[c.ClientMessage] = TypeAdapter(c.ClientMessage)
    now, played, started = 1.0, 0, time.process_time()
    while played < plays:
        table, game = referee.table, referee.table.game
        if game is None or not table.in_game:
            for conn in conns:
                referee.apply(Request(conn, c.Rematch()), now)
            continue
        seat = min(game.to_act())
        pick = max(game.legal_actions(seat, by_rank=True), key=_taken)
        fields = {**action_fields(pick), "rid": played + 1, "at": table.last_event}
        out = referee.apply(Request(conns[seat], message.validate_python(fields)), now)
        referee.stored_form()
        for _, sent in out.messages:
            FRAMES.encode(sent)
        now, played = now + 0.01, played + 1
    return time.process_time() - started


def _taken(action: Any) -> int:
    return len(getattr(action, "take", None) or ())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--plays", type=int, default=600)
    parser.add_argument(
        "--bare", action="store_true", help="the room's work alone (for instruction counters)"
    )
    parser.add_argument("--policy", choices=("greedy", "first"), default="greedy")
    parser.add_argument("--seed", type=int, default=1, help="the games' packs (default 1)")
    parser.add_argument(
        "--protocol", type=int, choices=(3, 4), default=3, help="the seats' protocol (default 3)"
    )


def run(args: argparse.Namespace) -> int:
    """Measure and print the split of the CPU per play."""
    if args.bare:
        spent = measure_bare(args.plays, args.seed)
        print(f"bare: {args.plays} plays, {spent / max(args.plays, 1) * 1000:.3f} ms CPU per play")
        return 0
    costs, games = measure(args.plays, args.policy, args.seed, args.protocol)
    print(f"protocol {args.protocol}: {costs.report(args.policy, games)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load.referee_cost", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
