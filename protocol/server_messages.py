"""Every message the server sends, as one discriminated union on ``type``.

What a viewer learns comes in two forms: numbered ``event`` messages (a table's log, each
redacted for the viewer; a number is never skipped, so a gap means loss, never secrecy) and
``snapshot`` messages (the viewer's whole view, with the legal actions when the viewer must
decide). After each change both arrive together in one ``update`` frame per viewer. Presence,
deadlines, chat and request answers are not numbered.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue

from protocol.base import (
    BotLevel,
    CardCode,
    ChatText,
    MoveDeadline,
    OnDeadline,
    OptionValue,
    PlayerName,
    RequestId,
    Role,
    Seat,
    Team,
    TurnTimer,
    WireModel,
)
from protocol.client_messages import GameAction
from protocol.clubs import ClubNight, ClubSeat
from protocol.coach import Hint
from protocol.errors import ErrorCode, ProtocolError
from protocol.ladder import LadderBoard, LadderState, LadderSynced
from protocol.players import PlayerAnswer
from protocol.table_events import KnownEvent, UnknownEvent

# --- answers to requests ------------------------------------------------------------------------


class Welcome(WireModel):
    """Answer to ``hello``: the server's protocol version and this connection's id (for logs)."""

    type: Literal["welcome"] = "welcome"
    rid: RequestId = 0
    version: int
    server: str
    connection: str


class Ack(WireModel):
    """The request ``rid`` was accepted; its effects follow as events and snapshots."""

    type: Literal["ack"] = "ack"
    rid: RequestId


class Error(WireModel):
    """The request ``rid`` was refused (``rid`` is None when the frame had no readable rid)."""

    type: Literal["error"] = "error"
    rid: RequestId | None
    code: ErrorCode
    message: str


class Pong(WireModel):
    type: Literal["pong"] = "pong"
    rid: RequestId = 0
    server_time: float


class TableCreated(WireModel):
    """Answer to ``create``: the table's links. Only the creator ever sees the host key."""

    type: Literal["table_created"] = "table_created"
    rid: RequestId
    table: str
    join_key: str
    watch_key: str
    host_key: str


class Seated(WireModel):
    """You hold ``seat``; keep ``token`` to take it back after a disconnect (any time)."""

    type: Literal["seated"] = "seated"
    rid: RequestId = 0
    table: str
    seat: Seat
    token: str


class RecordMessage(WireModel):
    """The finished game's R15 record (``cuarenta-record/1``)."""

    type: Literal["record"] = "record"
    rid: RequestId
    game: int
    record: dict[str, JsonValue]


# --- the table as a viewer sees it --------------------------------------------------------------


class SeatInfo(WireModel):
    seat: Seat
    occupant: Literal["empty", "person", "bot"]
    name: str | None = None
    bot_level: BotLevel | None = None
    connected: bool = False
    stand_in: bool = False  # a bot is playing for an absent or timed-out person
    player: str | None = None  # the person's public id (``protocol.players``), if they gave one


class Deadline(WireModel):
    """A decision the server will take on its own clock at ``at`` (server epoch seconds)."""

    kind: Literal["turn", "announce", "claims", "grace"]
    seat: Seat | None
    at: float
    remaining_ms: int


class Ended(WireModel):
    """How the game shown ended other than by the rules' score (R12): by ``forfeit`` of
    ``team`` (a turn-based table's team that missed two deadlines in a row)."""

    by: Literal["forfeit"]
    team: Team


class TableInfo(WireModel):
    table: str
    profile: str
    options: dict[str, OptionValue]
    turn_timer: TurnTimer
    locked: bool
    stage: Literal["lobby", "playing", "finished"]
    game: int  # how many games this table has started (rematches count)
    seats: list[SeatInfo]
    spectators: int
    rematch_asked: list[Seat] = Field(default_factory=list)
    casual: bool = False  # not rated: a finished game changes nobody's rating
    hints: bool = False  # a seated player may ask for a hint (protocol.coach)
    move_deadline: MoveDeadline = 0  # a turn-based table's deadline per decision (0: live)
    on_deadline: OnDeadline = "stand_in"
    #: deadlines each team missed in a row this game (``on_deadline = "forfeit"``: at 2 it loses)
    missed: tuple[int, int] = (0, 0)
    ended: Ended | None = None  # the last game ended by forfeit (None: by the rules, or not yet)


class You(WireModel):
    """Who the viewer is at this table. ``can_sit``: it came through the join link, the host
    key or a club, so before the start it may take a free chair (a watch link's viewer may not,
    and is not offered one)."""

    role: Role
    seat: Seat | None = None
    host: bool = False
    name: str
    can_sit: bool = False


class SeenPlay(WireModel):
    """A public entry of this hand's history: a play, or a missed-cards take (``card`` None)."""

    packet: int
    seat: Seat
    card: CardCode | None
    take: list[CardCode]
    caida: bool


class GameView(WireModel):
    """One viewer's view of the game, built only from ``engine.views`` (one redaction path).

    ``hand`` is the viewer's own hand (None for spectators); other hands appear only as sizes.
    ``announced`` holds (seat, call) pairs of this packet, never a ronda's rank (R6);
    ``rondas`` the (packet, seat) of every ronda announced this hand, ranks hidden (R6).
    """

    profile: str
    options: dict[str, OptionValue]
    seats: int
    phase: Literal["announce", "play", "claims", "waiting", "finished"]
    viewer: Seat | None
    hand_number: int
    packet: int
    dealer: Seat
    turn: Seat | None
    to_act: list[Seat]
    scores: list[int]
    piles: list[int]
    table: list[CardCode]
    hand: list[CardCode] | None
    hand_sizes: list[int]
    undealt: int
    caida_target: CardCode | None
    missed: list[CardCode]
    missed_takers: list[Seat]
    history: list[SeenPlay]
    announced: list[tuple[Seat, str]]
    rondas: list[tuple[int, Seat]]
    cuarenta: tuple[Seat, list[CardCode]] | None
    claims_open: bool
    claims_ended: list[bool]
    claims: list[tuple[Seat, str, bool]]
    draw_start: Seat | None
    draw_cards: list[CardCode]
    winner: Team | Literal["draw"] | None


class ChatLine(WireModel):
    type: Literal["chat"] = "chat"
    channel: Literal["players", "spectators"]
    name: PlayerName
    seat: Seat | None
    text: ChatText


class Snapshot(WireModel):
    """Everything a viewer needs to draw the table now; ``legal`` is non-empty on its decision.
    ``chat`` holds the last lines (at most 50) this viewer may read, oldest first: whole
    snapshots only (a newcomer, a reload, a resume); an update's snapshot leaves it out, each new
    line coming as a ``chat`` message."""

    type: Literal["snapshot"] = "snapshot"
    last_event: int
    you: You
    info: TableInfo
    view: GameView | None
    legal: list[GameAction] = Field(default_factory=list)
    deadlines: list[Deadline] = Field(default_factory=list)
    chat: list[ChatLine] = Field(default_factory=list)


# --- numbered events ----------------------------------------------------------------------------


class Event(WireModel):
    """Event number ``n`` of the table's log: a table event or a game event (redacted for the
    viewer), or an event this version does not know."""

    type: Literal["event"] = "event"
    n: int = Field(ge=1)
    event: KnownEvent | UnknownEvent = Field(union_mode="left_to_right")


# --- one change, one frame -----------------------------------------------------------------------


class SnapshotChange(WireModel):
    """An update's snapshot: it leaves out what the viewer's previous snapshot already holds.

    ``info`` is None when the table's info is as in that snapshot, and ``view.history`` holds
    the hand's entries from ``history_from`` on: the first ``history_from`` entries are the
    previous snapshot's (a hand's history only grows). Most of a snapshot's bytes are the info
    and the history, so an update is a third of a whole snapshot. ``whole`` puts them back.
    """

    type: Literal["snapshot"] = "snapshot"
    last_event: int
    you: You
    info: TableInfo | None
    view: GameView | None
    legal: list[GameAction] = Field(default_factory=list)
    deadlines: list[Deadline] = Field(default_factory=list)
    history_from: int = Field(default=0, ge=0)

    def whole(self, info: TableInfo | None, history: list[SeenPlay] | None) -> Snapshot:
        """The whole snapshot, given the ``info`` and ``history`` of the viewer's previous
        snapshot (None: it has none)."""
        view = self.view
        if self.info is not None:
            info = self.info
        elif info is None:
            raise ProtocolError("an update left out the table info before any snapshot")
        if self.history_from:
            if view is None or history is None or len(history) < self.history_from:
                raise ProtocolError(
                    f"an update continues a history of {self.history_from} entries "
                    "that no previous snapshot holds"
                )
            view = view.model_copy(
                update={"history": [*history[: self.history_from], *view.history]}
            )
        return Snapshot(
            last_event=self.last_event,
            you=self.you,
            info=info,
            view=view,
            legal=self.legal,
            deadlines=self.deadlines,
        )


class Update(WireModel):
    """One change at the table as one viewer gets it, in one frame.

    It means, in order: ``ack`` of the viewer's own request ``rid`` (when set), each numbered
    ``event`` (contiguous, redacted for this viewer), then ``snapshot``: the viewer's new state,
    with its legal actions when it must decide, told as a change of the viewer's previous
    snapshot (`SnapshotChange`). ``unfold`` gives exactly that sequence.
    """

    type: Literal["update"] = "update"
    rid: RequestId | None = None
    events: list[Event]
    snapshot: SnapshotChange

    def unfold(self, previous: Snapshot | None) -> list[Ack | Event | Snapshot]:
        """The messages this update stands for, in the order a client handles them, given
        the viewer's previous snapshot (the last one received or unfolded)."""
        view = previous.view if previous is not None else None
        info = previous.info if previous is not None else None
        return self.unfold_after(info, view.history if view is not None else None)

    def unfold_after(
        self, info: TableInfo | None, history: list[SeenPlay] | None
    ) -> list[Ack | Event | Snapshot]:
        """``unfold``, given only the previous snapshot's info and history."""
        head: list[Ack | Event | Snapshot] = [] if self.rid is None else [Ack(rid=self.rid)]
        return [*head, *self.events, self.snapshot.whole(info, history)]


class Change(WireModel):
    """Protocol 4's ``update``: one change at the table as one viewer gets it, in one frame.

    It means, in order: ``ack`` of the viewer's own request ``rid`` (when set), then each
    numbered ``event`` (contiguous, redacted for this viewer), which the client applies to its
    view (``protocol.follow``); the last one's number is the viewer's ``last_event``. Then only
    what the events cannot tell, each left out (null) when as the viewer last had it: ``you``,
    the table ``info``, ``deadlines``; ``legal`` is the viewer's legal list when it must decide
    (else empty); ``view`` is the whole view when ``you`` changed during a game (a seat taken
    over). A gap in the numbers, or an event the view cannot take, asks for a ``sync``.
    """

    type: Literal["change"] = "change"
    rid: RequestId | None = None
    events: list[Event]
    you: You | None = None
    info: TableInfo | None = None
    view: GameView | None = None
    legal: list[GameAction] = Field(default_factory=list)
    deadlines: list[Deadline] | None = None


# --- unnumbered pushes --------------------------------------------------------------------------


class Presence(WireModel):
    """Who is connected, who is a bot, how many watch (public): sent when it changes between
    updates. It replaces ``info.seats`` and ``info.spectators`` of the last snapshot."""

    type: Literal["presence"] = "presence"
    seats: list[SeatInfo]
    spectators: int


class Deadlines(WireModel):
    type: Literal["deadlines"] = "deadlines"
    deadlines: list[Deadline]


class Goodbye(WireModel):
    """The server ends this viewer's place at the table (kicked, the seat resumed on another
    connection, the table moved to another process); the socket is closed at once with 1000."""

    type: Literal["goodbye"] = "goodbye"
    reason: str


ServerMessage = Annotated[
    Welcome
    | Ack
    | Error
    | Pong
    | TableCreated
    | Seated
    | RecordMessage
    | Snapshot
    | Event
    | Update
    | Change
    | Presence
    | Deadlines
    | ChatLine
    | Goodbye
    | Hint
    | LadderState
    | LadderBoard
    | LadderSynced
    | ClubNight
    | ClubSeat
    | PlayerAnswer,
    Field(discriminator="type"),
]
