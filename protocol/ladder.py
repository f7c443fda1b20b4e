"""The solo streak ladder's messages (R14): one person against bots of rising level.

A browser keeps one opaque **ladder token** (no accounts). ``ladder_open`` shows the ladder (and
issues a token the first time); ``ladder_play`` deals the next chica — or hands back the one in
progress — as an ordinary ``heads-up`` table whose seat token the client resumes with ``hello``;
``ladder_new`` ends the streak and deals a fresh chica at level 1. Every ladder request is
answered by a ``ladder`` message (the whole ladder state) or an ``error``; ``ladder_board`` by
``ladder_board``. The server settles a finished chica from the table's own log, never from the
client's word.

``ladder_sync`` hands in a chica played offline, in the pocket (issue 42), by its R15 record in
a compact form that fits a client frame (packs as 80-character strings of card codes, the
actions in their one-line text form joined by ``;``, in chunks): the server rebuilds the
record, replays it, and counts it once on the ladder's pocket tally (a record sent again is
recognised by its digest and not counted twice), answered by ``ladder_synced``. Its result is
the replay's, never the client's word; an offline chica never touches the streak or the board
(the record cannot show which bot the person played).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from protocol.base import Key, RequestId, Seat, WireModel

MAX_LADDER_NAME_CHARS = 20

LadderName = Annotated[str, StringConstraints(max_length=MAX_LADDER_NAME_CHARS * 2)]
"""A leaderboard name as sent; the server trims and checks it (letters, digits, a few marks)."""

# --- client to server ---------------------------------------------------------------------------


class LadderOpen(WireModel):
    """Show the ladder of ``token`` (a new one when None or unknown); settle a finished chica."""

    type: Literal["ladder_open"] = "ladder_open"
    rid: RequestId = 0
    token: Key | None = None


class LadderPlay(WireModel):
    """Deal the next chica against the bot of the ladder's level, or return the one in progress."""

    type: Literal["ladder_play"] = "ladder_play"
    rid: RequestId = 0
    token: Key


class LadderNew(WireModel):
    """ "Nuevo" / "New": end the streak (R14) and deal a fresh chica against a level-1 bot."""

    type: Literal["ladder_new"] = "ladder_new"
    rid: RequestId = 0
    token: Key


class LadderRename(WireModel):
    """Set (or clear, with null or "") the name shown next to this ladder's best score."""

    type: Literal["ladder_name"] = "ladder_name"
    rid: RequestId = 0
    token: Key
    name: LadderName | None = None


class LadderBoardRequest(WireModel):
    """Ask for the public leaderboard of best saved scores."""

    type: Literal["ladder_board"] = "ladder_board"
    rid: RequestId = 0


PackText = Annotated[str, StringConstraints(min_length=80, max_length=80)]
"""A hand's pack: its 40 card codes run together (``QH3H6C…``), in the order dealt (R4, R14)."""
ActionsText = Annotated[str, StringConstraints(max_length=1000)]
"""Actions in their one-line text form (``0 3H``, ``1 6D:3H``) joined by ``;``."""


class LadderSync(WireModel):
    """Count a chica played offline (a finished ``heads-up`` game, the person at seat 0) on this
    ladder's pocket tally, once. Its R15 record, compactly: the first dealer or the diamond
    draw (its start seat and cards run together), the packs, and the actions — every chunk's
    actions, in order, joined by ``;`` (a chunk ends at an action's end)."""

    type: Literal["ladder_sync"] = "ladder_sync"
    rid: RequestId = 0
    token: Key
    dealer: Seat | None = None
    draw_start: Seat | None = None
    draw: Annotated[str, StringConstraints(max_length=80)] = ""
    packs: list[PackText]
    actions: list[ActionsText]


LadderRequest = LadderOpen | LadderPlay | LadderNew | LadderRename | LadderBoardRequest | LadderSync

# --- server to client ---------------------------------------------------------------------------


class LadderChica(WireModel):
    """The chica in progress: a ``heads-up`` table; resume ``seat`` with ``seat_token``."""

    table: str
    join_key: str
    seat: Seat
    seat_token: str
    level: int = Field(ge=1, le=4)


class LadderResult(WireModel):
    """How the last finished chica counted: ``void`` is a win a stand-in bot played part of."""

    result: Literal["won", "lost", "draw", "abandoned", "void"]
    margin: int
    level: int
    streak: int
    score: int


class LadderState(WireModel):
    """A ladder: the streak, the next bot's level, the running margin, the saved and best scores.

    ``score`` = streak × 10,000 + ``margin`` capped at 9,999 (R14); ``best`` is the best saved
    score this ladder ever reached.
    """

    type: Literal["ladder"] = "ladder"
    rid: RequestId = 0
    token: str
    streak: int = Field(ge=0)
    level: int = Field(ge=1, le=4)
    margin: int = Field(ge=0)
    score: int = Field(ge=0)
    best: int = Field(ge=0)
    name: str | None
    chica: LadderChica | None
    last: LadderResult | None


class BoardLine(WireModel):
    rank: int = Field(ge=1)
    name: str | None
    score: int
    streak: int


class LadderBoard(WireModel):
    """The public leaderboard, best first (names are optional and checked)."""

    type: Literal["ladder_board"] = "ladder_board"
    rid: RequestId = 0
    lines: list[BoardLine]


class LadderSynced(WireModel):
    """A pocket chica checked by replay: its result for seat 0 and the ladder's pocket tally.

    ``counted`` is false when this record was counted before (the tally is unchanged).
    """

    type: Literal["ladder_synced"] = "ladder_synced"
    rid: RequestId = 0
    digest: str
    counted: bool
    result: Literal["won", "lost", "draw"]
    scores: tuple[int, int]
    played: int = Field(ge=0)
    won: int = Field(ge=0)
