"""People over the wire: sessions with a player key, a table of people and bots, a game played
out, and the audit that no frame carries a player key."""

from __future__ import annotations

import asyncio
import random
import secrets

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from protocol.game_events import GameOver
from server.app import TableServer
from tests.server.players import play_until_finished


def new_key() -> str:
    """A player key as the browser makes one: 32 random bytes, base64url."""
    return secrets.token_urlsafe(32)


async def person(server: TableServer, name: str, key: str) -> ClientSession:
    return await ClientSession.connect(server.ws_url, name, player_key=key, keep_frames=True)


async def me(session: ClientSession) -> p.Me:
    answer = await session.request(p.MeRequest())
    assert isinstance(answer, p.Me)
    return answer


async def table_of(
    host: ClientSession, people: list[ClientSession], profile: str, bot_level: int, casual: bool
) -> s.TableCreated:
    """``host`` creates a table and sits (host key); ``people`` join; bots fill the rest."""
    created = await host.request(c.CreateTable(profile=profile, casual=casual))  # type: ignore[arg-type]
    assert isinstance(created, s.TableCreated)
    await host.request(c.Join(key=created.host_key))
    for other in people:
        await other.request(c.Join(key=created.join_key))
    seats = {"pagat-4p": 4, "heads-up": 2, "libre-2p": 2}[profile]
    for _ in range(seats - 1 - len(people)):
        await host.request(c.AddBot(level=bot_level))
    return created


async def play_out(sessions: list[ClientSession]) -> GameOver:
    """Every person plays random legal moves until the game ends; the game's end, as seen."""
    rng = random.Random(7)
    await asyncio.gather(*(play_until_finished(session, rng) for session in sessions))
    over = [event.event for event in sessions[0].events if isinstance(event.event, GameOver)]
    assert over, "the game ended"
    return over[-1]


def frames_with(sessions: list[ClientSession], secret: str) -> list[tuple[int, int]]:
    """(session, frame) of every frame received that carries ``secret``."""
    needle = secret.encode()
    return [
        (i, n)
        for i, session in enumerate(sessions)
        for n, frame in enumerate(session.frames)
        if needle in frame
    ]
