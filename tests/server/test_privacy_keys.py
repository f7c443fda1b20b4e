"""Secrets over real sockets: no frame ever carries a player key (to anyone, its owner
included), nor a seat token to anyone but the seat's own connection, nor the host key to anyone
but its creator's ``table_created`` — through a whole game, a watcher, a seat taken back by the
same player key on a new connection, friends' lists and an invitation."""

from __future__ import annotations

import asyncio
import random

import msgpack

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from tests.server.people.wire import new_key, person
from tests.server.players import play_until_finished
from tests.serving import StartServer

NAMES = ("Ana", "Beto", "Caro", "Dani")


def leaked_secrets(frames: list[bytes], secrets: dict[str, str]) -> list[tuple[int, str]]:
    """(frame index, what) for every frame that carries one of ``secrets`` (what -> secret)."""
    return [
        (index, what)
        for index, frame in enumerate(frames)
        for what, secret in secrets.items()
        if secret.encode() in frame
    ]


def own_tokens(frames: list[bytes]) -> set[str]:
    """The seat tokens a viewer was given in its own ``seated`` answers."""
    found = set()
    for frame in frames:
        message = msgpack.unpackb(frame, raw=False)
        if message.get("type") == "seated":
            found.add(message["token"])
    return found


async def test_no_frame_carries_a_player_key_or_another_seats_token(
    start_server: StartServer,
) -> None:
    keys = {name: new_key() for name in NAMES}
    async with start_server(claim_window_s=0.05) as server:
        sessions = [await person(server, name, keys[name]) for name in NAMES]
        ids = [(await session.request(p.MeRequest())).id for session in sessions]  # type: ignore[union-attr]
        host = sessions[0]
        created = await host.request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await host.request(c.Join(key=created.host_key))
        await sessions[1].request(c.Join(key=created.join_key))
        await host.request(p.Friend(action="request", player=ids[2]))
        await sessions[2].request(p.Friend(action="accept", player=ids[0]))
        await host.request(p.Invite(player=ids[2]))
        invited = await sessions[2].next_of(p.Invited)
        await sessions[2].request(c.Join(key=invited.join_key))
        await sessions[3].request(c.Join(key=created.join_key))
        watcher = await ClientSession.connect(server.ws_url, "Eva", keep_frames=True)
        await watcher.request(c.Watch(key=created.watch_key))
        await host.request(c.Start())
        viewers = [*sessions, watcher]

        async def play(seat: int) -> None:
            session = sessions[seat]
            if seat == 3:  # the same player key, a new connection: the seat comes back
                await play_until_finished(session, random.Random(seat), stop_after=30)
                again = await person(server, NAMES[seat], keys[NAMES[seat]])
                viewers.append(again)
                await again.request(c.Join(key=created.join_key))
                session = again
            await play_until_finished(session, random.Random(seat))

        await asyncio.gather(*(play(seat) for seat in range(4)))
        for session in sessions[:3]:
            await session.next_of(p.Rated)
            await session.request(p.FriendsRequest())
        tokens = set().union(*(own_tokens(v.frames) for v in viewers))
        assert len(tokens) == 4  # the fourth seat's token was sent twice, to its one person
        for viewer in viewers:
            assert viewer.frames, "every viewer received frames"
            secrets = {f"player key {name}": key for name, key in keys.items()}
            secrets |= {f"token {n}": t for n, t in enumerate(tokens - own_tokens(viewer.frames))}
            assert leaked_secrets(viewer.frames, secrets) == []
            if viewer is not host:
                assert leaked_secrets(viewer.frames, {"host key": created.host_key}) == []
            await viewer.close()


def test_the_secret_checker_finds_a_key_in_a_frame() -> None:
    key = new_key()
    frame = msgpack.packb({"type": "chat", "text": f"my key is {key}"})
    assert leaked_secrets([b"\x80", frame], {"key": key}) == [(1, "key")]
