"""A club night's messages: members, the night's pairs and rounds, the host's commands.

``club_open`` shows a club's night on this connection (and keeps it informed: every change is
pushed as a ``club_night`` message); with ``member`` the sender is listed as a member under its
name (and its optional public player id), so a round can seat it: a ``club_seat`` message names
the table and the seat to take with an ordinary ``join``. The host's commands carry the club's
host key in the message (never in a URL): ``club_pair`` registers a pair, ``club_withdraw``
withdraws one, ``club_start`` starts the night (Swiss of N rounds, or groups then knock-out),
``club_round`` starts the next round (numbered: sent twice it starts once), ``club_rule`` ends a
stuck table by a referee ruling. Each is answered by ``club_night`` or an ``error``.

A night is played live or turn-based (``move_deadline``, as at ``create``): ``club_start`` sets
the night's pace and ``club_round`` may set another for the round it starts; the round's tables
are created at that pace (the stand-in plays a missed deadline's turn). The night's state shows
``pace`` (the night's) and ``paces`` (each started round's, in order).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from protocol.base import BotLevel, Key, MoveDeadline, PlayerName, RequestId, Seat, WireModel

ClubSlug = Annotated[str, StringConstraints(min_length=1, max_length=48, pattern=r"^[a-z0-9-]+$")]
"""A club's slug (``/c/<slug>``)."""
PlayerId = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^[\w-]+$")]
"""A person's public player id (never the player key)."""
PairId = Annotated[str, StringConstraints(min_length=1, max_length=12, pattern=r"^[\w-]+$")]

# --- client to server ---------------------------------------------------------------------------


class ClubOpen(WireModel):
    """Follow ``club``'s night; ``member``: be listed as a member (seated by the rounds);
    ``key``: the club's host key, for the host's view (a wrong key is ``forbidden``)."""

    type: Literal["club_open"] = "club_open"
    rid: RequestId = 0
    club: ClubSlug
    member: bool = False
    player: PlayerId | None = None
    key: Key | None = None


class ClubPair(WireModel):
    """Register a pair: two members, or one member and a bot of ``bot_level``."""

    type: Literal["club_pair"] = "club_pair"
    rid: RequestId = 0
    club: ClubSlug
    key: Key
    members: list[PlayerName] = Field(min_length=1, max_length=2)
    bot_level: BotLevel | None = None


class ClubWithdraw(WireModel):
    """Withdraw ``pair``: paired no more; its game not yet finished is a walkover."""

    type: Literal["club_withdraw"] = "club_withdraw"
    rid: RequestId = 0
    club: ClubSlug
    key: Key
    pair: PairId


class ClubStart(WireModel):
    """Start the night with the pairs registered: ``swiss`` of ``rounds`` rounds, or ``groups``
    of four then a knock-out with repechage (``rounds`` ignored); its rounds are played at
    ``move_deadline`` (0: live; else turn-based, that many seconds a move) unless a round's
    ``club_round`` says otherwise."""

    type: Literal["club_start"] = "club_start"
    rid: RequestId = 0
    club: ClubSlug
    key: Key
    format: Literal["swiss", "groups"] = "swiss"
    rounds: int = Field(default=3, ge=1, le=12)
    move_deadline: MoveDeadline = 0


class ClubRound(WireModel):
    """Pair and start round ``round`` (the next one): its tables are opened and seated, played
    at ``move_deadline`` (None: the night's pace; 0: live; else turn-based). A round's pace is
    fixed once it started."""

    type: Literal["club_round"] = "club_round"
    rid: RequestId = 0
    club: ClubSlug
    key: Key
    round: int = Field(ge=1, le=64)
    move_deadline: MoveDeadline | None = None


class ClubRule(WireModel):
    """End the current round's game at ``table`` by a ruling: the score ``score_a``-``score_b``
    awarded, or (both None) the game ended as it stands (its current score)."""

    type: Literal["club_rule"] = "club_rule"
    rid: RequestId = 0
    club: ClubSlug
    key: Key
    table: int = Field(ge=1, le=256)
    score_a: int | None = Field(default=None, ge=0, le=999)
    score_b: int | None = Field(default=None, ge=0, le=999)


ClubRequest = ClubOpen | ClubPair | ClubWithdraw | ClubStart | ClubRound | ClubRule

# --- server to client ---------------------------------------------------------------------------


class ClubNight(WireModel):
    """A club's night as everyone may see it: members, pairs, rounds with their tables' join and
    watch links, standings, past nights and the season (plain JSON values; ``host`` is true on
    the host's connection). ``night`` is None before the host registers the first pair; its
    ``pace`` is the night's and ``paces`` each started round's (``{"move_deadline": s,
    "on_deadline": "stand_in"}``, 0 s: live), and each table says its ``move_deadline``."""

    type: Literal["club_night"] = "club_night"
    rid: RequestId = 0
    club: str
    host: bool = False
    state: dict[str, Any]


class ClubSeat(WireModel):
    """Where a member plays this round: ``join`` the table's ``join_key`` at ``seat``; the
    round is played at ``move_deadline`` (seconds a move; 0: live), which the page says."""

    type: Literal["club_seat"] = "club_seat"
    club: str
    round: int
    table: int
    join_key: str
    seat: Seat
    move_deadline: MoveDeadline = 0
