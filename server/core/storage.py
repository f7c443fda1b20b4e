"""A table's storage form: ``to_state`` writes the JSON the store keeps, ``from_state`` reads it.

The engine game is stored as its seed plus its actions, so a table is rebuilt from the store
alone (state and event log) and a restart loses nothing; people come back "away".

A commit does not rewrite the whole state: ``StoredForm.next`` gives either a **snapshot** (the
whole state, as ``to_state``) or a **delta** against the last form it gave: the top-level fields
whose JSON changed, whole, and the game's new actions under ``"actions+"`` (appended). The
store appends deltas to the table's tail and joins them onto the snapshot when it loads
(``server.store.base.joined``); ``from_state`` then replays the actions through the engine, as
for a snapshot. A state diff rather than replaying commands: a command depends on what is not
stored (the connections, the viewers, the bots asked), so replaying ``apply(command, now)``
would not be exact, while a field-level diff is exact by construction (the joined JSON is the
JSON ``to_state`` writes) and needs no knowledge of new fields: they flow through as any other.
The fields are compared as their JSON bytes, so nothing mutated in place is missed. A snapshot
is written every ``SNAPSHOT_EVERY`` commits, when the game is replaced (a rematch) and when the
finished record is set (a game's end), so a load replays a short tail.

The actions and the finished record are the bulk: `StateText` serialises each new action once
and the record once, and ``to_state`` splices the texts in. JSON is written by orjson: the
stored state, the actions and the event log are written on every change, and orjson writes the
same compact JSON as ``json.dumps(..., separators=(",", ":"))`` (UTF-8 instead of ``\\u``
escapes) about ten times faster.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from engine.actions import Action
from engine.game import Game
from server.core.seating import SeatState
from server.core.table import RefereeConfig, Table, random_seed

STATE_FORMAT = "cuarenta-table/1"
SNAPSHOT_EVERY = 32  # commits between snapshots: the most deltas a load joins


def compact(value: Any) -> bytes:
    """The one JSON form of what is stored: compact, UTF-8.

    Copied to a bytes object of its own size: orjson returns its working buffer, about 4 KB
    even for ``null``, and the log lines and action texts are kept for a table's lifetime.
    """
    return memoryview(orjson.dumps(value)).tobytes()


class StateText:
    """One table's actions and finished record as compact JSON, remembered between commits."""

    __slots__ = ("_game", "_last", "_parts", "_record", "_record_text")

    def __init__(self) -> None:
        self._game: Game | None = None
        self._last: Action | None = None
        self._parts: list[bytes] = []
        self._record: object = None
        self._record_text = b"null"

    def actions(self, game: Game | None) -> bytes:
        """Return ``compact([a.to_json() for a in game.actions])``, or ``null`` for no game."""
        if game is None:
            return b"null"
        return b"[" + b",".join(self.parts(game)) + b"]"

    def parts(self, game: Game) -> list[bytes]:
        """Each of ``game``'s actions as compact JSON, in order (new ones serialised now)."""
        actions = game.actions
        done = len(self._parts)
        if (
            game is not self._game
            or len(actions) < done
            or (done and actions[done - 1] is not self._last)
        ):
            self._game, self._parts, done = game, [], 0  # another game (a rematch, a reload)
        self._parts += [compact(action.to_json()) for action in actions[done:]]
        self._last = actions[-1] if actions else None
        return self._parts

    def record(self, record: dict[str, Any] | None) -> bytes:
        """Return ``compact(record)``, serialised once per record object (set once a game)."""
        if record is not self._record:
            self._record, self._record_text = record, compact(record)
        return self._record_text


def pace(table: Table) -> dict[str, Any] | None:
    """A turn-based table's deadline, its rule, the decision last reminded and the deadlines
    each team missed in a row (None: live)."""
    if not table.move_deadline:
        return None
    return {
        "move_deadline": table.move_deadline,
        "on_deadline": table.on_deadline,
        "reminded": table.reminded,
        "missed": list(table.missed),
    }


def head(table: Table) -> dict[str, Any]:
    """The state's fields but the actions and the finished record (``to_state`` adds those)."""
    return {
        "format": STATE_FORMAT,
        "table": table.table_id,
        "keys": dict(table.keys),  # copies: ``StoredForm`` compares them with the last given
        "profile": table.profile,
        "options": dict(table.options),
        "turn_timer": table.turn_timer,
        "seats": [seat.to_json() for seat in table.seats],
        "locked": table.locked,
        "hints": table.hints,
        "solo": table.solo,
        "pace": pace(table),
        "stage": table.stage,
        "game_no": table.game_no,
        "seed": table.seed,
        "decision_since": table.decision_since,
        "claims_deadline": table.claims_deadline,
        "claims_done": sorted(table.claims_done),
        "public": table.public,
        "casual": table.casual,
        "rematch": sorted(table.rematch),
        "ended": table.ended,  # a forfeit, beside the finished record it ended
        "last_event": len(table.log),
        "game_event": table.game_event,
        "chat": {audience: list(lines) for audience, lines in table.chat.items()},
    }


def to_state(table: Table, text: StateText) -> bytes:
    """Everything needed to rebuild the table (with its log), as JSON bytes.

    ``actions`` and ``finished_record`` come last, spliced in from ``text`` (only what changed
    since the last commit is serialised).
    """
    start = compact(head(table))[:-1]
    actions = text.actions(table.game)
    record = text.record(table.finished_record)
    return b'%b,"actions":%b,"finished_record":%b}' % (start, actions, record)


#: The head fields a move changes, all scalars: a delta compares them one by one. The others
#: (``_settled``) are compared at once, as the table holds them, and change far less often.
HOT = ("stage", "decision_since", "claims_deadline", "last_event", "game_event")


def _hot(table: Table) -> tuple[Any, ...]:
    """The ``HOT`` fields' values, in that order."""
    return (
        table.stage,
        table.decision_since,
        table.claims_deadline,
        len(table.log),
        table.game_event,
    )


def _settled(table: Table) -> tuple[Any, ...]:
    """Everything else ``head`` stores, as the table holds it (no copies: compared only)."""
    return (
        table.table_id,
        table.keys,
        table.profile,
        table.options,
        table.turn_timer,
        [seat.to_json() for seat in table.seats],
        table.locked,
        table.hints,
        table.solo,
        pace(table),
        table.game_no,
        table.seed,
        table.claims_done,
        table.public,
        table.casual,
        table.rematch,
        table.ended,
        table.chat,
    )


def _copied(settled: tuple[Any, ...]) -> tuple[Any, ...]:
    """A copy of ``_settled``'s values deep enough to compare with later: each container the
    table holds copied one level (their members are scalars, or chat lines, which are appended
    and never changed), instead of ``copy.deepcopy``'s walk of every member."""
    *kept, chat = settled
    copies = [value.copy() if type(value) in (dict, set, list) else value for value in kept]
    return (*copies, {audience: lines.copy() for audience, lines in chat.items()})


class StoredForm:
    """What each commit stores: a snapshot or a delta against the form given before it.

    The room commits every form it is given, in order, or is rebuilt (a new referee, a new
    ``StoredForm``) when a commit fails, so the last form given is the stored one.
    """

    __slots__ = ("_deltas", "_fields", "_game", "_record", "_sent", "_settled")

    def __init__(self) -> None:
        self._fields: dict[str, tuple[Any, bytes]] | None = None  # head fields as last given
        self._settled: tuple[Any, ...] | None = None  # a copy of ``_settled`` as last given
        self._game: Game | None = None
        self._record: object = None
        self._sent = 0  # the game's actions given so far
        self._deltas = 0  # deltas given since the last snapshot

    def next(self, table: Table, text: StateText) -> tuple[bytes, bool]:
        """The form to commit now and whether it is a delta (False: a whole snapshot)."""
        game, base = table.game, self._fields
        settled = _settled(table)
        if (
            base is None
            or game is not self._game
            or (game is not None and len(game.actions) < self._sent)  # never: actions only grow
            or table.finished_record is not self._record
            or self._deltas >= SNAPSHOT_EVERY - 1
        ):
            fields = self._head_fields(table)
            self._fields, self._game, self._deltas = fields, game, 0
            self._settled = _copied(settled)
            self._record = table.finished_record
            self._sent = len(game.actions) if game is not None else 0
            return to_state(table, text), False
        if settled == self._settled:  # a move: only the hot fields can differ
            fields = dict(base)
            for name, value in zip(HOT, _hot(table), strict=True):
                fields[name] = _field(base[name], value)
            names: tuple[str, ...] | list[str] = HOT
        else:
            fields = self._head_fields(table)
            self._settled = _copied(settled)
            names = list(fields)
        parts = [
            _name(name) + fields[name][1] for name in names if base[name][1] != fields[name][1]
        ]
        new = [] if game is None else text.parts(game)[self._sent :]
        if new:
            parts.append(b'"actions+":[%b]' % b",".join(new))
        self._fields, self._sent, self._deltas = fields, self._sent + len(new), self._deltas + 1
        return b"{%b}" % b",".join(parts), True

    def _head_fields(self, table: Table) -> dict[str, tuple[Any, bytes]]:
        """Each head field's value and JSON (a field unchanged since last given keeps its
        JSON: ``head`` builds every container afresh, none is the table's own)."""
        base = self._fields or {}
        return {name: _field(base.get(name), value) for name, value in head(table).items()}


def _field(was: tuple[Any, bytes] | None, value: Any) -> tuple[Any, bytes]:
    """A head field's value and JSON: ``was`` itself if equal to (and of the type of) it."""
    if was is not None and type(was[0]) is type(value) and was[0] == value:
        return was
    return value, b"%d" % value if type(value) is int else compact(value)


_NAMES: dict[str, bytes] = {}


def _name(name: str) -> bytes:
    """A head field's JSON key and colon, encoded once per name."""
    data = _NAMES.get(name)
    if data is None:
        data = _NAMES[name] = compact(name) + b":"
    return data


def from_state(
    data: bytes,
    log: list[bytes],
    config: RefereeConfig,
    now: float,
    seeds: Callable[[], int] | None = None,
) -> Table:
    """Rebuild a table from its stored state and log; every person starts away at ``now``."""
    state = json.loads(data)
    if state.get("format") != STATE_FORMAT:
        raise ValueError(f"not a {STATE_FORMAT} state")
    table = Table(
        state["table"],
        state["keys"],
        state["profile"],
        state["options"],
        state["turn_timer"],
        config,
        seeds or random_seed,
        seats=[SeatState.from_json(seat, now) for seat in state["seats"]],
    )
    table.solo = bool(state.get("solo", False))
    pace = state.get("pace")  # absent: a live table (stored before turn-based tables)
    if pace is not None:
        table.move_deadline, table.on_deadline = pace["move_deadline"], pace["on_deadline"]
        table.reminded = pace["reminded"]
        table.missed = list(pace.get("missed", [0, 0]))  # stored before the forfeit rule: none
    table.hints = bool(state.get("hints", True))  # a table stored before the switch: on
    for seat in table.seats:
        if seat.occupant == "person" and state["stage"] == "playing" and not table.waits:
            seat.restored = not seat.stand_in  # assumed here, never announced
            seat.stand_in = True
    table.locked, table.stage, table.game_no = state["locked"], state["stage"], state["game_no"]
    table.seed = state["seed"]
    if state["actions"] is not None:
        game = Game.new(table.profile, table.options, table.seed)
        for _ in game.apply_record(state["actions"]):
            pass
        table.game = game
    table.decision_since = state["decision_since"]
    table.claims_deadline = state["claims_deadline"]
    table.claims_done = set(state["claims_done"])
    table.rematch = set(state["rematch"])
    table.public = bool(state.get("public", False))
    table.casual = bool(state.get("casual", False))
    table.finished_record = state["finished_record"]
    table.ended = state.get("ended")
    table.log = [bytes(line) for line in log]
    table.game_event = state.get("game_event", len(table.log))
    for audience, lines in state.get("chat", {}).items():
        table.chat[audience].extend(lines)
    if len(table.log) != state["last_event"]:
        raise ValueError(f"log has {len(table.log)} events, state expects {state['last_event']}")
    return table
