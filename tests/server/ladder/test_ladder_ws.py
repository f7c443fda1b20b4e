"""The solo ladder through the protocol, on the real server over 127.0.0.1 (R14).

Each chica is an ordinary ``heads-up`` table; the person resumes the seat the ladder reserved
with its seat token and plays it with the tests' greedy policy against the ladder's bot.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import ladder as m
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from server.ladder.rules import Chica, LadderRun
from tests.server.ladder.players import greedy, play_to_the_end
from tests.serving import StartServer


def counter(start: int) -> itertools.count[int]:
    return itertools.count(start)


async def ladder(session: ClientSession, request: m.LadderRequest) -> m.LadderState:
    answer = await session.request(request)
    assert isinstance(answer, m.LadderState)
    return answer


async def play_chica(server: TableServer, state: m.LadderState) -> s.Snapshot:
    """Take the reserved seat with its token and play the chica to its end."""
    assert state.chica is not None
    async with await ClientSession.connect(
        server.ws_url, "Ana", resume=state.chica.seat_token, last_event=0
    ) as person:
        final = await play_to_the_end(person)
        assert person.problems == []
        return final


async def test_r14_one_click_deals_a_heads_up_chica_against_a_level_1_bot(
    start_server: StartServer,
) -> None:
    async with start_server() as server, await ClientSession.connect(server.ws_url, "Ana") as ana:
        opened = await ladder(ana, m.LadderOpen())
        assert (opened.streak, opened.level, opened.score, opened.best, opened.chica) == (
            0,
            1,
            0,
            0,
            None,
        )
        state = await ladder(ana, m.LadderPlay(token=opened.token))
        assert state.chica is not None
        assert state.chica.level == 1
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=state.chica.seat_token, last_event=0
        ) as person:
            snap = await person.next_snapshot()
            assert snap.info.profile == "heads-up"
            assert snap.info.stage == "playing"
            assert [(x.occupant, x.bot_level) for x in snap.info.seats] == [
                ("person", None),
                ("bot", 1),
            ]
            assert snap.view is not None
            assert snap.view.seats == 2
            assert snap.you.seat == 0
            # The reserved seat waited for its person: no stand-in played a card for it.
            assert snap.view.hand_sizes[0] == 5
            assert not snap.info.seats[0].stand_in
        again = await ladder(ana, m.LadderPlay(token=opened.token))
        assert again.chica == state.chica  # the chica in progress, not a second table


async def test_r14_wins_raise_the_level_and_a_loss_ends_the_streak(
    start_server: StartServer,
) -> None:
    async with (
        start_server(seeds=counter(1000).__next__) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        state = await ladder(ana, m.LadderOpen())
        token = state.token
        history = []
        margins = 0
        for _ in range(4):
            expected_level = state.level
            state = await ladder(ana, m.LadderPlay(token=token))
            assert state.chica is not None
            level_played = state.chica.level
            assert level_played == expected_level
            streak_before = state.streak
            final = await play_chica(server, state)
            assert final.view is not None
            ours, theirs = final.view.scores
            state = await ladder(ana, m.LadderOpen(token=token))
            assert state.last is not None
            assert state.chica is None
            history.append((level_played, state.last.result))
            if final.view.winner == 0:
                margins += ours - theirs
                assert state.last.result == "won"
                assert state.streak == streak_before + 1
                assert state.level == min(state.streak + 1, 4)
                assert state.margin == margins
                assert state.score == state.streak * 10_000 + min(margins, 9_999)
            else:
                assert state.last.result == ("draw" if final.view.winner == "draw" else "lost")
                margins = 0
                assert (state.streak, state.level, state.margin, state.score) == (0, 1, 0, 0)
            assert state.best >= state.score
        # With this seed the greedy person wins at levels 1 and 2, then loses at level 3.
        assert history[0] == (1, "won")
        assert {"won", "lost"} <= {result for _, result in history}


async def test_r14_new_ends_the_streak_and_deals_against_level_1(
    start_server: StartServer,
) -> None:
    async with (
        start_server(seeds=counter(1000).__next__) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        token = (await ladder(ana, m.LadderOpen())).token
        await play_chica(server, await ladder(ana, m.LadderPlay(token=token)))
        won = await ladder(ana, m.LadderPlay(token=token))
        assert (won.streak, won.level) == (1, 2)
        fresh = await ladder(ana, m.LadderNew(token=token))
        assert fresh.last is not None
        assert fresh.last.result == "abandoned"
        assert fresh.chica is not None
        assert (fresh.streak, fresh.level, fresh.chica.level) == (0, 1, 1)
        assert won.chica is not None
        assert fresh.chica.table != won.chica.table
        assert fresh.best == won.best


async def test_ladder_tokens_are_issued_by_the_server_never_made_up(
    table_server: TableServer,
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        made_up = "my-own-token-123"
        opened = await ladder(ana, m.LadderOpen(token=made_up))
        assert opened.token != made_up
        assert len(opened.token) >= 16
        with pytest.raises(RequestRefused) as refused:
            await ana.request(m.LadderPlay(token=made_up))
        assert refused.value.code is ErrorCode.NOT_FOUND


async def test_the_leaderboard_shows_checked_names_and_best_scores(
    start_server: StartServer,
) -> None:
    async with (
        start_server(seeds=counter(1000).__next__) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        token = (await ladder(ana, m.LadderOpen())).token
        with pytest.raises(RequestRefused) as refused:
            await ana.request(m.LadderRename(token=token, name="visit www.spam.ec"))
        assert refused.value.code is ErrorCode.BAD_NAME
        named = await ladder(ana, m.LadderRename(token=token, name="  Ana  María "))
        assert named.name == "Ana María"
        await play_chica(server, await ladder(ana, m.LadderPlay(token=token)))
        state = await ladder(ana, m.LadderOpen(token=token))
        board = await ana.request(m.LadderBoardRequest())
        assert isinstance(board, m.LadderBoard)
        assert [(x.rank, x.name, x.score, x.streak) for x in board.lines] == [
            (1, "Ana María", state.best, 1)
        ]


async def test_a_chica_whose_table_is_gone_ends_the_streak_as_abandoned(
    table_server: TableServer,
) -> None:
    """A chica table left unplayed past its TTL no longer exists: the streak ends, best kept."""
    gone = Chica("no-such-table", "join-key-gone", 0, "no-such-table.secret", 3)
    await table_server.ladder.store.save(
        LadderRun("kept-token-123", streak=2, margins=30, best=20_030, chica=gone)
    )
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        state = await ladder(ana, m.LadderOpen(token="kept-token-123"))
        assert state.last is not None
        assert (state.last.result, state.last.level) == ("abandoned", 3)
        assert (state.streak, state.level, state.best, state.chica) == (0, 1, 20_030, None)


async def test_r14_a_solo_chica_left_mid_hand_is_unloaded_and_comes_back_as_it_was(
    start_server: StartServer,
) -> None:
    """Nobody connected and nothing due: the waiting chica leaves memory, its state stays
    stored, and the seat token brings it back at the same position (no move made meanwhile)."""
    async with (
        start_server(seeds=counter(2000).__next__, idle_unload_s=0.1) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        token = (await ladder(ana, m.LadderOpen())).token
        state = await ladder(ana, m.LadderPlay(token=token))
        assert state.chica is not None
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=state.chica.seat_token, last_event=0
        ) as person:
            for _ in range(2):
                snap = await person.next_snapshot(
                    lambda x: bool(x.legal) and x.last_event == person.last_event
                )
                await person.act(greedy(snap.legal))
            before = await person.next_snapshot(
                lambda x: bool(x.legal) and x.last_event == person.last_event
            )
        while state.chica.table in server.lobby.rooms:  # noqa: ASYNC110 (the lobby has no event)
            await asyncio.sleep(0.05)
        async with await ClientSession.connect(
            server.ws_url, "Ana", resume=state.chica.seat_token, last_event=before.last_event
        ) as person:
            back = await person.next_snapshot()
            assert back.last_event == before.last_event
            assert back.view == before.view
            assert back.legal == before.legal
            assert not back.info.seats[0].stand_in
        again = await ladder(ana, m.LadderOpen(token=token))
        assert (again.streak, again.chica) == (state.streak, state.chica)
