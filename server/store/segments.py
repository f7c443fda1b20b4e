"""Sealed segments of a table's event log: runs of events stored as one compressed blob.

A finished table is kept for the table TTL and most of its memory was its event log, one entry
per event. The stores therefore keep only the events since the last seal one by one (the
**open** part of the log) and, at a snapshot commit, seal them together with the commit's own
events into a **segment**: the events' bytes in one msgpack array, zlib-compressed (a game's
events repeat the same JSON keys and cards, so a segment shrinks about sevenfold). A segment
is named by the number of its first event; its events are the numbers from there up to the next
segment's first (or the first open event). Reading events after ``k`` opens only the segments
holding a number above ``k``, so a resume gets exactly the events it got before sealing.

A seal happens only at a snapshot commit (the state's own compaction point, every few commits
and at each game's end) and only when it gathers at least ``SEAL_MIN`` events or the game ended
(``final``): a lobby's few-event snapshots stay open rather than becoming tiny segments.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Sequence

import msgpack

SEAL_MIN = 16


def should_seal(open_events: int, final: bool) -> bool:
    """Seal at this snapshot commit? ``open_events`` counts the open events and the commit's."""
    return open_events > 0 and (final or open_events >= SEAL_MIN)


def sealed(events: Sequence[bytes]) -> bytes:
    """One segment: the events, in order, as one compressed blob."""
    return zlib.compress(msgpack.packb(list(events), use_bin_type=True))


def unsealed(segment: bytes) -> list[bytes]:
    """A segment's events, in order."""
    events = msgpack.unpackb(zlib.decompress(segment), raw=False)
    return [bytes(event) for event in events]


def events_from(segments: Sequence[tuple[int, bytes]], after: int) -> list[tuple[int, bytes]]:
    """The numbered events above ``after`` in ``segments`` (``(first number, blob)``, in order).

    A segment ending at or below ``after`` is never decompressed."""
    found: list[tuple[int, bytes]] = []
    for index, (first, blob) in enumerate(segments):
        following = segments[index + 1][0] if index + 1 < len(segments) else None
        if following is not None and following - 1 <= after:
            continue
        events = unsealed(blob)
        if first + len(events) - 1 <= after:
            continue
        found += [(n, data) for n, data in enumerate(events, first) if n > after]
    return found


class OpenEvents:
    """The open events of the tables a store writes, as its last commit or read left them.

    A sealing commit sends them along (the script checks they are the stored ones), so a seal
    costs no read. Bounded: the least recently used tables are forgotten (the next seal of one
    reads its open events first)."""

    def __init__(self, tables: int = 10_000) -> None:
        self.tables = tables
        self._open: OrderedDict[str, tuple[int, list[bytes]]] = OrderedDict()

    def get(self, table_id: str) -> tuple[int, list[bytes]] | None:
        """The number of the table's first open event and the open events, if remembered."""
        return self._open.get(table_id)

    def keep(self, table_id: str, first: int, events: list[bytes]) -> None:
        self._open[table_id] = (first, events)
        self._open.move_to_end(table_id)
        while len(self._open) > self.tables:
            self._open.popitem(last=False)

    def committed(self, table_id: str, last: int, events: Sequence[bytes], sealed: bool) -> None:
        """A commit of ``events`` ended at event ``last`` (``sealed``: it sealed the open ones)."""
        first, known = self._open.pop(table_id, (0, []))
        if sealed:
            self.keep(table_id, last + 1, [])
        elif first and first + len(known) + len(events) - 1 == last:
            known.extend(bytes(event) for event in events)
            self.keep(table_id, first, known)

    def forget(self, table_id: str) -> None:
        self._open.pop(table_id, None)
