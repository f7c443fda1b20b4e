"""Bytes sent to each viewer per move, protocol 3 against protocol 4, on the same seeded games.

Each game is played twice through the referee (no sockets: the frames are the bytes a socket
would carry), once with a seated person and a spectator on protocol 3 and once with both on
protocol 4; three bots fill the other seats, and every decision is drawn from a generator seeded
by the game and the event it answers, so both runs play exactly the same game. Every frame to
the two viewers counts (events, changes or updates, snapshots, acks, presence). On protocol 4
the spectator's view is followed from the changes (``protocol.follow``) and held to the
snapshot the referee gives at the end.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from engine.actions import Action
from protocol import client_messages as c
from protocol import decode_server
from protocol import server_messages as s
from protocol.follow import follow_event
from server.config import Settings
from server.core.commands import Attach, BotAnswer, Request, Tick
from server.core.outcome import Outcome
from server.core.referee import Referee
from server.frames import built

VIEWERS = ("ana", "eva")  # the seated person (seat 0) and the spectator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=20, help="seeded games (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")


def _choose(legal: tuple[Action, ...] | list[Any], seed: int, at: int, seat: int) -> Any:
    """A decision drawn from the game, the event it answers and the seat: the same in both
    runs."""
    return random.Random(seed * 1_000_003 + at * 5 + seat).choice(list(legal))


class Run:
    """One game at one protocol version: the bytes each viewer was sent, the moves made."""

    def __init__(
        self,
        seed: int,
        version: int,
        profile: str = "pagat-4p",
        options: dict[str, Any] | None = None,
        keep: bool = False,
    ) -> None:
        self.seed, self.version, self.now = seed, version, 1_000_000.0
        #: with ``keep``: each viewer's frames, each change's with the view the viewer holds
        self.kept: dict[str, list[tuple[bytes, Any]]] | None = (
            {viewer: [] for viewer in VIEWERS} if keep else None
        )
        self.sent = dict.fromkeys(VIEWERS, 0)
        self.followed: s.Snapshot | None = None
        self.astray = False
        self.result: tuple[Any, ...] = ()
        config = Settings().referee_config()
        self.ref = Referee.create(profile, options or {}, 0, config, seeds=lambda: seed)
        keys = self.ref.table.keys
        self._apply(Attach("ana", "Ana", c.Join(key=keys["host"], seat=0), "host", version=version))
        self._apply(Attach("eva", "Eva", c.Watch(key=keys["watch"]), "watch", version=version))
        for seat in range(1, len(self.ref.table.seats)):
            self._apply(Request("ana", c.AddBot(level=1, seat=seat)))
        self._apply(Request("ana", c.Start()))

    def _apply(self, command: Any) -> Outcome:
        out = self.ref.apply(command, self.now)
        for conn, message in out.messages:
            if conn in self.sent:
                frame = built(message)
                self.sent[conn] += len(frame.data)
                if conn == "eva" and self.version >= 4:
                    self._follow(decode_server(frame.data))
                if self.kept is not None:
                    view = self.ref.snapshot(self.ref.table.viewers[conn]).view
                    truth = None if view is None else view.model_dump(mode="json")
                    self.kept[conn].append((frame.data, truth))
        return out

    def _follow(self, message: s.ServerMessage) -> None:
        """The spectator's view as a protocol 4 client keeps it."""
        if isinstance(message, s.Snapshot):
            self.followed = message
        elif isinstance(message, s.Change) and self.followed is not None:
            before = self.followed
            info, view = message.info or before.info, before.view
            for event in message.events:
                view = follow_event(view, event.event, info, None)
            update = {"info": info, "view": view, "last_event": message.events[-1].n}
            self.followed = before.model_copy(update=update)

    def play(self) -> int:
        """Play to the end; return the moves (game actions) made."""
        table = self.ref.table
        while table.stage != "finished":
            self.now += 60.0
            snapshot = self.ref.snapshot(table.viewers["ana"])
            if snapshot.legal:
                choice = _choose(snapshot.legal, self.seed, snapshot.last_event, 0)
                self._apply(Request("ana", choice.model_copy(update={"at": snapshot.last_event})))
                continue
            for request in self._apply(Tick()).bots:
                action = _choose(request.legal, self.seed, request.at, request.seat)
                self._apply(BotAnswer(request.seat, request.at, action))
        game = table.game
        assert game is not None
        if self.version >= 4:
            truth = self.ref.snapshot(table.viewers["eva"]).view
            self.astray = self.followed is None or self.followed.view != truth
        self.result = (len(game.actions), game.scores, game.winner)
        return len(game.actions)


def run(args: argparse.Namespace) -> int:
    totals = {version: dict.fromkeys(VIEWERS, 0) for version in (3, 4)}
    moves = {3: 0, 4: 0}
    astray = 0
    for seed in range(args.seed, args.seed + args.games):
        results = []
        for version in (3, 4):
            game = Run(seed, version)
            moves[version] += game.play()
            astray += game.astray
            results.append(game.result)
            for viewer in VIEWERS:
                totals[version][viewer] += game.sent[viewer]
        if results[0] != results[1]:
            print(f"seed {seed}: the two runs played different games: {results}")
            return 1
    print(
        f"viewer bytes per move: {args.games} pagat-4p games (seeds {args.seed}.."
        f"{args.seed + args.games - 1}, {moves[3]} moves), the same games on protocols 3 and 4"
    )
    print(f"{'viewer':<10} {'v3 B/move':>10} {'v4 B/move':>10} {'v4/v3':>7}")
    for viewer, label in zip(VIEWERS, ("seat 0", "spectator"), strict=True):
        v3, v4 = (totals[version][viewer] / moves[version] for version in (3, 4))
        print(f"{label:<10} {v3:>10.0f} {v4:>10.0f} {v4 / v3:>7.2f}")
    ratio = totals[4]["eva"] / totals[3]["eva"]
    print(f"spectator v4/v3: {ratio:.2f} (target <= 0.50: {'met' if ratio <= 0.5 else 'NOT met'})")
    print(f"followed spectator views equal to the snapshot at the end: {args.games - astray}")
    return 0 if astray == 0 else 1
