"""What the browser's Pyodide calls: `cuarenta replay` as text, and a solo chica (issue 42).

Packed into the engine zip as the top-level module ``pocket_api`` (``clients.pocket``); it
imports the engine only, so it runs unchanged under CPython (where the tests call it too) and
under Pyodide. Every function takes and returns plain JSON text, the one shape that crosses
between the worker's JavaScript and Python without proxies to free.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import time
from typing import Any

from engine import Game, IllegalAction, Phase, Record, card_code, replay_cli
from engine.actions import action_from_json
from engine.bots import Budget, choose
from engine.events import Event
from engine.views import redact


def replay_output(path: str) -> str:
    """Run `cuarenta replay PATH` and return its exit code, standard output and error as JSON."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = replay_cli.run(argparse.Namespace(file=path))
    return json.dumps({"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()})


def warm() -> None:
    """Import every bot level and read the bots' data now, before the worker's snapshot.

    The worker snapshots the interpreter once on a device (engine_worker.js): what is imported
    and read here is in every later start's memory, so no bot's first move waits for its
    modules or its model.
    """
    from engine.bots import levels
    from engine.bots.learned import weights
    from engine.bots.rest import model

    levels()
    model()
    weights()


# ---------------------------------------------------------------- a solo chica (R14)
PROFILE = "heads-up"  # R14: the ladder is played on the heads-up profile
FREE_PROFILE = "libre-2p"  # R14: the free two-player game, against a bot of the person's choice
PROFILES = (PROFILE, FREE_PROFILE)
PERSON, BOT = 0, 1  # the seats the server's ladder gives (server.core.chica)
#: the search levels' time for one decision: the server's (server.bots.LEVEL_BUDGET_S, the
#: share its search uses), so on a phone level 5 searches 5/3 of level 4's time, as the
#: server's "5 over 4 as served" was measured (BENCHMARKS.md); the page lets the bot think
#: while the last card stays in view, so level 5 costs a phone ~0.4 s a move (the pocket row).
SEARCH_S = {4: 0.3 * 0.7, 5: 0.5 * 0.7}


class Solo:
    """One chica against the bot of ``level``: the person at seat 0, the bot at seat 1."""

    def __init__(self, game: Game, level: int, seed: int) -> None:
        self.game = game
        self.level = level
        self.rng = random.Random(seed)

    def to_move(self) -> str | None:
        """Whose move it is: "person", "bot", "system", or None when the game is over."""
        seats = self.game.to_act()
        if PERSON in seats:
            return "person"
        if BOT in seats:
            return "bot"
        if self.game.system_actions():
            return "system"
        return None

    def step(self) -> tuple[Event, ...]:
        """Make the bot's (or the clock's) one move, when it is theirs; else nothing."""
        mover = self.to_move()
        if mover == "system":
            return self.game.apply(self.game.system_actions()[0])
        if mover != "bot":
            return ()
        legal = self.game.legal_actions(BOT, by_rank=True)
        seconds = SEARCH_S.get(self.level)
        budget = Budget(
            deadline=None if seconds is None else time.monotonic() + seconds,
            clock=time.monotonic,
        )
        action = choose(self.level, self.game.view(BOT), legal, self.rng, budget)
        return self.game.apply(action if action is not None else legal[0])

    def state(self, events: tuple[Event, ...] = ()) -> dict[str, Any]:
        """What the person may see now, their legal actions and what just happened."""
        game, view = self.game, self.game.view(PERSON)
        finished = game.phase is Phase.FINISHED
        return {
            "level": self.level,
            "profile": game.rules.profile,
            "to_move": self.to_move(),
            "hand": [card_code(card) for card in view.hand or ()],
            "table": [card_code(card) for card in view.table],
            "scores": list(view.scores),
            "piles": list(view.pile_sizes),
            "hand_sizes": list(view.hand_sizes),
            "undealt": view.undealt,
            "dealer": view.dealer,
            "turn": view.turn,
            "winner": view.winner,
            "legal": [action.to_json() for action in game.legal_actions(PERSON, by_rank=True)],
            "events": [redact(event, PERSON).to_json() for event in events],
            "record": game.record().to_json(),
            "finished": finished,
        }


_solo: Solo | None = None


def _current() -> Solo:
    if _solo is None:
        raise RuntimeError("no chica: call solo_new or solo_resume first")
    return _solo


def solo_new(seed: int, level: int, profile: str = PROFILE) -> str:
    """Deal a new chica on ``profile`` (the ladder's or the free game's) against the bot of
    ``level`` from ``seed``; return its state."""
    global _solo
    if profile not in PROFILES:
        raise ValueError(f"R14: a pocket chica is played on {' or '.join(PROFILES)}, not {profile}")
    _solo = Solo(Game.new(profile, {}, seed=seed), level, seed)
    return json.dumps(_solo.state(_solo.game.start_events))


def solo_resume(record: str, level: int, seed: int) -> str:
    """Take up a chica from its record (a reload mid-game); further packs shuffle from ``seed``."""
    global _solo
    game = Game.from_record(Record.from_json(json.loads(record)), seed=seed)
    if game.rules.profile not in PROFILES:
        raise ValueError(
            f"R14: a pocket chica is played on {' or '.join(PROFILES)}, not {game.rules.profile}"
        )
    _solo = Solo(game, level, seed)
    return json.dumps(_solo.state())


def solo_play(action: str) -> str:
    """Apply the person's action (R15 JSON form); an illegal one raises ``IllegalAction``."""
    solo = _current()
    parsed = action_from_json(json.loads(action))
    if getattr(parsed, "seat", None) != PERSON:
        raise IllegalAction("R14", "the person plays seat 0 only")
    return json.dumps(solo.state(solo.game.apply(parsed)))


def solo_step() -> str:
    """The bot's (or the clock's) next move, if it is theirs; the state after it."""
    solo = _current()
    return json.dumps(solo.state(solo.step()))
