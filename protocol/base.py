"""The base of every wire message and the constrained value types they share.

Every message is a frozen pydantic model that forbids unknown fields, so a typo in a client is an
``invalid_message`` error, never a silently ignored field. Card codes follow R2: rank + suit,
accepted in any case, always written upper case.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from protocol.text import clean_text

PROTOCOL_VERSION = 4
"""Bumped on any incompatible change; exchanged in ``hello``/``welcome`` (the first messages).

Version 2: a change at the table reaches each viewer as one ``update`` frame (its events, its new
snapshot and the answer to its own request) instead of an ``ack``, events and a snapshot apart.
Version 3: an update's snapshot leaves out the table info when unchanged and the history entries
the viewer's previous snapshot holds (``SnapshotChange``).
Version 4: a change reaches each viewer as a ``change`` frame: its events and only what they
cannot tell (its legal list, deadlines and info when they changed); the client follows the
events to keep its view (``protocol.follow``) and asks for a snapshot (``sync``) on a gap."""

SUPPORTED_VERSIONS = (3, 4)
"""The versions a server speaks: a ``hello`` names one, and the connection keeps it."""

MAX_NAME_CHARS = 32
MAX_CHAT_CHARS = 280
MAX_KEY_CHARS = 80
MAX_TAKE_CARDS = 12  # a basis plus a sequence can never exceed this (R7)


class WireModel(BaseModel):
    """A frozen message or value: unknown fields are errors, instances are immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_max_length=MAX_KEY_CHARS * 4)


CardCode = Annotated[
    str, StringConstraints(to_upper=True, pattern=r"^[A2-7JQKajqk][CDHScdhs]$", max_length=2)
]
"""A card as R2 writes it: ``6S``, ``JD``; lower case accepted and normalised."""

RankCode = Annotated[str, StringConstraints(to_upper=True, pattern=r"^[A2-7JQKajqk]$")]
"""A rank alone, as a claim names it (R10)."""

Seat = Annotated[int, Field(ge=0, le=3)]
"""A seat number; R1 (four seats) or R14 (two seats, 0 and 1)."""

Team = Annotated[int, Field(ge=0, le=1)]

RequestId = Annotated[int, Field(ge=0, le=2**31 - 1, strict=True)]
"""Chosen by the client; echoed in the ``ack`` or ``error`` that answers the request.

Strict: ``"7"``, ``7.0`` and ``true`` are refused, not coerced to a number the client never sent."""

Key = Annotated[
    str, StringConstraints(min_length=8, max_length=MAX_KEY_CHARS, pattern=r"^[\w.~-]+$")
]
"""A join, watch or host key, or a seat token: opaque URL-safe text."""

PlayerName = Annotated[
    str,
    BeforeValidator(lambda value: clean_text(value, MAX_NAME_CHARS)),
    StringConstraints(min_length=1, max_length=MAX_NAME_CHARS),
]
"""A person's name as everyone sees it: cleaned and shortened (``protocol.text``), never empty."""

ChatText = Annotated[
    str,
    BeforeValidator(lambda value: clean_text(value, MAX_CHAT_CHARS)),
    StringConstraints(min_length=1, max_length=MAX_CHAT_CHARS),
]
"""A chat line as everyone sees it: cleaned and shortened like a name (``protocol.text``)."""

BotLevel = Annotated[int, Field(ge=1, le=6)]

TurnTimer = Literal[0, 15, 30, 60]
"""Seconds a seated person has for each decision; 0 = off."""

MoveDeadline = Literal[0, 3600, 43200, 86400, 259200]
"""A turn-based table's deadline for each person's decision, in seconds (1 h, 12 h, 24 h,
3 days); 0 = a live table, played while everyone is there (``docs/rules.md``)."""

OnDeadline = Literal["stand_in", "forfeit"]
"""What a turn-based table does when a person's deadline passes: the stand-in bot plays that
one turn (``stand_in``), and with ``forfeit`` a team whose second deadline in a row passes
loses the game by forfeit (``docs/rules.md``, "Turn-based tables"). Never a live table's."""

Profile = Literal["pagat-4p", "heads-up", "libre-2p"]

OptionValue = str | int | bool
Options = Annotated[dict[str, OptionValue], Field(max_length=16)]
"""House options of R13 by name; the engine validates names and values."""

Role = Literal["player", "spectator"]
