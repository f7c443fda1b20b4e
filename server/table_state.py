"""A table's state and its storage form: seats, viewers, the game, clocks and the event log.

``TableState`` holds everything the room core works on and turns it into the bytes the store
keeps (``to_state``) and back (``from_state``): the engine game is stored as its seed plus its
actions, so a table is rebuilt from the store alone and a restart loses nothing. The layers
above add what viewers are sent (``server.table_view``), the game's clocks and bots
(``server.table_flow``) and the requests people make (``server.referee``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

import msgpack

from engine.actions import Action, action_from_json
from engine.errors import EngineError
from engine.game import Game
from engine.phase import Phase
from engine.rules import check_options
from engine.views import SeenPlay, View
from protocol import server_messages as s
from protocol.base import TurnTimer
from protocol.errors import ErrorCode
from server import keys
from server.errors import Refused
from server.frames import Built, pack
from server.seating import SeatState, Viewer
from server.state_text import StateText, compact
from server.store.base import KeyRole

STATE_FORMAT = "cuarenta-table/1"
SEATS_OF = {"pagat-4p": 4, "heads-up": 2, "libre-2p": 2}


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """The referee's share of the server settings."""

    grace_s: float = 60.0
    claim_window_s: float = 15.0
    bot_delay_s: float = 0.6
    away_turn_s: float = 5.0  # an absent person's turn waits this long for a quick reconnect
    stand_in_level: int = 3
    chat_per_min: float = 12.0
    chat_burst: float = 5.0


@dataclass(frozen=True, slots=True)
class BotRequest:
    """Ask a bot for ``seat``'s decision at event ``at``; answer with ``Referee.bot_act``."""

    table: str
    seat: int
    level: int
    view: View
    legal: tuple[Action, ...]
    at: int
    seed: int


@dataclass(frozen=True, slots=True)
class Baseline:
    """What a table's last update told every viewer: its info (encoded) and the hand's history
    entries (encoded; a list only appended to until the next hand), of which ``length`` then.
    The next update's snapshot is told as a change of it (``server.table_view``)."""

    info: bytes
    history: list[bytes]
    length: int


@dataclass(frozen=True, slots=True)
class ReservedSeat:
    """A seat held for a person who has not connected yet: its token resumes it."""

    seat: int
    token: str


@dataclass(slots=True)
class Outcome:
    """What one command caused: log entries to store first, then messages to send.

    ``first_new`` is the number of the first event this outcome logged (None: none); the referee
    turns the new events into one ``update`` per viewer when the command is done, folding in the
    ``acks`` of requests whose viewer gets one (the others get a plain ``ack``).
    """

    entries: list[bytes] = field(default_factory=list)
    messages: list[tuple[str, s.ServerMessage | Built]] = field(default_factory=list)
    detached: list[str] = field(default_factory=list)
    dirty: bool = False
    first_new: int | None = None
    acks: dict[str, int] = field(default_factory=dict)
    baseline: Baseline | None = None  # what this outcome's updates are told as a change of
    reserved: ReservedSeat | None = None  # a seat ``DealChica`` keeps for a person to come

    def merge(self, part: Outcome) -> None:
        """Add a finished outcome's entries, messages and detachments to this one."""
        self.entries += part.entries
        self.messages += part.messages
        self.detached += part.detached
        self.dirty = self.dirty or part.dirty

    def to(self, conn: str, message: s.ServerMessage | Built) -> None:
        self.messages.append((conn, message))

    def sent(self) -> list[tuple[str, s.ServerMessage]]:
        """The messages as their receivers handle them: built frames read back, updates
        unfolded into their ack, events and whole snapshot (for tests and debugging)."""
        info, history = None, None
        if self.baseline is not None:
            info = s.TableInfo.model_validate(msgpack.unpackb(self.baseline.info))
            entries = self.baseline.history[: self.baseline.length]
            history = [s.SeenPlay.model_validate(msgpack.unpackb(entry)) for entry in entries]
        out: list[tuple[str, s.ServerMessage]] = []
        for conn, message in self.messages:
            model = message.model() if isinstance(message, Built) else message
            if isinstance(model, s.Update):
                out += [(conn, part) for part in model.unfold_after(info, history)]
            else:
                out.append((conn, model))
        return out

    def ack(self, conn: str, rid: int) -> None:
        """Answer ``conn``'s request ``rid`` (in its update, if the request changed the table)."""
        self.acks[conn] = rid


class TableState:
    """One table's data; mutated only by one owner at a time (invariant 4)."""

    def __init__(
        self,
        table_id: str,
        table_keys: dict[KeyRole, str],
        profile: str,
        options: dict[str, Any],
        turn_timer: TurnTimer,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.table_id = table_id
        self.keys = table_keys
        self.profile = profile
        self.options = options
        self.turn_timer = turn_timer
        self.config = config
        self.seeds = seeds or (lambda: secrets.randbits(63))
        self.seats = [SeatState() for _ in range(SEATS_OF[profile])]
        self.locked = False
        self.stage: str = "lobby"
        self.game_no = 0
        self.seed: int | None = None
        self.game: Game | None = None
        self.decision_since = 0.0
        self.last_input = 0.0  # the time of the latest command or tick (for countdowns)
        self.claims_deadline: float | None = None
        self.claims_done: set[int] = set()
        self.rematch: set[int] = set()
        self.finished_record: dict[str, Any] | None = None
        # The event log as stored (one JSON line per event) and, per event, its msgpack form for
        # the wire: one public form, or one per seat then the spectators'. Bytes, not dicts: a
        # server holds thousands of tables, and the garbage collector walks every container.
        self.log: list[bytes] = []
        self.forms: list[bytes | tuple[bytes, ...]] = []
        # this hand's public history as sent: its entries and each one's encoding (table_view)
        self._history: tuple[list[SeenPlay], list[bytes]] = ([], [])
        self._history_of: tuple[Game, int] | None = None  # the game and hand it was taken from
        self.baseline: Baseline | None = None  # what the last update told (None: nothing yet)
        self.game_event = 0  # the number of the last event that changed the game
        self._text = StateText()  # the stored actions' and record's JSON, kept between commits
        self.viewers: dict[str, Viewer] = {}
        self._issued: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ creation and storage
    @classmethod
    def create(
        cls,
        profile: str,
        options: dict[str, Any],
        turn_timer: TurnTimer,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
        club: str | None = None,
    ) -> Self:
        """A new table with fresh keys; bad options are refused naming the rule (R13, R14)."""
        checked = checked_options(profile, options)
        table_keys: dict[KeyRole, str] = {
            "join": keys.new_key(),
            "watch": keys.new_key(),
            "host": keys.new_key(),
        }
        if club:
            table_keys["club"] = club
        return cls(keys.new_table_id(), table_keys, profile, checked, turn_timer, config, seeds)

    def to_state(self) -> bytes:
        """Everything needed to rebuild the table (with its log), as JSON bytes.

        ``actions`` and ``finished_record`` come last, spliced in from `StateText` (only what
        changed since the last commit is serialised).
        """
        game = self.game
        state = {
            "format": STATE_FORMAT,
            "table": self.table_id,
            "keys": self.keys,
            "profile": self.profile,
            "options": self.options,
            "turn_timer": self.turn_timer,
            "seats": [seat.to_json() for seat in self.seats],
            "locked": self.locked,
            "stage": self.stage,
            "game_no": self.game_no,
            "seed": self.seed,
            "decision_since": self.decision_since,
            "claims_deadline": self.claims_deadline,
            "claims_done": sorted(self.claims_done),
            "rematch": sorted(self.rematch),
            "last_event": len(self.log),
            "game_event": self.game_event,
        }
        head = compact(state)[:-1]
        actions = self._text.actions(game)
        record = self._text.record(self.finished_record)
        return b'%b,"actions":%b,"finished_record":%b}' % (head, actions, record)

    @classmethod
    def from_state(
        cls,
        data: bytes,
        log: list[bytes],
        config: RefereeConfig,
        now: float,
        seeds: Callable[[], int] | None = None,
    ) -> Self:
        """Rebuild a table from its stored state and log; every person starts away at ``now``."""
        state = json.loads(data)
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} state")
        ref = cls(
            state["table"],
            state["keys"],
            state["profile"],
            state["options"],
            state["turn_timer"],
            config,
            seeds,
        )
        ref.seats = [SeatState.from_json(seat, now) for seat in state["seats"]]
        for seat in ref.seats:
            if seat.occupant == "person" and ref.stage_is_game(state["stage"]):
                seat.stand_in = True
        ref.locked, ref.stage, ref.game_no = state["locked"], state["stage"], state["game_no"]
        ref.seed = state["seed"]
        if state["actions"] is not None:
            game = Game.new(ref.profile, ref.options, ref.seed)
            for action in state["actions"]:
                game.apply(action_from_json(action))
            ref.game = game
        ref.decision_since = state["decision_since"]
        ref.claims_deadline = state["claims_deadline"]
        ref.claims_done = set(state["claims_done"])
        ref.rematch = set(state["rematch"])
        ref.finished_record = state["finished_record"]
        for line in log:
            ref.append_log(bytes(line))
        ref.game_event = state.get("game_event", len(ref.log))
        if len(ref.log) != state["last_event"]:
            raise ValueError(f"log has {len(ref.log)} events, state expects {state['last_event']}")
        return ref

    def append_log(self, line: bytes, entry: dict[str, Any] | None = None) -> None:
        """Log one event: its stored JSON line (``entry`` parsed), its wire forms packed once."""
        entry = json.loads(line) if entry is None else entry
        self.log.append(line)
        if "a" in entry:
            self.forms.append(pack(entry["a"]))
        else:
            self.forms.append(tuple(pack(form) for form in entry["v"]))

    @staticmethod
    def stage_is_game(stage: str) -> bool:
        return stage == "playing"

    @property
    def last_event(self) -> int:
        return len(self.log)

    @property
    def in_game(self) -> bool:
        return self.stage == "playing"

    def _person_limit(self, game: Game) -> float:
        if game.phase is Phase.ANNOUNCE:
            return self.turn_timer or self.config.claim_window_s
        return float(self.turn_timer)

    # ------------------------------------------------------------------ records
    def record_for(self, credential: str) -> dict[str, Any] | None:
        """The finished game's R15 record for a current seat token or the host key."""
        allowed = keys.same_secret(credential, self.keys.get("host")) or any(
            keys.same_secret(credential, seat.token) for seat in self.seats
        )
        return self.finished_record if allowed else None

    def _require_game(self) -> Game:
        if self.game is None or not self.in_game:
            raise Refused(ErrorCode.WRONG_PHASE, "no game is being played")
        return self.game


def checked_options(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return check_options(profile, options)
    except EngineError as exc:
        raise Refused(ErrorCode.BAD_OPTIONS, str(exc)) from None
