"""Versions of what is stored: the data format a Redis store holds, and the backup file's.

**Data format.** ``cuarenta:format`` holds the number of the layout the store's keys follow
(``DATA_FORMAT``; the layouts are in the docstrings of ``server.store.redis``,
``server.people.redis_store``, ``server.clubs.night_store``, ``server.ladder.redis_store`` and
``server.listing``). A server opening a store claims it (``claim_format``): an empty store, or
one written before the key existed (the same layout, format 1), gets the key; a store whose
format is newer than this server knows is refused before anything is written, so an old server
started by mistake against an upgraded Redis can never write keys in a layout it does not know.

**Backup file** (``cuarenta backup``, ``server.store.backup``): a gzip stream of msgpack values,
first a header ``{"format": "cuarenta-backup", "version": 1, "written_at": <ISO 8601 UTC>,
"keys": <count>, "data_format": <the store's>, "redis_version": <the source's>}``, then one
``[name, pttl_ms, payload]`` per key (``payload``: Redis ``DUMP``; ``pttl_ms`` -1 for none). A
reader refuses a file whose version or data format is newer than it knows, or that ends before
its header's count: before anything is written anywhere.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgpack
from redis.asyncio import Redis
from redis.exceptions import RedisError

from server.store.base import StoreError, StoreUnavailable

PREFIX = "cuarenta"
FORMAT_KEY = f"{PREFIX}:format"
DATA_FORMAT = 1  # the layout this code reads and writes
BACKUP_FORMAT = "cuarenta-backup"
BACKUP_VERSION = 1  # the file layout this code reads and writes
MAX_VALUE_BYTES = 512 * 1024 * 1024  # one dumped key at most (Redis's own string limit)


class StoreFormatTooNew(StoreUnavailable):
    """The store was written by a newer server: this one must not touch it (nothing written).

    A ``StoreUnavailable`` so ``cuarenta serve`` says it in one line and exits, as for a Redis
    it cannot reach."""


class BackupError(StoreError):
    """A backup file this code cannot restore (nothing was written)."""


async def claim_format(client: Redis) -> int:
    """The store's data format, claimed for this server: written (``SET NX``) if absent, and
    ``StoreFormatTooNew`` (after reading only) if newer than ``DATA_FORMAT``."""
    try:
        stored = await client.get(FORMAT_KEY)
        if stored is None:
            if await client.set(FORMAT_KEY, DATA_FORMAT, nx=True):
                return DATA_FORMAT
            stored = await client.get(FORMAT_KEY)  # another server claimed it meanwhile
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"storage unavailable: could not read its format ({exc})") from exc
    found = parse_format(stored)
    if found > DATA_FORMAT:
        raise StoreFormatTooNew(
            f"the store holds data format {found}, newer than this server's {DATA_FORMAT}: "
            "it was written by a newer cuarenta; upgrade this one (nothing was written)"
        )
    return found


def parse_format(stored: object) -> int:
    """A stored format number (absent: 1, the layout from before the key existed)."""
    if stored is None:
        return 1
    text = stored.decode() if isinstance(stored, bytes) else str(stored)
    try:
        return int(text)
    except ValueError:
        raise StoreFormatTooNew(f"the store's {FORMAT_KEY} is {text!r}, not a number") from None


@dataclass(frozen=True, slots=True)
class Entry:
    """One key as dumped: its name, its remaining time (ms; -1: none) and ``DUMP`` payload."""

    name: bytes
    pttl_ms: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class Backup:
    header: dict[str, Any]
    entries: list[Entry]


def header(count: int, data_format: int, redis_version: str) -> dict[str, Any]:
    return {
        "format": BACKUP_FORMAT,
        "version": BACKUP_VERSION,
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "keys": count,
        "data_format": data_format,
        "redis_version": redis_version,
    }


def write_backup(path: Path, head: dict[str, Any], entries: Sequence[Entry]) -> None:
    """Write the file whole, then move it into place: a crash never leaves half a backup."""
    partial = path.with_name(path.name + ".partial")
    packer = msgpack.Packer(use_bin_type=True)
    with gzip.open(partial, "wb") as out:
        out.write(packer.pack(head))
        for entry in entries:
            out.write(packer.pack([entry.name, entry.pttl_ms, entry.payload]))
    os.replace(partial, path)


def read_backup(path: Path) -> Backup:
    """The whole file, checked: ``BackupError`` unless this code can restore all of it."""
    try:
        with gzip.open(path, "rb") as raw:
            unpacker = msgpack.Unpacker(
                raw, raw=False, max_buffer_size=MAX_VALUE_BYTES, strict_map_key=True
            )
            head = _header(next(unpacker, None))
            entries = _entries(unpacker)
    except (OSError, EOFError, ValueError, msgpack.UnpackException) as exc:
        raise BackupError(f"{path}: not a readable cuarenta backup ({exc})") from None
    if len(entries) != head["keys"]:
        raise BackupError(
            f"{path}: holds {len(entries)} of the {head['keys']} keys its header counts "
            "(cut short?): nothing was restored"
        )
    return Backup(head, entries)


def _header(value: object) -> dict[str, Any]:
    if not isinstance(value, dict) or value.get("format") != BACKUP_FORMAT:
        raise BackupError("not a cuarenta backup (its header does not say cuarenta-backup)")
    version, data_format = value.get("version"), value.get("data_format")
    if not isinstance(version, int) or not isinstance(data_format, int):
        raise BackupError("the backup's header has no version or data format")
    if not isinstance(value.get("keys"), int):
        raise BackupError("the backup's header does not count its keys")
    if version > BACKUP_VERSION:
        raise BackupError(
            f"backup version {version} is newer than this cuarenta reads ({BACKUP_VERSION}): "
            "restore it with the cuarenta that wrote it, or a newer one (nothing was written)"
        )
    if data_format > DATA_FORMAT:
        raise BackupError(
            f"the backup holds data format {data_format}, newer than this cuarenta's "
            f"{DATA_FORMAT}: restore it with a newer one (nothing was written)"
        )
    return value


def _entries(values: Iterable[object]) -> list[Entry]:
    entries = []
    for value in values:
        match value:
            case [bytes() as name, int() as pttl, bytes() as payload]:
                entries.append(Entry(name, pttl, payload))
            case _:
                raise BackupError("a key in the backup is not [name, pttl, payload]")
    return entries
