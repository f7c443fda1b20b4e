"""The invitations a person has not answered (issue 41), in memory and in Redis alike: the
newest first, one line per table and inviter, at most ``MAX_INVITATIONS``, three days each;
and beside Redis an invitation made on one process is listed, with its join key, on another."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from server.app import TableServer
from server.people.invitations import (
    INVITATION_TTL_S,
    MAX_INVITATIONS,
    Invitation,
    Invitations,
    MemoryInvitations,
    RedisInvitations,
    invites_key,
)
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.server.people.test_friends_over_the_wire import befriend
from tests.server.people.wire import new_key, person
from tests.serving import TEST_SETTINGS


class Clock:
    now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def kept(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Invitations, Clock]]:
    clock = Clock()
    if request.param == "memory":
        yield MemoryInvitations(clock=clock), clock
        return
    redis_server: RedisServer = request.getfixturevalue("redis_server")
    store = await open_store(redis_server.url)
    await store.client.delete(*(invites_key(name) for name in ("ana", "beto", "dora")))
    yield RedisInvitations(store.client, clock=clock), clock
    await store.close()


async def test_the_newest_first_one_line_a_table_and_inviter_bounded_and_lapsing(
    kept: tuple[Invitations, Clock],
) -> None:
    invitations, clock = kept
    now = clock.now
    await invitations.add("beto", Invitation("t1", "ana", now - 10))
    await invitations.add("beto", Invitation("t2", "ana", now - 5))
    await invitations.add("beto", Invitation("t1", "ana", now))  # again: replaces the first
    await invitations.add("beto", Invitation("t1", "caro", now - 1))
    assert await invitations.pending("beto") == [
        Invitation("t1", "ana", now),
        Invitation("t1", "caro", now - 1),
        Invitation("t2", "ana", now - 5),
    ]
    assert await invitations.pending("ana") == []  # the inviter's own list: nothing
    await invitations.drop("beto", "t1")
    assert await invitations.pending("beto") == [Invitation("t2", "ana", now - 5)]
    for n in range(MAX_INVITATIONS + 5):
        await invitations.add("dora", Invitation(f"t{n}", "ana", now + n))
    kept_now = await invitations.pending("dora")
    assert len(kept_now) == MAX_INVITATIONS
    assert kept_now[0].table == f"t{MAX_INVITATIONS + 4}"  # the oldest went first
    clock.now = now - 5 + INVITATION_TTL_S + 1  # three days after t2
    assert await invitations.pending("beto") == []


@pytest.mark.redis
async def test_an_invitation_made_on_one_process_is_listed_on_another(
    redis_server: RedisServer,
) -> None:
    settings = replace(TEST_SETTINGS, lease_s=2.0)
    one = TableServer(settings, store=await open_store(redis_server.url))
    two = TableServer(settings, store=await open_store(redis_server.url))
    await one.start()
    await two.start()
    try:
        ana = await person(one, "Ana", new_key())
        beto_key = new_key()
        beto = await person(two, "Beto", beto_key)
        ana_id, beto_id = await befriend(ana, beto)
        await beto.close()  # away
        created = await ana.request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        await ana.request(p.Invite(player=beto_id))
        beto = await person(two, "Beto", beto_key)
        answer = await beto.request(p.InvitationsRequest())
        assert isinstance(answer, p.Invitations)
        [line] = answer.invitations
        assert (line.by.id, line.table, line.join_key) == (ana_id, created.table, created.join_key)
        await ana.close()
        await beto.close()
    finally:
        await one.close()
        await two.close()
