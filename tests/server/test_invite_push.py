"""A friend invited while away (issue 41): pushed a ``friend_invite`` notice that carries no key,
through the loopback push service that checks VAPID and decrypts (``test_web_push``); the page
it opens lists the invitation, with the table's join key, to that person alone."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import pytest

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from server.app import TableServer
from server.people.invitations import INVITATION_TTL_S
from tests.server.people.wire import me, new_key, person
from tests.server.test_web_push import (  # noqa: F401  (push_service is a fixture)
    SETTINGS,
    PushService,
    drain,
    push_service,
    subscribed,
)


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def server(push_service: PushService, clock: Clock) -> AsyncIterator[TableServer]:  # noqa: F811
    started = TableServer(SETTINGS, clock=clock)
    await started.start()
    push_service.contact = SETTINGS.push_contact
    yield started
    await started.close()


async def befriend(one: ClientSession, other: ClientSession) -> tuple[str, str]:
    one_id, other_id = (await me(one)).id, (await me(other)).id
    await one.request(p.Friend(action="request", player=other_id))
    await other.request(p.Friend(action="accept", player=one_id))
    return one_id, other_id


async def invitations(session: ClientSession, drop: str | None = None) -> list[p.Invitation]:
    answer = await session.request(p.InvitationsRequest(drop=drop))
    assert isinstance(answer, p.Invitations)
    return answer.invitations


async def test_a_friend_away_is_pushed_no_key_and_finds_the_invitation_on_me(
    server: TableServer,
    push_service: PushService,  # noqa: F811
    clock: Clock,
) -> None:
    ana = await ClientSession.connect(server.ws_url, "Abuela", player_key=new_key())
    caro = await person(server, "Caro", new_key())
    beto_key = new_key()
    beto = await subscribed(server, push_service, "Beto", key=beto_key)
    ana_id, beto_id = await befriend(ana, beto)
    await beto.close()  # his tab is closed
    created = await ana.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    await ana.request(p.Invite(player=beto_id))
    await ana.request(p.Invite(player=(await me(caro)).id))  # not a friend: nothing at all

    name, pushed, _ = await push_service.received.get()
    assert name == "Beto"
    assert pushed["kind"] == "friend_invite"
    assert pushed["url"] == f"/me?invite={created.table}"
    assert pushed["detail"] == "Abuela"
    text = json.dumps(pushed)
    assert all(key not in text for key in (created.join_key, created.host_key, created.watch_key))

    beto = await ClientSession.connect(server.ws_url, "Beto", player_key=beto_key)
    [line] = await invitations(beto)  # opened from the push: his own socket, his own key
    assert (line.by.id, line.by.name, line.table) == (ana_id, "Abuela", created.table)
    assert (line.profile, line.join_key) == ("pagat-4p", created.join_key)
    assert await invitations(caro) == []  # someone else: nothing, and no key
    assert created.join_key.encode() not in b"".join(caro.frames)
    seated = await beto.request(c.Join(key=line.join_key))
    assert isinstance(seated, s.Seated)
    assert await invitations(beto, drop=created.table) == []  # sat: forgotten

    await ana.request(p.Invite(player=beto_id))  # kept three days, no longer
    assert len(await invitations(beto)) == 1
    clock.now += INVITATION_TTL_S + 1
    assert await invitations(beto) == []
    clock.now -= INVITATION_TTL_S + 1
    await ana.request(p.Invite(player=beto_id))
    await beto.request(p.Friend(action="block", player=ana_id))  # no longer friends: not shown
    assert await invitations(beto) == []
    for session in (ana, beto, caro):
        await session.close()


async def test_a_friend_online_gets_the_live_invitation_and_one_push_per_invitation(
    server: TableServer,
    push_service: PushService,  # noqa: F811
    clock: Clock,
) -> None:
    ana = await ClientSession.connect(server.ws_url, "Ana", player_key=new_key())
    beto = await subscribed(server, push_service, "Beto")
    _, beto_id = await befriend(ana, beto)
    created = await ana.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    await ana.request(p.Invite(player=beto_id))
    await ana.request(p.Invite(player=beto_id))  # the same minute: the same invitation
    for _ in range(2):
        invited = await beto.next_of(p.Invited)
        assert invited.join_key == created.join_key  # live, over his own socket
    _, first, _ = await push_service.received.get()
    clock.now += 60  # a minute later: a new invitation, a new push
    await ana.request(p.Invite(player=beto_id))
    _, second, _ = await push_service.received.get()
    assert first["kind"] == second["kind"] == "friend_invite"
    assert drain(push_service) == []  # two pushes for the three invitations
    assert len(await invitations(beto)) == 1  # one table, one inviter: one line
    await ana.close()
    await beto.close()
