"""A relayed viewer whose resume fails while its table is moving is resumed once it can be
(server.cluster, invariant 2: every event, once, in order).

The relaying process lost a move's envelope to a spectator (its subscription broke) and
resumes it; but the table's owner answers "moved" to every forwarded command for longer than
the relaying process retries one (a storm of tables changing hands, as in the chaos run). A
resume given up for good leaves the spectator behind until the table's next move, and for ever
after the game's last one: the chaos run counted two viewers behind at its end. The relaying
process tries the resume again until it goes through.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bench.log_audit import check_table
from bench.recording import a_move, caught_up, close_all, seat_table
from server.app import TableServer
from server.cluster import remote
from server.cluster.relay import Envelope
from server.core import commands
from server.core.commands import Attach
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
OWNER = replace(TEST_SETTINGS, lease_s=30.0, away_turn_s=600.0)  # its lease never lapses here
ORIGIN = replace(OWNER, lease_s=1.0)  # the relaying process gives a command up after 2.5 s
MOVING_S = 4.0  # how long the owner answers "moved": past the relaying process's deadline


async def test_a_resume_given_up_while_the_table_moves_is_tried_again(
    pair: tuple[TableServer, TableServer],
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(remote, "REQUEST_TIMEOUT_S", 0.5)
    owner, origin = pair
    assert owner.cluster is not None
    assert origin.cluster is not None
    table = await seat_table([owner.ws_url], [origin.ws_url])  # the watcher is relayed
    watcher = table.people[-1]

    relay = origin.cluster.relay
    dispatch = relay._dispatch
    cut: list[Envelope] = []

    def cut_with_the_link(envelope: Envelope) -> None:
        """The move's envelope to the watcher is lost, and the subscription breaks with it."""
        if not cut and armed and envelope.get("k") == "msg":
            cut.append(envelope)
            raise RedisConnectionError("the link to Redis was cut")
        dispatch(envelope)

    serve = owner.cluster._serve_command
    moving: list[float] = []  # when the owner began answering "moved"

    async def moving_table(envelope: Envelope) -> None:
        """For MOVING_S after the first resume, the owner answers it "moved", doing nothing."""
        if isinstance(commands.decode(bytes(envelope["cmd"])), Attach):
            moving[:] = moving or [time.monotonic()]
            if time.monotonic() < moving[0] + MOVING_S:
                owner.cluster.relay.reply(envelope, {"ok": False, "moved": True})
                return
        await serve(envelope)

    armed = False
    relay._dispatch = cut_with_the_link  # type: ignore[method-assign]
    owner.cluster._serve_command = moving_table  # type: ignore[method-assign]
    store = await open_store(redis_server.url)
    try:
        before = await caught_up(store, table)
        armed = True
        mover, action = a_move(table)
        await mover.session.request(action.model_copy(update={"at": mover.session.last_event}))
        # the watcher misses the move until its resume goes through, past the moving window
        assert await caught_up(store, table, within_s=MOVING_S + 10) > before
        assert cut, "no envelope was cut"
        assert moving, "the watcher was never resumed"
        assert watcher.session.last_event > before
        await check_table(store, table)
    finally:
        relay._dispatch = dispatch  # type: ignore[method-assign]
        owner.cluster._serve_command = serve  # type: ignore[method-assign]
        await close_all([table])
        await store.close()
