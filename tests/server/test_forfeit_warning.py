"""The push before a forfeit (issue 41, ``server.core.turns.warning``): at a forfeit table, the
person whose side missed its last deadline is pushed their next turn with the warning that one
more missed turn forfeits the game — through the real sender, to a push service on loopback that
checks the VAPID signature and decrypts the payload; the warning rides the turn's own notice (its
switch, its one push). On a fake clock of hours; the referee-level reading (who is warned, when
it clears) is pinned in tests/server/core/test_turn_forfeit.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from clients.session import ClientSession
from protocol import away as a
from protocol import players as p
from server.app import TableServer
from server.notices import Notice
from tests.server.people.wire import new_key
from tests.server.test_turn_based_tables import HOUR, SETTINGS, FakeClock, ana_at_a_turn_based_table
from tests.server.test_web_push import Browser, PushService, served

PUSH_SETTINGS = replace(SETTINGS, push_loopback=1, push_contact="mailto:club@example.org")


@pytest.fixture
async def push_service() -> AsyncIterator[PushService]:
    service = PushService()
    service.contact = PUSH_SETTINGS.push_contact
    async with served(service):
        yield service


async def subscribe(server: TableServer, service: PushService, key: str) -> None:
    """Ana's browser subscribes to pushes (her player key), then its tab closes."""
    async with await ClientSession.connect(server.ws_url, "Ana", player_key=key) as ana:
        answer = await ana.request(a.PushKeyRequest())
        assert isinstance(answer, a.PushKey)
        service.server_key = answer.public_key
        browser = service.browsers["Ana"] = Browser()
        await ana.request(browser.subscribe(f"http://127.0.0.1:{service.port}/push/Ana"))


async def next_push(service: PushService) -> dict[str, Any]:
    async with asyncio.timeout(20):
        name, pushed, _ = await service.received.get()
    assert name == "Ana"
    return pushed


async def missed_deadline(server: TableServer, clock: FakeClock, table: str) -> None:
    """Nobody came for an hour and more: the table, out of memory, is woken by its deadline."""
    assert table in await server.lobby.unload_idle()
    clock.now += HOUR + 1
    assert await server.watch.scan() == [table]


async def test_one_missed_deadline_at_a_forfeit_table_warns_the_side_in_its_next_turn_push(
    push_service: PushService,
) -> None:
    clock = FakeClock()
    server = TableServer(PUSH_SETTINGS, clock=clock)
    await server.start()
    try:
        key = new_key()
        await subscribe(server, push_service, key)
        ana, created = await ana_at_a_turn_based_table(server, "forfeit", key)
        table = created.table
        await ana.close()  # her decision was shown to her: no push for this one
        await missed_deadline(server, clock, table)  # the stand-in plays her card: one missed
        warned = await next_push(push_service)  # the bots play on, to her next turn
        assert (warned["kind"], warned["warning"]) == ("your_turn", "forfeit_next")
        assert warned["url"] == f"/me?open={table}"
        text = json.dumps(warned)
        assert all(k not in text for k in (created.join_key, created.host_key, created.watch_key))
        stored = await server.lobby.store.load(table)
        assert stored is not None
        assert json.loads(stored.state)["pace"]["missed"] == [1, 0]

        async with await ClientSession.connect(server.ws_url, "Ana", player_key=key) as back:
            me = await back.request(p.MeRequest())
            assert isinstance(me, p.Me)
            await back.request(a.SetNoticeSettings(off=["your_turn"]))
        sender = server.push
        assert sender is not None
        warned_turn = Notice(
            "your_turn", me.id, "your_turn:x:0:1", "/me?open=x", "x", warning="forfeit_next"
        )
        assert await sender.deliver(warned_turn) == 0  # her switch holds for a warned turn too
        near = replace(warned_turn, kind="deadline_near", key="deadline_near:x:0:1")
        assert await sender.deliver(near) == 1  # the kind she left on
        assert (await next_push(push_service))["warning"] == "forfeit_next"
    finally:
        await server.close()
