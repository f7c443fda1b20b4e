"""The disk under the club's data, watched: nearly full, full, or a Redis that stopped writing.

A laptop's disk fills slowly (an append-only file, photos, a system update) and then Redis
refuses every write (``MISCONF``): each move of every table fails at once. ``DiskWatch`` tells
``/readyz`` (and through it the host's page) before that happens:

- ``low``: free space below ``low`` (5 % of the disk or 1 GiB, whichever is larger): the server
  still serves, ``/readyz`` stays 200 and says so with the free bytes;
- ``full``: below ``full`` (1 % or 200 MiB): writes are about to fail, ``/readyz`` answers 503 so a
  proxy sends new tables elsewhere;
- ``not writing``: Redis itself refuses writes after a failed save (``rdb_last_bgsave_status:err``
  with ``stop-writes-on-bgsave-error`` and save points) or a failed append-only write
  (``aof_last_write_status:err``), whatever the disk says: 503 too.

The folder is the one the settings name (``--disk-dir``), else Redis's own (``CONFIG GET dir``,
asked once at start, and used only when that folder exists on this machine); none: the disk is
``unknown`` and only Redis's own status counts. The free space is read off the event loop
(``asyncio.to_thread``), at most once every ``keep_s`` (the answer is kept between); the reading
function and its clock are injectable so a test can say "100 MB free" without filling a disk.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import structlog

from server.store.memory import MemoryStore

if TYPE_CHECKING:
    from server.store import Store

log = structlog.get_logger("server.disk")

MIB = 1024 * 1024
GIB = 1024 * MIB


class Usage(NamedTuple):
    """A disk's size and free bytes (``shutil.disk_usage`` answers one with ``used`` too)."""

    total: int
    free: int


Reading = Callable[[str], Usage | tuple[int, int, int]]
"""A folder -> its disk's usage: ``shutil.disk_usage`` or a test's stand-in."""

Persistence = Callable[[], Awaitable[Mapping[str, object]]]
"""Redis's ``INFO persistence`` (and what decides whether a failed save stops writes)."""


@dataclass(frozen=True, slots=True)
class DiskLimits:
    """When free space is low, and when full: each the larger of a share and a size."""

    low_percent: float = 5.0
    low_bytes: int = GIB
    full_percent: float = 1.0
    full_bytes: int = 200 * MIB

    def state(self, total: int, free: int) -> str:
        """``ok``, ``low`` or ``full`` for a disk of ``total`` bytes with ``free`` left."""
        if free < max(total * self.full_percent / 100, self.full_bytes):
            return "full"
        if free < max(total * self.low_percent / 100, self.low_bytes):
            return "low"
        return "ok"


@dataclass(frozen=True, slots=True)
class DiskProbe:
    """How the watcher reads the disk: the function, how long one reading is kept, the clock."""

    reading: Reading = shutil.disk_usage
    keep_s: float = 5.0
    clock: Callable[[], float] = time.monotonic


@dataclass(frozen=True, slots=True)
class DiskReport:
    """What ``/readyz`` says about the data's disk and the store's writes."""

    disk: str = "unknown"  # ok, low, full, or unknown (no folder, or it cannot be read)
    free_bytes: int | None = None
    writing: bool = True  # False: Redis refuses writes (a failed save or append)
    why: str = ""  # which Redis status said so

    @property
    def ready(self) -> bool:
        """False when writes fail or are about to: a proxy sends new tables elsewhere."""
        return self.writing and self.disk != "full"

    def lines(self) -> list[str]:
        """The report as ``/readyz`` text lines (``key: value``), empty when all is well."""
        shown = []
        if self.disk in ("low", "full"):
            shown += [f"disk: {self.disk}", f"disk_free_bytes: {self.free_bytes}"]
        if not self.writing:
            shown.append(f"store: not writing ({self.why})")
        return shown


class DiskWatch:
    """The last reading of the data's disk and of Redis's write status, renewed when asked."""

    def __init__(
        self,
        folder: str | None,
        limits: DiskLimits = DiskLimits(),
        probe: DiskProbe = DiskProbe(),
        persistence: Persistence | None = None,
    ) -> None:
        """``folder``: where the data lives (None: unknown); ``persistence``: Redis's status."""
        self.folder = folder
        self.limits = limits
        self.probe = probe
        self.persistence = persistence
        self._report: DiskReport | None = None
        self._read_at = 0.0
        self._lock = asyncio.Lock()

    async def report(self) -> DiskReport:
        """The kept report, or a new one when it is older than ``keep_s``."""
        async with self._lock:  # one reading at a time; those waiting get its answer
            now = self.probe.clock()
            if self._report is None or now - self._read_at >= self.probe.keep_s:
                self._report = await self._read()
                self._read_at = now
            return self._report

    async def _read(self) -> DiskReport:
        disk, free = "unknown", None
        if self.folder is not None:
            try:
                usage = await asyncio.to_thread(self.probe.reading, self.folder)
            except OSError as exc:
                log.warning("disk not read", folder=self.folder, error=str(exc)[:200])
            else:
                total, free = int(usage[0]), int(usage[-1])
                disk = self.limits.state(total, free)
        writing, why = True, ""
        if self.persistence is not None:
            try:
                writing, why = refuses_writes(await self.persistence())
            except Exception as exc:  # an unanswered INFO: /readyz's ping judges Redis
                log.debug("redis persistence not read", error=str(exc)[:200])
        report = DiskReport(disk, free, writing, why)
        before = self._report
        if before is None or (before.disk, before.writing) != (disk, writing):  # once a change
            level = log.warning if disk in ("low", "full") or not writing else log.info
            level("disk", disk=disk, free_bytes=free, writing=writing, why=why, folder=self.folder)
        return report


def refuses_writes(info: Mapping[str, object]) -> tuple[bool, str]:
    """(writing, why) from ``INFO persistence`` plus the two settings that decide (as Redis 7's
    ``writeCommandsDeniedByDiskError``): a failed save stops writes only with
    ``stop-writes-on-bgsave-error`` and save points; a failed append-only write always does."""
    if str(info.get("aof_enabled", "0")) == "1" and info.get("aof_last_write_status") == "err":
        return False, "aof_last_write_status:err"
    stops = info.get("stop-writes-on-bgsave-error", "yes") == "yes" and info.get("save", "x") != ""
    if stops and info.get("rdb_last_bgsave_status") == "err":
        return False, "rdb_last_bgsave_status:err"
    return True, ""


async def watch_for(store: Store, disk_dir: str, limits: DiskLimits, probe: DiskProbe) -> DiskWatch:
    """The watcher for this store: ``disk_dir`` when given, else Redis's ``dir`` if it is a
    folder here; Redis's write status for a one-node Redis (a Cluster's nodes each have theirs)."""
    folder = disk_dir or None
    if isinstance(store, MemoryStore):
        return DiskWatch(folder, limits, probe)
    from server.store.redis import RedisStore  # only with Redis: the memory store needs none

    if not isinstance(store, RedisStore) or store.cluster is not None:
        return DiskWatch(folder, limits, probe)
    client = store.client
    settings: dict[str, object] = {}
    try:
        for name in ("dir", "save", "stop-writes-on-bgsave-error"):
            settings.update(_texts(await client.config_get(name)))
    except Exception as exc:  # CONFIG may be renamed or refused: no folder then
        log.info("redis CONFIG refused: its folder is not watched", error=str(exc)[:200])
    redis_dir = str(settings.pop("dir", "") or "")
    if folder is None and redis_dir and await asyncio.to_thread(os.path.isdir, redis_dir):
        folder = redis_dir

    async def persistence() -> Mapping[str, object]:
        info = _texts(await client.info("persistence"))
        return {**settings, **info}

    return DiskWatch(folder, limits, probe, persistence)


def _texts(reply: Mapping[object, object]) -> dict[str, object]:
    """A redis-py reply with its bytes keys and values as text."""
    return {str(_text(key)): _text(value) for key, value in reply.items()}


def _text(value: object) -> object:
    return value.decode() if isinstance(value, bytes) else value
