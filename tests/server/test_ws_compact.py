"""Protocol 4 over real sockets: clients that follow events play whole games beside protocol 3.

Three players and a spectator speak protocol 4 (``change`` frames, the view followed from the
events), one player and a spectator protocol 3 (``update`` frames), at one table: every one of
them plays to the end with no break in the numbering, no snapshot asked for, and each
follower's view at the end is exactly the whole snapshot a ``sync`` then brings.
"""

from __future__ import annotations

import asyncio
import random
from functools import partial

import msgpack

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from tests.server.players import leaked_cards, play_until_finished, watched_bot_table
from tests.serving import StartServer


async def _watchers(url: str, created: s.TableCreated) -> list[ClientSession]:
    """Two spectators of the table, keeping their frames: one on protocol 4, one on 3."""
    watchers = [
        await ClientSession.connect(url, "Eva", keep_frames=True, version=version)
        for version in (4, 3)
    ]
    for watcher in watchers:
        await watcher.request(c.Watch(key=created.watch_key))
    return watchers


def _at_table(table: str, snapshot: s.Snapshot) -> bool:
    return snapshot.info.table == table


def _kinds(session: ClientSession) -> set[str]:
    return {msgpack.unpackb(frame)["type"] for frame in session.frames}


async def test_protocol_4_and_3_clients_play_a_whole_game_at_one_table(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        versions = [4, 3, 4, 4]
        players = [
            await ClientSession.connect(server.ws_url, name, keep_frames=True, version=version)
            for name, version in zip(("Ana", "Beto", "Caro", "Dani"), versions, strict=True)
        ]
        created = await players[0].request(c.CreateTable(profile="pagat-4p"))
        assert isinstance(created, s.TableCreated)
        await players[0].request(c.Join(key=created.host_key))
        for player in players[1:]:
            await player.request(c.Join(key=created.join_key))
        watchers = await _watchers(server.ws_url, created)
        await players[0].request(c.Start())
        finals = await asyncio.gather(
            *(play_until_finished(x, random.Random(i)) for i, x in enumerate(players)),
            *(w.next_snapshot(lambda snap: snap.info.stage == "finished", 60) for w in watchers),
        )
        answer = await players[0].request(c.GetRecord())
        assert isinstance(answer, s.RecordMessage)
        sessions = [*players, *watchers]
        for session, final, version in zip(sessions, finals, [*versions, 4, 3], strict=True):
            assert session.problems == []
            assert session.syncs == 0
            assert ("change" in _kinds(session)) == (version == 4)
            assert ("update" in _kinds(session)) == (version == 3)
            assert leaked_cards(session.frames, session.seat, answer.record) == []
            await session.request(c.Sync())
            whole = await session.next_snapshot()
            assert whole.view == final.view, f"{session.seat} on protocol {version}"
            assert whole.last_event == final.last_event
        for session in sessions:
            await session.close()


async def test_a_protocol_4_spectator_is_sent_less_than_half_the_bytes_of_protocol_3(
    start_server: StartServer,
) -> None:
    """Issue 40: each change tells a spectator the events, not the public view again."""
    async with start_server(claim_window_s=0.05) as server:
        host = await ClientSession.connect(server.ws_url, "Ana")
        created = await host.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await host.request(c.Watch(key=created.host_key))
        watchers = await _watchers(server.ws_url, created)
        for _ in range(4):
            await host.request(c.AddBot(level=1))
        await host.request(c.Start())
        for watcher in watchers:
            await watcher.next_snapshot(lambda snap: snap.info.stage == "finished", 60)
        compact, full = (
            sum(len(f) for f in w.frames if msgpack.unpackb(f)["type"] in ("change", "update"))
            for w in watchers
        )
        assert compact * 2 <= full, (compact, full)
        for session in (host, *watchers):
            await session.close()


async def test_a_follower_whose_view_went_astray_asks_for_a_snapshot_and_goes_on(
    start_server: StartServer,
) -> None:
    """A view that an event does not fit (here: every hand emptied by hand) is not shown; the
    session syncs, and from the snapshot it follows the game to the end again."""
    async with start_server(claim_window_s=0.05) as server:
        ana = await ClientSession.connect(server.ws_url, "Ana")
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        eva = await ClientSession.connect(server.ws_url, "Eva")
        await eva.request(c.Watch(key=created.watch_key))
        for _ in range(3):
            await ana.request(c.AddBot(level=1))
        await ana.request(c.Start())
        # the table waits for Ana's card: Eva holds the same moment, and nothing moves
        turn = await ana.next_snapshot(lambda snap: any(isinstance(a, c.Play) for a in snap.legal))
        seen = await eva.next_snapshot(lambda snap: snap.last_event == turn.last_event)
        assert seen.view is not None
        astray = seen.view.model_copy(update={"hand_sizes": [0, 0, 0, 0]})
        eva.snapshot = seen.model_copy(update={"view": astray})
        await ana.act(next(a for a in turn.legal if isinstance(a, c.Play)))
        final, _ = await asyncio.gather(
            eva.next_snapshot(lambda snap: snap.info.stage == "finished", 60),
            play_until_finished(ana, random.Random(3)),
        )
        assert eva.syncs == 1
        assert eva.problems == []
        await eva.request(c.Sync())
        assert (await eva.next_snapshot()).view == final.view
        for session in (ana, eva):
            await session.close()


async def test_a_host_who_watches_one_new_table_after_another_follows_each_with_no_sync(
    start_server: StartServer,
) -> None:
    """A new table's events are numbered from 1: a session that moves on to watch it starts
    over from its snapshot (no gap reported, no snapshot asked for, no rate limit met)."""
    async with start_server(claim_window_s=0.05) as server:
        host = await ClientSession.connect(server.ws_url, "Host")
        async with host:
            for _ in range(3):
                table = (await watched_bot_table(host)).table
                await host.next_snapshot(partial(_at_table, table))
            assert host.syncs == 0
            assert host.problems == []
