"""A table as plain data: its settings, seats, viewers, game, clocks' anchors and event log.

Only its referee's commands change it (``Referee.apply``, through the handler modules:
``presence``, ``sitting``, ``hosting``, ``play``), one at a time (invariant 4); the other core
modules read it: ``clocks`` (what is due when), ``publishing`` (what viewers are sent),
``storage`` (the stored form) and ``summary`` (what the listing shows).
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from protocol.base import MoveDeadline, OnDeadline, TurnTimer
from server.core.seating import SeatState, Viewer
from server.store.base import KeyRole

SEATS_OF = {"pagat-4p": 4, "heads-up": 2, "libre-2p": 2}
CHAT_KEPT = 50
"""The chat lines each audience is shown again in a whole snapshot (a reload, a second tab)."""

ChatRings = dict[str, deque[dict[str, Any]]]


def chat_rings() -> ChatRings:
    """The last lines each audience may read (``ChatLine`` wire forms): ``players`` the players'
    lines, ``spectators`` the players' lines and their own (``Publisher.chat``)."""
    return {"players": deque(maxlen=CHAT_KEPT), "spectators": deque(maxlen=CHAT_KEPT)}


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """The referee's share of the server settings (``Settings.referee_config()``: the
    defaults are the settings')."""

    grace_s: float
    claim_window_s: float
    bot_delay_s: float
    away_turn_s: float  # an absent person's turn waits this long for a quick reconnect
    stand_in_level: int
    chat_per_min: float
    chat_burst: float = 5.0  # chat lines one viewer may send at once (not a setting)


@dataclass(frozen=True, slots=True)
class Pace:
    """How a table is played, fixed at its creation: live (``move_deadline`` 0) or turn-based."""

    move_deadline: MoveDeadline = 0
    on_deadline: OnDeadline = "stand_in"


LIVE = Pace()


def random_seed() -> int:
    return secrets.randbits(63)


@dataclass(slots=True, eq=False)
class Table:
    """One table's data; mutated only by its referee."""

    table_id: str
    keys: dict[KeyRole, str]
    profile: str
    options: dict[str, Any]
    turn_timer: TurnTimer
    config: RefereeConfig
    seeds: Callable[[], int] = random_seed
    seats: list[SeatState] = field(default_factory=list)
    locked: bool = False
    hints: bool = True  # the host's switch: players may ask for a hint (where one is given)
    # A solo table (the R14 ladder; ARCHITECTURE invariant 5's exception): its one person has
    # nobody to keep waiting, so the game waits for them: no stand-in, no turn clock, and the
    # seat never opens to a newcomer (``server.core.clocks``, ``server.core.presence``).
    solo: bool = False
    # A turn-based table (``move_deadline`` > 0): nobody need be connected; each person's
    # decision waits up to the deadline, then ``on_deadline`` acts (``server.core.clocks``).
    move_deadline: MoveDeadline = 0
    on_deadline: OnDeadline = "stand_in"
    reminded: int = -1  # the game event whose awaited decision was reminded ("deadline near")
    # ``on_deadline = "forfeit"``: the deadlines each team missed in a row this game, and how
    # the last game ended when a team forfeited it ({"by": "forfeit", "team": N}; None: by the
    # rules, R12) (``server.core.forfeit``)
    missed: list[int] = field(default_factory=lambda: [0, 0])
    ended: dict[str, Any] | None = None
    public: bool = False  # listed in the lobby of watchable tables (server.listing)
    casual: bool = False  # not rated: finished games change nobody's rating
    stage: str = "lobby"  # lobby, playing, finished
    game_no: int = 0
    seed: int | None = None
    game: Game | None = None
    decision_since: float = 0.0  # when the decision now awaited became due (clocks count from it)
    last_input: float = 0.0  # the time of the latest command or tick (for countdowns)
    claims_deadline: float | None = None
    claims_done: set[int] = field(default_factory=set)
    rematch: set[int] = field(default_factory=set)
    finished_record: dict[str, Any] | None = None
    # The event log as stored: one JSON line per event (bytes, not dicts: a server holds
    # thousands of tables, and the garbage collector walks every container).
    log: list[bytes] = field(default_factory=list)
    game_event: int = 0  # the number of the last event that changed the game
    viewers: dict[str, Viewer] = field(default_factory=dict)
    asked: set[tuple[int, int]] = field(default_factory=set)  # bot decisions asked: (seat, event)
    chat: ChatRings = field(default_factory=chat_rings)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [SeatState() for _ in range(SEATS_OF[self.profile])]

    @property
    def last_event(self) -> int:
        return len(self.log)

    @property
    def in_game(self) -> bool:
        return self.stage == "playing"

    @property
    def turn_based(self) -> bool:
        return self.move_deadline > 0

    @property
    def waits(self) -> bool:
        """The game waits for its people rather than playing on for them (a solo table, a
        turn-based one): nobody stands in for an absent person and no grace runs out; only a
        turn-based table's deadline lets a stand-in play (invariant 5's exceptions)."""
        return self.solo or self.move_deadline > 0
