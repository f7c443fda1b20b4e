"""People who come back: the player key, and the requests about one's own name, games, friends
and rating.

A browser makes its **player key** on the first visit (32 random bytes, base64url: 43
characters) and keeps it. It sends the key in one place only: `hello.player_key`, on the
WebSocket. The server answers with `welcome` as ever; the requests `me`, `set_me`, `history`,
`friend`, `friends`, `invite`, `invitations` and `forget_me` then concern the person that key
names (without a key in `hello` they are refused with `no_player`); `leaderboard` needs none.

The same key on another tab or device is the same person: a `join` at a table where that person
holds a seat takes the seat back, as the seat token does (the old connection gets `goodbye`).
At a seat, a person shows their public id (`SeatInfo.player`) and their chosen name. When a
game they sat in ends, each person is sent `rated` (their change of rating; nothing changes at
a `casual` table). A friend online at a table is shown there in `friends`; `invite` sends that
friend `invited`, with the join key of the inviter's table.

Why the WebSocket and not HTTP routes (`/me.json`): a query string is written to access logs
(the server's, the proxy's, the browser's history), and a key in a log is a key lost. The socket
carries the key once, in a binary frame nobody logs, and the page already holds the socket; so
there is no HTTP route that takes a player key. To move a key to another device, the client
shows a link that carries it in the URL *fragment* (`/#player=…`): browsers never send a
fragment to any server.

Others see a person by their **public id** (a random token unrelated to the key) and name; a
key is never sent to anyone, its owner included (the browser has it already).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from protocol.away import AwayAnswer, AwayRequest
from protocol.base import Key, PlayerName, RequestId, WireModel

PLAYER_KEY_MIN_CHARS = 32
PLAYER_KEY_MAX_CHARS = 64

PlayerKey = Annotated[
    str,
    StringConstraints(
        min_length=PLAYER_KEY_MIN_CHARS,
        max_length=PLAYER_KEY_MAX_CHARS,
        pattern=r"^[A-Za-z0-9_-]+$",
    ),
]
"""A player key: base64url text, 32 to 64 characters (the browser makes 43 from 32 random
bytes). Anything else is ``invalid_message``, and the connection is greeted as no one."""

PlayerId = Annotated[
    str, StringConstraints(min_length=8, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")
]
"""A person's public id, as others see it."""

Language = Literal["es", "en", "pt"]
DEFAULT_LANGUAGE: Language = "es"

ProfileClass = Literal["pairs", "duel"]
"""What a rating is for: ``pairs`` (``pagat-4p``, two teams of two) or ``duel`` (``heads-up``
and ``libre-2p``, one against one)."""

FriendAction = Literal["request", "accept", "refuse", "remove", "block", "unblock"]

MAX_PAGE = 50

# --- client to server ---------------------------------------------------------------------------


class MeRequest(WireModel):
    """Ask who this connection's player is: name, language, ratings (answered by ``me``)."""

    type: Literal["me"] = "me"
    rid: RequestId = 0


class SetMe(WireModel):
    """Change this player's name and/or language (answered by ``me``)."""

    type: Literal["set_me"] = "set_me"
    rid: RequestId = 0
    name: PlayerName | None = None
    language: Language | None = None


class HistoryRequest(WireModel):
    """A page of this player's finished games, newest first: ``count`` games after the first
    ``skip`` (answered by ``history``)."""

    type: Literal["history"] = "history"
    rid: RequestId = 0
    skip: int = Field(default=0, ge=0, le=10_000)
    count: int = Field(default=20, ge=1, le=MAX_PAGE)


class Friend(WireModel):
    """Act on another person by public id (answered by ``friends``).

    ``request`` asks them to be friends (a request to someone who asked you already makes you
    friends); ``accept`` / ``refuse`` answer their request; ``remove`` ends a friendship or
    withdraws a request; ``block`` also ends both, and their requests are dropped silently
    from then on; ``unblock`` undoes it. At most 20 requests may wait for an answer and 10
    may be sent a minute (``rate_limited``).
    """

    type: Literal["friend"] = "friend"
    rid: RequestId = 0
    action: FriendAction
    player: PlayerId


class FriendsRequest(WireModel):
    """Ask for this player's friends and requests (answered by ``friends``)."""

    type: Literal["friends"] = "friends"
    rid: RequestId = 0


class LeaderboardRequest(WireModel):
    """Ask for the best shown ratings of a profile class (answered by ``leaderboard``)."""

    type: Literal["leaderboard"] = "leaderboard"
    rid: RequestId = 0
    profile_class: ProfileClass


class ForgetMe(WireModel):
    """Forget this player: name, ratings, history, friends (answered by ``ack``). Finished
    games' records keep the names they were played under. ``confirm`` must be true."""

    type: Literal["forget_me"] = "forget_me"
    rid: RequestId = 0
    confirm: Literal[True]


class Invite(WireModel):
    """Invite a friend (by public id) to the table this connection is at (answered by
    ``ack``). A friend who is online receives ``invited`` with the table's join key; every
    friend invited is also kept the invitation (``invitations`` lists it, for three days) and
    pushed a ``friend_invite`` notice (no key in it: it opens ``/me?invite=<table>``). Someone
    who is not a friend or blocked the inviter is told nothing (``ack`` all the same: an
    invitation reveals no one). At most 10 invitations a minute (``rate_limited``);
    at no table: ``not_at_table``."""

    type: Literal["invite"] = "invite"
    rid: RequestId = 0
    player: PlayerId


class InvitationsRequest(WireModel):
    """The invitations this person has not answered yet, the newest first (``invitations``).
    ``drop``: forget those to that table first (the person sat there, or said no)."""

    type: Literal["invitations"] = "invitations"
    rid: RequestId = 0
    drop: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


PlayerRequest = (
    MeRequest
    | SetMe
    | HistoryRequest
    | Friend
    | FriendsRequest
    | LeaderboardRequest
    | ForgetMe
    | Invite
    | InvitationsRequest
    | AwayRequest
)

# --- server to client ---------------------------------------------------------------------------


class RatingLine(WireModel):
    """A rating as shown: ``rating`` = round(40 μ) (1000 for a newcomer); ``games`` rated."""

    profile_class: ProfileClass
    rating: int
    games: int = Field(ge=0)


class Person(WireModel):
    """Another person: public id and current name."""

    id: str
    name: str


class FriendLine(Person):
    """A friend, and where they are: ``online`` (connected now, to any process) and the
    ``table`` they sit at (its id; a table link is sent only by an invitation)."""

    online: bool = False
    table: str | None = None


class Me(WireModel):
    """This connection's player (never the key)."""

    type: Literal["me"] = "me"
    rid: RequestId = 0
    id: str
    name: str
    language: Language
    ratings: list[RatingLine]


class PastSeat(WireModel):
    """Someone at a finished game, as named then: a person (``id``), a guest or a bot."""

    name: str
    id: str | None = None
    bot_level: int | None = None


class PastGame(WireModel):
    """A finished game from this player's seat: ``score`` is [theirs, the other side's];
    ``rating_change`` null for a casual game; ``accuracy`` the coach's figure for this
    player's play (0-100), null until the game's review is done; ``by`` is ``forfeit`` when
    the game ended by a turn-based side's two missed deadlines in a row (``result`` says which
    side this player was on), null when it ended by the rules."""

    finished_at: float
    profile: str
    table: str
    game: int
    partners: list[PastSeat]
    opponents: list[PastSeat]
    score: list[int]
    result: Literal["won", "lost", "draw"]
    rating_change: int | None
    casual: bool
    accuracy: float | None = None
    by: Literal["forfeit"] | None = None


class History(WireModel):
    """A page of finished games, newest first; ``more``: older games follow."""

    type: Literal["history"] = "history"
    rid: RequestId = 0
    skip: int
    games: list[PastGame]
    more: bool


class Friends(WireModel):
    """Friends, requests received and sent (newest first), and the people this player blocked."""

    type: Literal["friends"] = "friends"
    rid: RequestId = 0
    friends: list[FriendLine]
    incoming: list[Person]
    outgoing: list[Person]
    blocked: list[Person]


class LeaderLine(WireModel):
    rank: int = Field(ge=1)
    id: str
    name: str
    rating: int
    games: int


class Leaderboard(WireModel):
    """The best shown ratings of a class, among people with enough rated games."""

    type: Literal["leaderboard"] = "leaderboard"
    rid: RequestId = 0
    profile_class: ProfileClass
    min_games: int
    lines: list[LeaderLine]


class Invited(WireModel):
    """A friend invites this player to their table: ``join`` with ``join_key`` to take a free
    chair (the key is this table's join link, for this player alone)."""

    type: Literal["invited"] = "invited"
    by: Person
    table: str
    profile: str
    join_key: Key


class Invitation(WireModel):
    """One invitation kept for this person: ``by`` invited them to ``table`` at ``at`` (server
    epoch seconds); ``join_key`` takes a free chair there (for this person alone)."""

    by: Person
    table: str
    profile: str
    join_key: Key
    at: float


class Invitations(WireModel):
    """This person's pending invitations, to tables that are still there (the newest first)."""

    type: Literal["invitations"] = "invitations"
    rid: RequestId = 0
    invitations: list[Invitation]


class Rated(WireModel):
    """A game this player sat in ended and was recorded: ``change`` of the shown rating and the
    new ``rating`` of its class (both null at a casual table: nothing changed)."""

    type: Literal["rated"] = "rated"
    table: str
    game: int
    profile_class: ProfileClass
    casual: bool
    change: int | None = None
    rating: int | None = None


PlayerAnswer = Me | History | Friends | Leaderboard | Invited | Invitations | Rated | AwayAnswer
