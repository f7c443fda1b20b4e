"""A person away from the table: their turn-based tables, and the notices that call them back.

Like the requests of ``protocol.players`` these need a player key in ``hello`` (else
``no_player``):

- ``turns`` lists the person's turn-based tables, the ones waiting for them first
  (``Turns``): what ``/me`` shows, with the join link of each (they sit there).
- ``push_key`` answers the server's VAPID public key (``PushKey``), which the browser's
  ``PushManager.subscribe`` needs as its ``applicationServerKey``; ``push_subscribe`` keeps the
  subscription the browser made (its endpoint and keys, RFC 8291) for this person, and
  ``push_unsubscribe`` forgets one. A subscription the push service says is gone (404, 410) is
  forgotten by the server itself.
- ``notice_settings`` reads and ``set_notice_settings`` changes which kinds of notice the
  person gets and their quiet hours (minutes after midnight in their own IANA time zone; no
  notice is pushed inside them). The answer to both is ``NoticeSettings``.

A push carries no key: its JSON payload is ``{"kind", "url", "table", "deadline", "detail",
"warning", "pace"}``, encrypted for the subscription (aes128gcm). ``url`` is
``/me?open=<table>`` for ``your_turn`` and ``deadline_near``, ``/me?invite=<table>`` for
``friend_invite`` (the page then asks ``invitations``, whose answer alone holds the join key)
and ``/c/<club>`` for ``night_round`` (the club's page seats a member); ``detail`` is the last
play, the inviter's name or the club. ``warning`` is ``forfeit_next`` on a ``your_turn`` or
``deadline_near`` of a side that missed its last deadline at a forfeit table (one more missed
turn forfeits the game), else "". ``pace`` is a ``night_round``'s seconds a move (0: the round
is live; null for the other kinds).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from protocol.base import Key, RequestId, WireModel

NoticeKindName = Literal["your_turn", "deadline_near", "friend_invite", "night_round"]
Base64Url = Annotated[str, StringConstraints(min_length=8, max_length=200, pattern=r"^[\w-]+=*$")]
Minute = Annotated[int, Field(ge=0, lt=24 * 60)]


class TurnsRequest(WireModel):
    type: Literal["turns"] = "turns"
    rid: RequestId = 0


class PushKeyRequest(WireModel):
    type: Literal["push_key"] = "push_key"
    rid: RequestId = 0


class PushSubscribe(WireModel):
    """Keep the browser's push subscription (``PushSubscription.toJSON()``'s fields)."""

    type: Literal["push_subscribe"] = "push_subscribe"
    rid: RequestId = 0
    endpoint: Annotated[str, StringConstraints(min_length=10, max_length=1024)]
    p256dh: Base64Url
    auth: Base64Url


class PushUnsubscribe(WireModel):
    type: Literal["push_unsubscribe"] = "push_unsubscribe"
    rid: RequestId = 0
    endpoint: Annotated[str, StringConstraints(min_length=10, max_length=1024)]


class NoticeSettingsRequest(WireModel):
    type: Literal["notice_settings"] = "notice_settings"
    rid: RequestId = 0


class SetNoticeSettings(WireModel):
    """Which kinds are off, and the quiet hours (both None: none) in ``time_zone``."""

    type: Literal["set_notice_settings"] = "set_notice_settings"
    rid: RequestId = 0
    off: list[NoticeKindName] = Field(default_factory=list, max_length=4)
    quiet_from: Minute | None = None
    quiet_to: Minute | None = None
    time_zone: Annotated[str, StringConstraints(min_length=1, max_length=64)] = "UTC"


AwayRequest = (
    TurnsRequest
    | PushKeyRequest
    | PushSubscribe
    | PushUnsubscribe
    | NoticeSettingsRequest
    | SetNoticeSettings
)

# --- server to client ---------------------------------------------------------------------------


class TurnSeat(WireModel):
    name: str | None = None
    player: str | None = None
    bot_level: int | None = None


class TurnLine(WireModel):
    """One turn-based table of the person's: ``your_turn`` if it waits for them, until
    ``deadline`` (server epoch seconds). ``forfeit``: its game ended by a forfeit (two missed
    deadlines in a row), which the person's side ``won`` or ``lost``."""

    table: str
    profile: str
    join_key: Key
    stage: Literal["lobby", "playing", "finished"]
    game: int
    seats: list[TurnSeat]
    your_turn: bool
    waiting_for: list[str] = Field(default_factory=list)  # the names of the people awaited
    deadline: float | None = None
    last_play: str = ""
    scores: list[int]
    move_deadline: int
    on_deadline: str
    forfeit: Literal["won", "lost"] | None = None


class Turns(WireModel):
    type: Literal["turns"] = "turns"
    rid: RequestId = 0
    tables: list[TurnLine]
    server_time: float


class PushKey(WireModel):
    type: Literal["push_key"] = "push_key"
    rid: RequestId = 0
    public_key: str  # the VAPID public key, base64url (an uncompressed P-256 point)


class NoticeSettings(WireModel):
    type: Literal["notice_settings"] = "notice_settings"
    rid: RequestId = 0
    off: list[NoticeKindName]
    quiet_from: int | None = None
    quiet_to: int | None = None
    time_zone: str = "UTC"
    devices: int = 0  # how many push subscriptions the person has


AwayAnswer = Turns | PushKey | NoticeSettings
