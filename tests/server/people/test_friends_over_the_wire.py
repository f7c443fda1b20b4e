"""Friends on a real server: a friend sees the other online at their table, is invited there,
accepts and sits; a stranger or a blocker is told nothing; floods are limited."""

from __future__ import annotations

import msgpack
import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.people.routes import INVITES_PER_MIN
from server.people.store import REQUESTS_PER_MINUTE
from tests.server.people.wire import frames_with, me, new_key, person
from tests.serving import StartServer


async def befriend(one: ClientSession, other: ClientSession) -> tuple[str, str]:
    """``one`` asks, ``other`` accepts: their public ids."""
    one_id, other_id = (await me(one)).id, (await me(other)).id
    await one.request(p.Friend(action="request", player=other_id))
    await other.request(p.Friend(action="accept", player=one_id))
    return one_id, other_id


async def friends(session: ClientSession) -> dict[str, p.FriendLine]:
    answer = await session.request(p.FriendsRequest())
    assert isinstance(answer, p.Friends)
    return {line.id: line for line in answer.friends}


async def once_offline(session: ClientSession, player: str) -> p.FriendLine:
    """The friend's line once the server has seen their connection close: its handler ends
    just after the socket does, so ask again (a round trip each) until it has, a bounded
    number of times."""
    for _ in range(200):
        line = (await friends(session))[player]
        if not line.online:
            break
        await session.request(c.Ping())
    return line


async def nothing_waiting(session: ClientSession, invitations: int = 0) -> None:
    """``session`` was sent only ``invitations`` invitations so far (a ping's answer comes
    after whatever was written to the socket before it; the session keeps every frame)."""
    await session.request(c.Ping())
    kinds = [msgpack.unpackb(frame, raw=False).get("type") for frame in session.frames]
    assert "pong" in kinds
    assert kinds.count("invited") == invitations


async def test_a_friend_sees_the_other_at_a_table_is_invited_and_sits(
    start_server: StartServer,
) -> None:
    keys = {name: new_key() for name in ("Ana", "Beto", "Caro")}
    async with start_server() as server:
        ana, beto, caro = [await person(server, name, keys[name]) for name in keys]
        ana_id, beto_id = await befriend(ana, beto)
        assert (await friends(beto))[ana_id].online
        assert (await friends(beto))[ana_id].table is None
        created = await ana.request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        line = (await friends(beto))[ana_id]
        assert (line.online, line.table) == (True, created.table)
        assert ana_id not in await friends(caro)  # only friends see where one is

        await ana.request(p.Invite(player=beto_id))
        invited = await beto.next_of(p.Invited)
        assert (invited.by.id, invited.by.name, invited.table) == (ana_id, "Ana", created.table)
        assert (invited.profile, invited.join_key) == ("pagat-4p", created.join_key)
        seated = await beto.request(c.Join(key=invited.join_key))
        assert isinstance(seated, s.Seated)
        assert seated.seat == 1

        await ana.request(p.Invite(player=(await me(caro)).id))  # not a friend: told nothing
        await nothing_waiting(caro)
        await beto.request(p.Friend(action="block", player=ana_id))
        await ana.request(p.Invite(player=beto_id))  # blocked: dropped silently
        await nothing_waiting(beto, invitations=1)  # the first one only
        assert frames_with([caro], created.join_key) == []
        for key in keys.values():
            assert frames_with([ana, beto, caro], key) == []
        await beto.request(p.Friend(action="unblock", player=ana_id))
        await befriend(beto, ana)
        await ana.close()
        assert not (await once_offline(beto, ana_id)).online
        for session in (beto, caro):
            await session.close()


async def test_an_invitation_needs_a_table_and_a_player(start_server: StartServer) -> None:
    async with start_server() as server:
        ana, beto = [await person(server, name, new_key()) for name in ("Ana", "Beto")]
        _, beto_id = await befriend(ana, beto)
        with pytest.raises(RequestRefused) as refused:
            await ana.request(p.Invite(player=beto_id))
        assert refused.value.code is ErrorCode.NOT_AT_TABLE
        guest = await ClientSession.connect(server.ws_url, "Guest")
        with pytest.raises(RequestRefused) as refused:
            await guest.request(p.Invite(player=beto_id))
        assert refused.value.code is ErrorCode.NO_PLAYER
        for session in (ana, beto, guest):
            await session.close()


async def test_floods_of_invitations_and_friend_requests_are_limited(
    start_server: StartServer,
) -> None:
    async with start_server() as server:
        ana, beto = [await person(server, name, new_key()) for name in ("Ana", "Beto")]
        _, beto_id = await befriend(ana, beto)
        created = await ana.request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        for _ in range(INVITES_PER_MIN):
            await ana.request(p.Invite(player=beto_id))
        with pytest.raises(RequestRefused) as refused:
            await ana.request(p.Invite(player=beto_id))
        assert refused.value.code is ErrorCode.RATE_LIMITED
        others = [
            (await server.people.enter(new_key(), f"P{n}")).id
            for n in range(REQUESTS_PER_MINUTE + 1)
        ]
        for other in others[:REQUESTS_PER_MINUTE]:
            await beto.request(p.Friend(action="request", player=other))
        with pytest.raises(RequestRefused) as refused:
            await beto.request(p.Friend(action="request", player=others[-1]))
        assert refused.value.code is ErrorCode.RATE_LIMITED
        for session in (ana, beto):
            await session.close()


async def test_forget_me_leaves_a_guest_and_the_games_keep_their_names(
    start_server: StartServer,
) -> None:
    async with start_server() as server:
        ana, beto = [await person(server, name, new_key()) for name in ("Ana", "Beto")]
        ana_id, _ = await befriend(ana, beto)
        await ana.request(p.ForgetMe(confirm=True))
        with pytest.raises(RequestRefused) as refused:
            await ana.request(p.MeRequest())
        assert refused.value.code is ErrorCode.NO_PLAYER
        assert ana_id not in await friends(beto)
        for session in (ana, beto):
            await session.close()


async def test_a_person_first_seen_as_guest_takes_the_first_name_given_and_keeps_it(
    start_server: StartServer,
) -> None:
    """The club page says hello as ``guest`` until a member joins with a name: that name is the
    person's from then on; a later hello's different name does not rename a named person."""
    key = new_key()
    async with start_server() as server:
        async with await person(server, "guest", key) as first:
            assert (await me(first)).name == "guest"
        async with await person(server, "Abuela Rosa", key) as named:
            assert (await me(named)).name == "Abuela Rosa"
        async with await person(server, "someone else", key) as again:
            assert (await me(again)).name == "Abuela Rosa"
