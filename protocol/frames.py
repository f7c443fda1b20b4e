"""The hot path's messages as bytes, assembled from pieces encoded once: ``event``, the whole
``snapshot`` and the ``update`` (whose snapshot is a ``SnapshotChange``).

A server sends every viewer of a table one update per change; most of it is the same for all of
them (the public view, the table info, the deadlines, each event's form), so the server encodes
each piece once and joins them here. A msgpack map is a header followed by its keys and values,
so concatenating pre-encoded values yields the message ``protocol.encode`` writes for the model
(the same map: a view's keys come in another order): ``tests/protocol/test_frames.py`` holds
every function here to that.
"""

from __future__ import annotations

from collections.abc import Sequence
from struct import pack as struct_pack
from typing import Any, Final

import msgpack

from protocol import server_messages as s

_packer = msgpack.Packer(use_bin_type=True)


def pack(value: Any) -> bytes:
    """One msgpack value, exactly as ``protocol.encode`` would write it inside a message."""
    data: bytes = _packer.pack(value)
    return data


def map_header(size: int) -> bytes:
    if size < 16:
        return bytes((0x80 | size,))
    return b"\xde" + struct_pack(">H", size)


def array_of(items: Sequence[bytes]) -> bytes:
    """A msgpack array of pre-encoded items."""
    size = len(items)
    head = bytes((0x90 | size,)) if size < 16 else b"\xdc" + struct_pack(">H", size)
    return head + b"".join(items)


class Keys:
    """Pre-encoded map keys: ``KEYS.type`` is ``pack("type")``."""

    def __getattr__(self, name: str) -> bytes:
        data = pack(name)
        setattr(self, name, data)
        return data


KEYS: Final = Keys()
NONE: Final = pack(None)
NO_LEGAL: Final = KEYS.legal + pack([])
NO_CHAT: Final = KEYS.chat + pack([])
NO_DEADLINES: Final = KEYS.deadlines + pack([])
_VIEW_KEYS = len(s.GameView.model_fields)
_EVENT_HEAD = map_header(len(s.Event.model_fields)) + KEYS.type + pack("event") + KEYS.n
_WHOLE_SNAPSHOT = map_header(len(s.Snapshot.model_fields)) + KEYS.type + pack("snapshot")
_UPDATE_RID = map_header(len(s.Update.model_fields)) + KEYS.type + pack("update") + KEYS.rid
_CHANGE_RID = map_header(len(s.Change.model_fields)) + KEYS.type + pack("change") + KEYS.rid
_SNAPSHOT_CHANGE = (
    KEYS.snapshot + map_header(len(s.SnapshotChange.model_fields)) + KEYS.type + pack("snapshot")
)


def event(n: int, form: bytes) -> bytes:
    """An ``Event`` message: number ``n`` and the event's packed form."""
    return b"".join((_EVENT_HEAD, pack(n), KEYS.event, form))


def public_view(fields: dict[str, Any]) -> bytes:
    """A ``GameView``'s fields shared by every viewer (all but ``viewer``, ``hand`` and
    ``history``): its keys and values without the map's header, for ``view``."""
    return pack(fields)[len(map_header(len(fields))) :]


def view(
    public: bytes, history: Sequence[bytes], seat: int | None, hand: list[str] | None
) -> bytes:
    """One viewer's ``GameView``: the public fields, the history entries it is sent (each
    packed ``SeenPlay``), its seat and its own hand (None: a spectator's)."""
    return b"".join(
        (
            map_header(_VIEW_KEYS),
            public,
            KEYS.history,
            array_of(history),
            KEYS.viewer,
            pack(seat),
            KEYS.hand,
            pack(hand),
        )
    )


def you(seat: int | None, host: bool, name: str, can_sit: bool) -> bytes:
    """A viewer's ``You``."""
    role = "player" if seat is not None else "spectator"
    return pack({"role": role, "seat": seat, "host": host, "name": name, "can_sit": can_sit})


def legal(offered: list[dict[str, Any]]) -> bytes:
    """The ``legal`` field: the actions offered (their wire JSON forms)."""
    return KEYS.legal + pack(offered)


def snapshot_body(last_event: bytes, you: bytes, view: bytes, legal: bytes) -> tuple[bytes, ...]:
    """A snapshot's fields between its type and its info, whole and change alike
    (``last_event`` is ``KEYS.last_event`` and the packed number)."""
    return (last_event, KEYS.you, you, KEYS.view, view, legal)


def snapshot(body: Sequence[bytes], info: bytes, deadlines: bytes, chat: bytes = NO_CHAT) -> bytes:
    """A whole ``Snapshot``: ``info`` the packed ``TableInfo``, ``deadlines`` and ``chat``
    their fields."""
    return b"".join((_WHOLE_SNAPSHOT, *body, KEYS.info, info, deadlines, chat))


def chat(lines: list[dict[str, Any]]) -> bytes:
    """The ``chat`` field: the kept lines (``ChatLine`` wire forms)."""
    return KEYS.chat + pack(lines)


def change_tail(info: bytes, deadlines: bytes, history_from: int) -> bytes:
    """A ``SnapshotChange``'s fields after the body: ``info`` (``NONE`` when unchanged), the
    deadlines field and where its history starts."""
    return KEYS.info + info + deadlines + KEYS.history_from + pack(history_from)


def events(messages: Sequence[bytes]) -> bytes:
    """An ``Update``'s ``events`` field: its ``event`` messages, each encoded (``event``)."""
    return KEYS.events + array_of(messages)


def update(rid: int | None, events: bytes, body: Sequence[bytes], tail: bytes) -> bytes:
    """An ``Update``: the answer's ``rid``, the ``events`` field, then the snapshot change."""
    return b"".join(
        (_UPDATE_RID, NONE if rid is None else pack(rid), events, _SNAPSHOT_CHANGE, *body, tail)
    )


def change(
    rid: int | None,
    events: bytes,
    you: bytes,
    info: bytes,
    view: bytes,
    legal: bytes,
    deadlines: bytes,
) -> bytes:
    """A protocol 4 ``Change``: the answer's ``rid``, the ``events`` field (``events``), then
    the values of ``you``, ``info``, ``view`` (each ``NONE`` when left out), the ``legal``
    field (``legal``) and the value of ``deadlines`` (``NONE``: unchanged)."""
    return b"".join(
        (
            _CHANGE_RID,
            NONE if rid is None else pack(rid),
            events,
            KEYS.you,
            you,
            KEYS.info,
            info,
            KEYS.view,
            view,
            legal,
            KEYS.deadlines,
            deadlines,
        )
    )


def deadlines(fields: list[dict[str, Any]]) -> bytes:
    """The ``deadlines`` field of a snapshot (the ``Deadline`` JSON forms)."""
    return KEYS.deadlines + pack(fields) if fields else NO_DEADLINES
