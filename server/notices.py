"""What the server tells a person who is away from the table: the notices seam (issue 41).

The table, the people and the club night say *that* something happened to a person (it is their
turn, a deadline is near, a friend invites them, their night's round starts); how it reaches them
(Web Push today) and whether it should (their switches, quiet hours, one notice per event) is the
sender's business. The callers therefore depend only on `Notices`; `NoNotices` is what a server
without a sender holds, so nothing is wired after construction.

A notice names people by their public id and rooms by their id, never a key (a notice leaves
the server). ``key`` identifies the event, so that every process that sees it sends it once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, get_args

NoticeKind = Literal["your_turn", "deadline_near", "friend_invite", "night_round"]
"""The kinds a person can switch off one by one on ``/me``."""

NOTICE_KINDS: tuple[NoticeKind, ...] = get_args(NoticeKind)

NoticeWarning = Literal["", "forfeit_next"]


@dataclass(frozen=True, slots=True)
class Notice:
    """One thing to tell one person.

    ``url`` is the page the notice opens (a table link lands on the move); ``deadline`` is the
    move's due time in epoch seconds where there is one; ``detail`` is the short public text
    (the last play, the inviter's name, the club's name) the sender may show. ``warning`` is
    what the person must know before acting: ``forfeit_next`` on a turn whose side missed its
    last deadline at a forfeit table (one more missed and the game is lost), else "".
    ``pace`` is a club round's seconds a move (0: live), which its ``night_round`` says; None
    for the other kinds.
    """

    kind: NoticeKind
    player_id: str
    key: str
    url: str
    room_id: str | None = None
    deadline: float | None = None
    detail: str = ""
    warning: NoticeWarning = ""
    pace: int | None = None


class Notices(Protocol):
    """Where notices go; ``send`` never raises into its caller and never blocks a table."""

    async def send(self, notice: Notice) -> None: ...


class NoNotices:
    """A server with no way to reach people away from the table: notices are dropped."""

    async def send(self, notice: Notice) -> None:
        return None
