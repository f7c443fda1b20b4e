"""Relayed messages to one connection, in order: every event once, no gap (invariant 2).

The owner of a table relays a connection's messages to the connection's process as their bytes
with a header (``Built``: type, last event number) and ``previous``, the last event number it
relayed to that connection before. On the way a message can be lost (its publish failed while
Redis was away); a resume's replay goes back over events relayed before; an old owner's last
messages can arrive after the new owner's. So the relaying process judges every numbered message
against the last event number the connection was actually sent (``sent``):

- **pass** it on when it continues exactly from ``sent``;
- **stale**: everything it brings was sent already (drop it);
- **gap**: something before it was lost (drop it, and resume the connection from ``sent``); for
  a newcomer, an event or update before its first snapshot (that snapshot was lost).

A connection resumes one resume at a time (``Resuming``): until the resume's answer arrives
every message to it is dropped (its replay starts after the answer); after the answer each
message is judged again, and a gap seen meanwhile asks for one more resume once this one ends.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol import decode_server
from server.core.commands import Ticket
from server.frames import Built

RESYNC_RID = 2**31 - 1  # the request id of a resume that makes up for lost relayed messages


class Verdict(enum.Enum):
    PASS = "pass"
    STALE = "stale"
    GAP = "gap"


def judge(message: Built, previous: int | None, sent: int | None) -> Verdict:
    """What to do with a relayed message, given what the connection was sent (None: nothing
    numbered yet, as a newcomer: its first whole snapshot is its baseline, so an event or an
    update before it means that snapshot was lost)."""
    n = message.last_event
    if n is None:
        return Verdict.PASS
    if sent is None:
        return Verdict.GAP if message.type in ("event", "update") else Verdict.PASS
    if message.type == "event":
        return Verdict.PASS if n == sent + 1 else Verdict.STALE if n <= sent else Verdict.GAP
    if message.type == "update" and previous is not None and previous < n:
        # it brings events previous + 1 .. n, then the state at n
        if n <= sent:
            return Verdict.STALE
        return Verdict.PASS if previous == sent else Verdict.GAP
    # the state at event n, with no event of its own
    return Verdict.PASS if n == sent else Verdict.STALE if n < sent else Verdict.GAP


@dataclass(slots=True)
class Resuming:
    """One connection's resume in flight."""

    answered: bool = False  # its answer arrived: the messages after it are the replay
    again: bool = False  # a gap was seen after the answer: resume once more when this ends


def answers_resume(message: Built, ticket: Ticket | None) -> bool:
    """Whether this is a resume's answer (its ``seated``, or a watch's ``ack``, with
    ``RESYNC_RID``): the replay follows it. A newcomer's (nothing numbered yet) is its whole
    snapshot: a watch from nothing is answered after it, and it is all there is to replay."""
    if message.type == "snapshot" and ticket is not None and ticket.last_event is None:
        return True
    if message.type not in ("seated", "ack"):
        return False
    return getattr(decode_server(message.data), "rid", None) == RESYNC_RID
