"""A relayed viewer's resume retried after its answer was lost sends no event twice
(server.cluster, invariant 2).

The relaying process resumes a spectator it relays (its subscription broke and is back); the
owner carries the resume out, but its answer is lost on the way (a lossy link to Redis), and
meanwhile a move is made and sent to the spectator. The relaying process times out and retries
the resume. The retry must go on from the move the spectator was sent, not from where the first
attempt began: a 30-minute chaos run sent one spectator events 74-77 twice that way, under a
storm of tables changing hands.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.log_audit import check_table
from bench.recording import a_move, caught_up, close_all, seat_table, wait_for
from protocol import server_messages as s
from server.app import TableServer
from server.cluster import remote
from server.cluster.relay import Envelope
from server.core import commands
from server.core.commands import Attach
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, lease_s=30.0, away_turn_s=600.0)  # nobody's lease lapses


async def test_a_resume_retried_after_its_lost_answer_sends_no_event_twice(
    pair: tuple[TableServer, TableServer],
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(remote, "REQUEST_TIMEOUT_S", 3.0)
    owner, origin = pair
    table = await seat_table([owner.ws_url], [origin.ws_url])  # the watcher is relayed
    watcher = table.people[-1]
    assert owner.cluster is not None
    assert origin.cluster is not None
    relay = owner.cluster.relay
    reply = relay.reply
    lost: list[Envelope] = []
    answered: list[Envelope] = []

    def lossy_reply(request: Envelope, envelope: Envelope) -> None:
        """The owner's answer to the watcher's first resume is lost on its way."""
        if request.get("k") == "cmd" and isinstance(commands.decode(bytes(request["cmd"])), Attach):
            if not lost:
                lost.append(envelope)
                return
            answered.append(envelope)
        reply(request, envelope)

    relay.reply = lossy_reply  # type: ignore[method-assign]
    store = await open_store(redis_server.url)
    try:
        await caught_up(store, table)
        origin.cluster._resync_relayed()  # as after its subscription broke and came back
        await wait_for(lambda: _true(bool(lost)), 10, "the owner to carry the resume out")

        mover, action = a_move(table)  # sent to the watcher while the resume is unanswered
        await mover.session.request(action.model_copy(update={"at": mover.session.last_event}))
        moved = await caught_up(store, table)
        assert not answered, "the resume was retried before the move reached the watcher"

        await wait_for(lambda: _true(bool(answered)), 10, "the resume retried and answered")
        mover, action = a_move(table)  # its event follows whatever the retry replayed
        await mover.session.request(action.model_copy(update={"at": mover.session.last_event}))
        assert await caught_up(store, table) > moved

        numbers = [m.n for m in watcher.session.stream if isinstance(m, s.Event)]
        assert numbers == sorted(set(numbers)), f"events sent twice or out of order: {numbers}"
        await check_table(store, table)
    finally:
        relay.reply = reply  # type: ignore[method-assign]
        await close_all([table])
        await store.close()


async def _true(value: bool) -> bool:
    return value
