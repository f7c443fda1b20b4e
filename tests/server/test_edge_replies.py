"""PROTOCOL.md's reply rules, each held against a real server, frame by frame.

- a request is answered once under its ``rid``: ``ack``, its own answer (``seated``,
  ``table_created``, ``pong``, ``record``), an ``update`` carrying the rid, or an ``error``;
- ``join``: the whole snapshot, then ``seated``, then the seat's update with rid null;
- ``watch``: the whole snapshot, then the ``ack``;
- ``hello`` with ``resume``: ``welcome``, then ``seated`` and the missed events; or, failed, one
  ``error`` alone (``bad_token``; a host key is no seat token) and the connection stays open;
- ``create`` leaves the creator off the table until it joins or watches with the host key;
- ``goodbye`` ends the connection: close 1000;
- a snapshot's ``info.spectators`` is the count when it is sent; ``presence`` carries changes;
- a game action whose ``at`` is ahead of the table is refused (``invalid_message``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused
from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.players import seat_four

WAIT_S = 10.0


class Raw:
    """A socket whose every server message is kept in order (updates not unfolded): protocol 3
    unless the hello names another (``tests/server/test_ws_compact.py`` covers 4's changes)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[s.ServerMessage] = []

    @classmethod
    async def open(cls, server: TableServer, **hello: object) -> tuple[Raw, list[s.ServerMessage]]:
        raw = cls(await connect(server.ws_url))
        hello = {"version": 3, **hello}
        await raw.send(c.Hello(rid=1, **hello))  # type: ignore[arg-type]
        return raw, await raw.until(lambda m: isinstance(m, s.Welcome))

    async def send(self, message: c.ClientMessage) -> None:
        await self.ws.send(encode(message))

    async def until(self, done: Callable[[s.ServerMessage], bool]) -> list[s.ServerMessage]:
        """The messages received up to and including the first one ``done`` accepts."""
        got: list[s.ServerMessage] = []
        async with asyncio.timeout(WAIT_S):
            while True:
                message = decode_server(await self.ws.recv())
                got.append(message)
                self.seen.append(message)
                if done(message):
                    return got

    async def ping(self, rid: int) -> list[s.ServerMessage]:
        """Everything up to the pong of ``rid``: whatever a request left to come is before it."""
        await self.send(c.Ping(rid=rid))
        return await self.until(lambda m: isinstance(m, s.Pong) and m.rid == rid)

    def answers(self, rid: int) -> list[str]:
        return [type(m).__name__ for m in self.seen if getattr(m, "rid", None) == rid]


def kinds(messages: list[s.ServerMessage]) -> list[str]:
    return [type(m).__name__ for m in messages]


async def host_at_table(server: TableServer) -> tuple[ClientSession, s.TableCreated]:
    ana = await ClientSession.connect(server.ws_url, "Ana")
    created = await ana.request(c.CreateTable())
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    return ana, created


async def test_join_sends_the_snapshot_then_seated_then_the_update_with_rid_null(
    table_server: TableServer,
) -> None:
    ana, created = await host_at_table(table_server)
    beto, _ = await Raw.open(table_server, name="Beto")
    await beto.send(c.Join(rid=7, key=created.join_key))
    got = await beto.until(lambda m: isinstance(m, s.Update))
    assert kinds(got) == ["Snapshot", "Seated", "Update"]
    seated, update = got[1], got[2]
    assert isinstance(seated, s.Seated)
    assert isinstance(update, s.Update)
    assert (seated.rid, seated.seat, update.rid) == (7, 1, None)
    assert [event.event.type for event in update.events] == ["seat_taken"]  # type: ignore[union-attr]
    await beto.ping(8)
    assert beto.answers(7) == ["Seated"]  # one answer
    await beto.ws.close()
    await ana.close()


async def test_watch_sends_the_snapshot_then_the_ack(table_server: TableServer) -> None:
    ana, created = await host_at_table(table_server)
    caro, _ = await Raw.open(table_server, name="Caro")
    await caro.send(c.Watch(rid=7, key=created.watch_key))
    got = await caro.until(lambda m: isinstance(m, s.Ack))
    assert got[0].type == "snapshot"
    assert got[-1] == s.Ack(rid=7)
    await caro.ping(8)
    assert caro.answers(7) == ["Ack"]
    await caro.ws.close()
    await ana.close()


async def test_a_change_is_answered_by_its_update_and_a_refusal_by_one_error(
    table_server: TableServer,
) -> None:
    _, created = await host_at_table(table_server)
    host, _ = await Raw.open(table_server, name="Host")
    await host.send(c.Watch(rid=2, key=created.host_key))
    await host.until(lambda m: isinstance(m, s.Ack))
    await host.send(c.AddBot(rid=3, level=1))
    await host.send(c.Start(rid=4))  # two seats are still empty
    await host.ping(5)
    assert host.answers(3) == ["Update"]  # no separate ack
    assert host.answers(4) == ["Error"]
    error = next(m for m in host.seen if isinstance(m, s.Error))
    assert error.code is ErrorCode.WRONG_PHASE
    await host.ws.close()


async def test_a_resume_answers_welcome_then_seated_and_the_missed_events(
    table_server: TableServer,
) -> None:
    ana, created = await host_at_table(table_server)
    beto = await ClientSession.connect(table_server.ws_url, "Beto")
    await beto.request(c.Join(key=created.join_key))
    token, seen = beto.token, beto.last_event
    assert token is not None
    await beto.close()
    await ana.request(c.AddBot(level=1))  # an event beto missed
    back, got = await Raw.open(table_server, name="Beto", resume=token, last_event=seen)
    got += await back.until(lambda m: isinstance(m, s.Snapshot | s.Update))
    assert kinds(got)[:2] == ["Welcome", "Seated"]
    assert all(m.type == "event" for m in got[2:-1])
    assert [m.n for m in got[2:-1] if isinstance(m, s.Event)] == list(range(seen + 1, seen + 2))
    await back.ping(9)
    assert back.answers(1) == ["Welcome", "Seated"]
    await back.ws.close()
    await ana.close()


@pytest.mark.parametrize("credential", ["forged-token-0000", "host"])
async def test_a_failed_resume_is_answered_once_by_an_error_and_stays_open(
    table_server: TableServer, credential: str
) -> None:
    ana, created = await host_at_table(table_server)
    token = created.host_key if credential == "host" else credential  # a host key holds no seat
    before = next(iter(table_server.lobby.rooms.values())).referee.to_state()
    raw = Raw(await connect(table_server.ws_url))
    await raw.send(c.Hello(rid=1, version=PROTOCOL_VERSION, name="Mallory", resume=token))
    got = await raw.until(lambda m: isinstance(m, s.Error))
    assert kinds(got) == ["Error"]  # one answer under the hello's rid
    error = got[0]
    assert isinstance(error, s.Error)
    assert (error.rid, error.code) == (1, ErrorCode.BAD_TOKEN)
    assert kinds(await raw.ping(2)) == ["Pong"]  # greeted, at no table
    assert next(iter(table_server.lobby.rooms.values())).referee.to_state() == before
    await raw.ws.close()
    await ana.close()


async def test_create_leaves_the_creator_off_the_table_until_it_uses_the_host_key(
    table_server: TableServer,
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        with pytest.raises(RequestRefused) as refused:
            await ana.request(c.AddBot(level=1))
        assert refused.value.code is ErrorCode.NOT_AT_TABLE
        await ana.request(c.Watch(key=created.host_key))
        assert ana.snapshot is not None
        assert (ana.snapshot.you.host, ana.snapshot.you.seat) == (True, None)
        await ana.request(c.AddBot(level=1))  # a host, watching


async def test_goodbye_closes_the_connection_with_1000(table_server: TableServer) -> None:
    ana, created = await host_at_table(table_server)
    elsewhere, _ = await host_at_table(table_server)  # another table, unaffected
    beto, _ = await Raw.open(table_server, name="Beto")
    await beto.send(c.Join(rid=2, key=created.join_key))
    await beto.until(lambda m: isinstance(m, s.Update))
    await ana.request(c.Kick(seat=1))
    with pytest.raises(ConnectionClosed):
        await beto.until(lambda m: False)
    assert isinstance(beto.seen[-1], s.Goodbye)
    assert (beto.ws.close_code, beto.ws.close_reason) == (1000, "goodbye")
    assert ana.snapshot is not None
    snap = await ana.next_snapshot(lambda snap: snap.info.seats[1].occupant == "empty")
    assert snap.info.seats[1].occupant == "empty"
    assert isinstance(await elsewhere.request(c.Ping()), s.Pong)
    await ana.close()
    await elsewhere.close()


async def test_snapshots_and_presence_carry_the_current_spectator_count(
    table_server: TableServer,
) -> None:
    ana, created = await host_at_table(table_server)
    watchers = [await ClientSession.connect(table_server.ws_url, n) for n in ("Beto", "Caro")]
    for watcher in watchers:
        await watcher.request(c.Watch(key=created.watch_key))
    await ana.next_of(s.Presence, lambda p: p.spectators == 2)
    await ana.request(c.AddBot(level=1))
    assert ana.snapshot is not None
    assert ana.snapshot.info.spectators == 2
    await watchers[0].close()
    await ana.next_of(s.Presence, lambda p: p.spectators == 1)
    await ana.request(c.AddBot(level=1))
    assert ana.snapshot.info.spectators == 1
    await watchers[1].close()
    await ana.close()


async def test_a_play_whose_at_lies_in_the_future_is_refused(table_server: TableServer) -> None:
    sessions, _ = await seat_four(table_server, keep_frames=False)
    await sessions[0].request(c.Start())
    for session in sessions:
        await session.next_snapshot(lambda snap: snap.view is not None)
        await session.request(c.Ping())  # every message sent before the pong has been read
    view = sessions[0].snapshot.view if sessions[0].snapshot else None
    assert view is not None
    assert view.turn is not None
    mover = sessions[view.turn]
    assert mover.snapshot is not None
    legal = mover.snapshot.legal[0]
    (room,) = table_server.lobby.rooms.values()
    before = room.referee.to_state()
    ahead = legal.model_copy(update={"at": mover.last_event + 5})
    with pytest.raises(RequestRefused) as refused:
        await mover.request(ahead)
    assert refused.value.code is ErrorCode.INVALID_MESSAGE
    assert "ahead of the table" in refused.value.error.message
    assert room.referee.to_state() == before
    await mover.act(legal)  # at = the last event seen: applied
    assert room.referee.to_state() != before
    for session in sessions:
        assert session.problems == []
        await session.close()
