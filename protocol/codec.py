"""msgpack encoding of messages, with the limits that keep one bad client from hurting others.

Decoding is strict: a frame larger than ``max_frame_bytes`` is ``FrameTooLarge``; bytes that are
not exactly one msgpack value, nest deeper than ``max_depth``, or hold over-long strings, lists or
maps are ``FrameError``; a value that is not a known message is ``MessageError`` with the stable
code ``unknown_type`` or ``invalid_message`` and, when readable, the request id it answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, get_args

import msgpack
from pydantic import TypeAdapter, ValidationError

from protocol.client_messages import ClientMessage
from protocol.errors import ErrorCode, FrameError, FrameTooLarge, MessageError
from protocol.server_messages import ServerMessage

CLIENT_ADAPTER: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)

_CLIENT_TYPES: Final[frozenset[str]] = frozenset(
    choice.model_fields["type"].default for choice in get_args(get_args(ClientMessage)[0])
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on an inbound frame; the defaults fit every client message with room to spare."""

    max_frame_bytes: int = 8 * 1024
    max_depth: int = 8
    max_str_len: int = 1024
    max_list_len: int = 64
    max_map_len: int = 32


CLIENT_LIMITS: Final = Limits()
SERVER_LIMITS: Final = Limits(
    max_frame_bytes=4 * 1024 * 1024,
    max_depth=32,
    max_str_len=1 << 20,
    max_list_len=1 << 16,
    max_map_len=1 << 12,
)
"""Generous bounds for clients reading the server (records and snapshots are larger)."""


def encode(message: ClientMessage | ServerMessage) -> bytes:
    """Encode one message as a msgpack map (field names as keys, ``None`` kept)."""
    packed: bytes = msgpack.packb(message.model_dump(mode="json"), use_bin_type=True)
    return packed


def decode_client(frame: bytes | str, limits: Limits = CLIENT_LIMITS) -> ClientMessage:
    """Decode and validate one client frame; raise a ``ProtocolError`` naming what is wrong."""
    value = unpack(frame, limits)
    if not isinstance(value, dict):  # an array or a scalar is no message at all: close 1008
        raise FrameError("a frame holds one msgpack map with a 'type'")
    rid = _readable_rid(value)
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _CLIENT_TYPES:
        raise MessageError(
            f"unknown message type {_shown(kind)}", code=ErrorCode.UNKNOWN_TYPE, rid=rid
        )
    try:
        return CLIENT_ADAPTER.validate_python(value)
    except ValidationError as exc:
        raise MessageError(_describe(kind, exc), code=ErrorCode.INVALID_MESSAGE, rid=rid) from None


def decode_server(frame: bytes | str, limits: Limits = SERVER_LIMITS) -> ServerMessage:
    """Decode and validate one server frame (used by clients and tests)."""
    value = unpack(frame, limits)
    try:
        return SERVER_ADAPTER.validate_python(value)
    except ValidationError as exc:
        kind = value.get("type") if isinstance(value, dict) else None
        raise MessageError(_describe(kind, exc), code=ErrorCode.INVALID_MESSAGE) from None


def unpack(frame: bytes | str, limits: Limits) -> Any:
    """Unpack exactly one msgpack value within ``limits``, or raise ``FrameError``."""
    if isinstance(frame, str):
        raise FrameError("frames are binary msgpack, not text")
    if len(frame) > limits.max_frame_bytes:
        raise FrameTooLarge(f"frame of {len(frame)} bytes exceeds {limits.max_frame_bytes}")
    try:
        value = msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_str_len,
            max_array_len=limits.max_list_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise FrameError(f"frame is not one valid msgpack value within limits: {exc}") from None
    _check_depth(value, limits.max_depth)
    return value


def _check_depth(value: Any, max_depth: int) -> None:
    """Refuse values nested deeper than ``max_depth`` containers, or holding binary values.

    Level by level, without recursion; only containers are kept for the next level, so a frame
    of many scalars (a server snapshot) costs one pass over its values.
    """
    if isinstance(value, bytes):
        raise FrameError("binary values are not part of any message")
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise FrameError(f"frame nests deeper than {max_depth} levels")
        deeper: list[Any] = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, dict | list):
                    deeper.append(child)
                elif isinstance(child, bytes):
                    raise FrameError("binary values are not part of any message")
        level = deeper


def _readable_rid(value: dict[Any, Any]) -> int | None:
    rid = value.get("rid")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 2**31 else None


MAX_ERROR_CHARS: Final = 300
"""An error's text stays within the ``error`` message's own bound, whatever the client sent."""


def _shown(value: object, limit: int = 40) -> str:
    """A client's value quoted in an error: its repr, cut so garbage never fills the reply."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _named(loc: tuple[int | str, ...]) -> list[str]:
    """A field error's place, without pydantic's name of a tagged union (``tagged-union[A,B,…]``,
    which lists every member): the tag after it names the member, and the whole list would
    crowd the field names out of the error's bound."""
    return [str(part) for part in loc if not str(part).startswith("tagged-union[")]


def _describe(kind: object, exc: ValidationError) -> str:
    """One line naming the message type and its first few field errors."""
    problems = "; ".join(
        f"{'.'.join(_named(error['loc'][1:])) or 'message'}: {error['msg']}"
        for error in exc.errors(include_url=False)[:3]
    )
    return f"invalid {_shown(kind)} message: {problems}"[:MAX_ERROR_CHARS]
