"""A streak in progress and the best score survive a server restart on the Redis store (R14)."""

from __future__ import annotations

import itertools

import pytest

from clients.session import ClientSession
from protocol import ladder as m
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.server.ladder.players import greedy, play_to_the_end
from tests.serving import StartServer

pytestmark = pytest.mark.redis


async def test_a_streak_and_its_chica_in_progress_survive_a_server_restart(
    start_server: StartServer,
    redis_server: RedisServer,
) -> None:
    seeds = itertools.count(1000).__next__
    async with (
        start_server(store=await open_store(redis_server.url), seeds=seeds) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        token = (await ana.request(m.LadderOpen())).token  # type: ignore[union-attr]
        first = await ana.request(m.LadderPlay(token=token))
        assert isinstance(first, m.LadderState)
        assert first.chica is not None
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=first.chica.seat_token, last_event=0
        ) as person:
            final = await play_to_the_end(person)
        assert final.view is not None
        assert final.view.winner == 0  # pinned by the seed: the greedy person wins chica 1
        second = await ana.request(m.LadderPlay(token=token))
        assert isinstance(second, m.LadderState)
        assert second.chica is not None
        assert (second.streak, second.level) == (1, 2)
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=second.chica.seat_token, last_event=0
        ) as person:
            for _ in range(3):  # a few cards into chica 2, then the server goes down
                snap = await person.next_snapshot(
                    lambda x: bool(x.legal) and x.last_event == person.last_event
                )
                await person.act(greedy(snap.legal))
            seen = person.last_event

    async with (
        start_server(store=await open_store(redis_server.url), seeds=seeds) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        back = await ana.request(m.LadderOpen(token=token))
        assert isinstance(back, m.LadderState)
        assert back.token == token
        assert (back.streak, back.level, back.best) == (1, 2, second.best)
        assert back.chica == second.chica
        assert back.chica is not None
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=back.chica.seat_token, last_event=seen
        ) as person:
            final = await play_to_the_end(person)
            assert person.problems == []  # every event after `seen`, none twice
        assert final.view is not None
        settled = await ana.request(m.LadderOpen(token=token))
        assert isinstance(settled, m.LadderState)
        assert settled.last is not None
        assert settled.last.level == 2
        # The solo game waited through the restart: no stand-in played a card (no void win).
        assert settled.last.result != "void"
        won = final.view.winner == 0
        assert settled.streak == (2 if won else 0)
        assert settled.best >= second.best
        board = await ana.request(m.LadderBoardRequest())
        assert isinstance(board, m.LadderBoard)
        assert board.lines[0].score == settled.best
