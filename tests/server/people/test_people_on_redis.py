"""People beside a Redis table store, shared by two processes' servers: presence is agreed on,
and a finished game seen again by the process that takes its table over counts once."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from server.app import TableServer
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.server.people.test_friends_over_the_wire import befriend, friends, once_offline
from tests.server.people.wire import me, new_key, person, play_out, table_of
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, lease_s=2.0)


async def started(redis_server: RedisServer) -> TableServer:
    server = TableServer(SETTINGS, store=await open_store(redis_server.url))
    await server.start()
    return server


async def test_a_friend_on_another_process_sees_the_other_at_their_table_and_is_invited(
    redis_server: RedisServer,
) -> None:
    one, two = await started(redis_server), await started(redis_server)
    try:
        ana = await person(one, "Ana", new_key())
        beto = await person(two, "Beto", new_key())
        ana_id, beto_id = await befriend(ana, beto)
        created = await ana.request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        await ana.request(c.Ping())  # handled after the join's presence was written
        line = (await friends(beto))[ana_id]
        assert (line.online, line.table) == (True, created.table)
        await beto.request(c.Ping())  # its presence written, with the process serving it
        await ana.request(p.Invite(player=beto_id))
        invited = await beto.next_of(p.Invited)  # relayed to the process that serves Beto
        assert (invited.table, invited.join_key) == (created.table, created.join_key)
        seated = await beto.request(c.Join(key=invited.join_key))
        assert isinstance(seated, s.Seated)
        assert seated.seat == 1
        await ana.close()
        gone = await once_offline(beto, ana_id)
        assert not gone.online
        await beto.close()
    finally:
        await one.close()
        await two.close()


async def test_a_finish_seen_again_after_a_takeover_counts_once(
    redis_server: RedisServer,
) -> None:
    key = new_key()
    first = await started(redis_server)
    try:
        ana = await person(first, "Ana", key)
        await table_of(ana, [], "heads-up", 3, casual=False)
        await ana.request(c.Start())
        await play_out([ana])
        rated = await ana.next_of(p.Rated)
        before = await me(ana)
        await ana.close()
    finally:
        await first.close()  # its leases are released: the next process loads the table
    second = await started(redis_server)
    try:
        back = await ana.reconnect(second.ws_url, "Ana", player_key=key)
        again = await back.next_of(p.Rated)  # the rebuilt table finished the game once more
        assert (again.table, again.game, again.change) == (rated.table, rated.game, rated.change)
        after = await me(back)
        assert after.ratings == before.ratings
        assert after.ratings[0].games == 1
        history = await back.request(p.HistoryRequest())
        assert isinstance(history, p.History)
        assert [(game.table, game.game) for game in history.games] == [(rated.table, 1)]
        await back.close()
    finally:
        await second.close()
