"""The protocol's one error tree and the stable error codes sent on the wire.

::

    ProtocolError (ValueError)
    ├── FrameError        the bytes are not an acceptable msgpack frame (close 1008 / 1009)
    │   └── FrameTooLarge the frame exceeds the size limit (close 1009)
    └── MessageError      the frame decoded but is not a valid message (an Error reply)

Every error carries an :class:`ErrorCode`: the stable, machine-readable part of an ``error``
message. The human ``message`` may change; clients branch on the code only.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable reasons a request was refused; clients branch on these, never on message text."""

    BAD_FRAME = "bad_frame"  # not msgpack, too deep, too long
    FRAME_TOO_LARGE = "frame_too_large"
    UNKNOWN_TYPE = "unknown_type"  # msgpack map whose "type" names no message
    INVALID_MESSAGE = "invalid_message"  # a known type with missing, extra or wrong fields
    VERSION_MISMATCH = "version_mismatch"
    HELLO_REQUIRED = "hello_required"  # the first message must be hello
    NOT_FOUND = "not_found"  # unknown link, key or table
    BAD_TOKEN = "bad_token"  # forged, stale or another table's seat token
    FORBIDDEN = "forbidden"  # e.g. a host control from a non-host
    NOT_AT_TABLE = "not_at_table"  # the connection has not joined or watched a table
    NOT_SEATED = "not_seated"  # a game action from a spectator
    SEAT_TAKEN = "seat_taken"
    NO_FREE_SEAT = "no_free_seat"
    TABLE_LOCKED = "table_locked"
    WRONG_PHASE = "wrong_phase"  # e.g. sit after the start, start before every seat is filled
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"  # the engine refused it; the message names the rule
    STALE = "stale"  # the request met a newer state (an event number, a club's night): resend
    BAD_OPTIONS = "bad_options"  # an unknown option or a value outside R13
    RATE_LIMITED = "rate_limited"
    RECORD_UNAVAILABLE = "record_unavailable"  # no finished game yet
    BAD_NAME = "bad_name"  # a leaderboard name too long, empty of letters, or holding a link
    NO_PLAYER = "no_player"  # a player request on a connection whose hello had no player_key
    STORAGE_UNAVAILABLE = "storage_unavailable"  # the store did not answer: nothing changed
    INTERNAL = "internal"


class ProtocolError(ValueError):
    """Base of every protocol error; ``code`` is what goes on the wire."""

    code: ErrorCode = ErrorCode.INVALID_MESSAGE

    def __init__(self, message: str, *, code: ErrorCode | None = None, rid: int | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.rid = rid

    @property
    def message(self) -> str:
        return str(self.args[0])


class FrameError(ProtocolError):
    """The bytes themselves are unacceptable: the connection is closed with 1008 (policy)."""

    code = ErrorCode.BAD_FRAME


class FrameTooLarge(FrameError):
    """The frame is bigger than the limit: the connection is closed with 1009 (too big)."""

    code = ErrorCode.FRAME_TOO_LARGE


class MessageError(ProtocolError):
    """A well-formed frame that is not a valid message: answered with an ``error``, not a close."""
