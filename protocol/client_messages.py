"""Every message a client sends, as one discriminated union on ``type``.

A request carries ``rid`` (chosen by the client); the server answers each request with either an
``ack`` or an ``error`` naming that ``rid``, plus whatever events and snapshots the request caused.
Game actions may carry ``at``: the last event number the client saw; if the table has moved on
since, the action is refused as ``stale`` rather than applied to a position the player never saw.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from protocol.base import (
    MAX_TAKE_CARDS,
    BotLevel,
    CardCode,
    ChatText,
    Key,
    MoveDeadline,
    OnDeadline,
    Options,
    PlayerName,
    Profile,
    RankCode,
    RequestId,
    Seat,
    TurnTimer,
    WireModel,
)
from protocol.clubs import ClubRequest
from protocol.coach import HintRequest, SetHints
from protocol.ladder import LadderRequest
from protocol.players import PlayerKey, PlayerRequest

ClubSlug = Annotated[
    str, StringConstraints(min_length=1, max_length=48, pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
]
"""A club table's stable key, its name's slug (``/t/quito``): any length, lower case, ``-``."""

TableKey = Key | ClubSlug
"""What a table link carries: a random key (long, opaque) or a club's slug."""


class Request(WireModel):
    rid: RequestId = 0


# --- connection ---------------------------------------------------------------------------------


class Hello(Request):
    """The first message on every connection (within the hello deadline): the protocol version
    and who is calling.

    ``resume`` is a seat token from an earlier connection and ``last_event`` the last event
    number that connection saw: after ``welcome`` the server re-seats the caller (``seated``)
    and sends exactly the events after ``last_event``, then a snapshot. A token that holds no
    seat (a host key is none: use it with ``join`` or ``watch``) gets an ``error`` with code
    ``bad_token`` instead, and the connection stays open at no table.

    ``player_key`` names the person across tables and visits (``protocol.players``): the
    requests about their name, games, friends and rating need it.
    """

    type: Literal["hello"] = "hello"
    version: int = Field(ge=0)
    name: PlayerName = "guest"
    resume: Key | None = None
    last_event: int | None = Field(default=None, ge=0)
    player_key: PlayerKey | None = None


class Ping(Request):
    type: Literal["ping"] = "ping"


class Sync(Request):
    """Send me my whole snapshot again (protocol 4: a client that saw a gap in the events, or
    an event its view could not follow, starts over from it). Answered ``ack``, then the
    snapshot."""

    type: Literal["sync"] = "sync"


# --- tables -------------------------------------------------------------------------------------


class CreateTable(Request):
    """Create a table: the answer is ``table_created`` with its join, watch and host keys.

    The creator is not at the table yet: it takes a seat (``join``) or watches (``watch``) with
    the host key to hold the host's powers. A ``public`` table is listed with its watch link in
    the lobby (``/tables``); off by default. A ``casual`` table is not rated: its games are
    kept in its players' histories and change nobody's rating. A ``move_deadline`` makes the
    table turn-based: nobody need be connected, each person has that long for each decision,
    and ``on_deadline`` says what happens when it passes (fixed for the table's life, shown to
    everyone before they sit). Creations are limited per client address.
    """

    type: Literal["create"] = "create"
    profile: Profile = "pagat-4p"
    options: Options = Field(default_factory=dict)
    turn_timer: TurnTimer = 0
    public: bool = False
    casual: bool = False
    move_deadline: MoveDeadline = 0
    on_deadline: OnDeadline = "stand_in"


class Join(Request):
    """Take a seat through a join link (or the host key): ``seat`` or the first free one."""

    type: Literal["join"] = "join"
    key: TableKey
    seat: Seat | None = None


class Watch(Request):
    """Watch through the watch link, the join link or the host key: public information only."""

    type: Literal["watch"] = "watch"
    key: TableKey


class Leave(Request):
    """Leave the table; a seated player's seat is freed (before the start) or left to a bot."""

    type: Literal["leave"] = "leave"


class Sit(Request):
    """Before the start: move to (or, as a spectator holding the join key, take) a free seat."""

    type: Literal["sit"] = "sit"
    seat: Seat


class Stand(Request):
    """Before the start: give up the seat and keep watching."""

    type: Literal["stand"] = "stand"


class Swap(Request):
    """Before the start: exchange two seats' occupants (host), or move to an empty/bot seat."""

    type: Literal["swap"] = "swap"
    seat: Seat
    other: Seat


# --- host controls ------------------------------------------------------------------------------


class AddBot(Request):
    """Host: seat a bot of ``level`` in ``seat`` or the first free seat."""

    type: Literal["add_bot"] = "add_bot"
    level: BotLevel = 3
    seat: Seat | None = None


class RemoveBot(Request):
    type: Literal["remove_bot"] = "remove_bot"
    seat: Seat


class Kick(Request):
    """Host: remove a person from a seat (before the start; during a game a bot takes over)."""

    type: Literal["kick"] = "kick"
    seat: Seat


class Lock(Request):
    """Host: a locked table lets nobody new sit down through the join link."""

    type: Literal["lock"] = "lock"
    locked: bool = True


class SetOptions(Request):
    """Host, before the start: change the profile's house options (R13), the turn timer and
    whether the table is ``casual`` (not rated; null keeps it)."""

    type: Literal["set_options"] = "set_options"
    options: Options = Field(default_factory=dict)
    turn_timer: TurnTimer | None = None
    casual: bool | None = None


class Start(Request):
    """Host: start the game once every seat is filled."""

    type: Literal["start"] = "start"


class RuleMisdeal(Request):
    """Host as referee: declare a misdeal (R5) after a packet is dealt, before its first card."""

    type: Literal["misdeal"] = "misdeal"


class Rematch(Request):
    """A seated player asks for a new game with the same seats; it starts when all have asked."""

    type: Literal["rematch"] = "rematch"


class NoClaim(Request):
    """A seated player has nothing (more) to claim in the R10 window: not a game action, so the
    record is unchanged; the window closes at once when every seat that may claim is done."""

    type: Literal["no_claim"] = "no_claim"


class GetRecord(Request):
    """A player or the host asks for the finished game's R15 record."""

    type: Literal["get_record"] = "get_record"


# --- game actions -------------------------------------------------------------------------------


class Action(Request):
    """A game action; ``at``: the last event number the client saw (see the introduction)."""

    at: int | None = Field(default=None, ge=0)


class Play(Action):
    """Play ``card`` taking exactly ``take`` (basis and sequence, any order); ``[]`` trails (R7)."""

    type: Literal["play"] = "play"
    card: CardCode
    take: list[CardCode] = Field(default_factory=list, max_length=MAX_TAKE_CARDS)


class TakeMissed(Action):
    """Take the missed sequence cards the other team left (R8)."""

    type: Literal["take_missed"] = "take_missed"


class Announce(Action):
    """Manual announcement after a packet (R6)."""

    type: Literal["announce"] = "announce"
    call: Literal["ronda", "cuarenta", "pass"]


class Claim(Action):
    """Claim the ronda-caída award by naming the rank (R10)."""

    type: Literal["claim"] = "claim"
    rank: RankCode


# --- chat ---------------------------------------------------------------------------------------


class Chat(Request):
    """Players talk to the table; spectators talk among spectators only."""

    type: Literal["chat"] = "chat"
    text: ChatText


GameAction = Play | TakeMissed | Announce | Claim

ClientMessage = Annotated[
    Hello
    | Ping
    | Sync
    | CreateTable
    | Join
    | Watch
    | Leave
    | Sit
    | Stand
    | Swap
    | AddBot
    | RemoveBot
    | Kick
    | Lock
    | SetOptions
    | Start
    | RuleMisdeal
    | Rematch
    | NoClaim
    | GetRecord
    | Play
    | TakeMissed
    | Announce
    | Claim
    | Chat
    | HintRequest
    | SetHints
    | LadderRequest
    | ClubRequest
    | PlayerRequest,
    Field(discriminator="type"),
]
