"""A table written while a backup runs is saved as one whole commit (its group is dumped in one
step, with the keys its layout and ``records`` counter name), and what a process keeps for
itself (a lease) is never saved."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from server.store import backup, formats
from server.store.base import KeptRecord
from server.store.redis import open_store, table_key
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis


async def test_a_commit_and_a_finished_game_landing_after_the_scan_are_saved_whole(
    redis_server: RedisServer, target_redis: RedisServer, tmp_path: Path
) -> None:
    store = await open_store(redis_server.url)
    target = await open_store(target_redis.url)
    try:
        await store.create_table("t1", b'{"n": 0}', {"join-key": "join"})
        found = await backup.names(store.client)  # the SCAN saw a new table: its meta only
        assert [name for name in found if "{t:t1}" in name] == [table_key("t1", "meta")]
        owner = await store.acquire_lease("t1", "proc-a", 30.0)
        stored = await store.commit("t1", 0, b'{"n": 1}', [b"e1", b"e2"], record=None)
        record = KeptRecord(1, b'{"game": 1}', ("reader",))
        await store.commit("t1", stored.version, b'{"n": 2}', [b"e3"], record=record)
        await store.keep_review("t1", 1, b'{"format": "r"}')
        assert owner > 0

        head, entries = await backup.dump(store.client, found)
        names = {entry.name.decode() for entry in entries}
        kept = {table_key("t1", part) for part in ("records", "record:1", "review:1")}
        assert kept <= names  # taken though the SCAN never saw them
        assert {table_key("t1", "log"), table_key("t1", "segs")} & names  # the events
        assert not [name for name in names if name.endswith(":lease")]
        formats.write_backup(tmp_path / "b", head, entries)
        assert await backup.restore(target.client, formats.read_backup(tmp_path / "b")) == len(
            entries
        )

        loaded = await target.load("t1")
        assert loaded is not None
        assert (loaded.version, orjson.loads(loaded.state)) == (2, {"n": 2})
        events = await target.events_after("t1", 0)
        assert [event.data for event in events] == [b"e1", b"e2", b"e3"]
        assert await target.find_record("t1") == record
        assert await target.find_review("t1", 1) == b'{"format": "r"}'
        assert await target.acquire_lease("t1", "proc-b", 30.0) > 0  # nobody owns it there
    finally:
        await store.close()
        await target.close()
