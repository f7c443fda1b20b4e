"""People who come back, on a real server: a finished game lands in each person's history and
moves their rating by what ``server.people.rating`` computes (R1 teams); a casual table moves
nothing; the same player key takes its seat back; no frame ever carries a player key."""

from __future__ import annotations

import msgpack
import pytest
from websockets.asyncio.client import connect

from clients.session import ClientSession, RequestRefused
from protocol import PROTOCOL_VERSION
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.people.model import Rating
from server.people.rating import NEWCOMER, bot_rating, rate
from tests.server.people.wire import frames_with, me, new_key, person, play_out, table_of
from tests.server.players import seeds_not_won_on_the_deal
from tests.serving import StartServer

BOT_LEVEL = 2


async def test_two_people_play_a_rated_game_and_find_it_in_their_history(
    start_server: StartServer,
) -> None:
    """Ana (seat 0) and Beto (seat 1) against each other, each beside a bot (R1: seats 0 and 2
    are a team): both are told their change, which is openskill's, and Ana, coming back on a
    new connection with her key, finds the game with its result and number."""
    keys = {"Ana": new_key(), "Beto": new_key()}
    async with start_server() as server:
        ana, beto = [await person(server, name, keys[name]) for name in ("Ana", "Beto")]
        ids = {"Ana": (await me(ana)).id, "Beto": (await me(beto)).id}
        created = await table_of(ana, [beto], "pagat-4p", BOT_LEVEL, casual=False)
        await ana.request(c.Start())
        over = await play_out([ana, beto])
        winner = over.winner if isinstance(over.winner, int) else None
        rated = {
            name: await session.next_of(p.Rated) for name, session in (("Ana", ana), ("Beto", beto))
        }
        bot = bot_rating(BOT_LEVEL)
        expected = rate([[NEWCOMER, bot], [NEWCOMER, bot]], winner)
        for team, name in enumerate(("Ana", "Beto")):
            new: Rating = expected[team][0]
            assert rated[name].change == new.shown - NEWCOMER.shown
            assert rated[name].rating == new.shown
            assert (rated[name].casual, rated[name].game) == (False, 1)
            assert (await me(ana if name == "Ana" else beto)).ratings == [
                p.RatingLine(profile_class="pairs", rating=new.shown, games=1)
            ]
        if winner is not None:  # both teams moved, opposite ways
            assert rated["Ana"].change * rated["Beto"].change < 0  # type: ignore[operator]
        sessions = [ana, beto]
        await ana.close()
        again = await person(server, "someone else", keys["Ana"])
        sessions.append(again)
        assert (await me(again)).id == ids["Ana"]
        history = await again.request(p.HistoryRequest())
        assert isinstance(history, p.History)
        (game,) = history.games
        assert (game.table, game.game, game.profile, game.casual) == (
            created.table,
            1,
            "pagat-4p",
            False,
        )
        assert game.score == list(over.scores)
        assert game.result == ("draw" if winner is None else "won" if winner == 0 else "lost")
        assert game.rating_change == rated["Ana"].change
        assert [seat.id for seat in game.opponents] == [ids["Beto"], None]
        assert game.partners == [p.PastSeat(name=f"Bot {BOT_LEVEL}", bot_level=BOT_LEVEL)]
        for key in keys.values():  # no player key in any frame, its owner's included
            assert frames_with(sessions, key) == []
        await beto.close()
        await again.close()


async def test_a_casual_table_keeps_the_game_and_changes_no_rating(
    start_server: StartServer,
) -> None:
    async with start_server() as server:
        ana = await person(server, "Ana", new_key())
        await table_of(ana, [], "heads-up", BOT_LEVEL, casual=True)
        snap = await ana.next_snapshot(lambda snap: snap.info.casual)
        assert snap.info.casual
        await ana.request(c.Start())
        await play_out([ana])
        rated = await ana.next_of(p.Rated)
        assert (rated.casual, rated.change, rated.rating) == (True, None, None)
        assert (await me(ana)).ratings == []
        history = await ana.request(p.HistoryRequest())
        assert isinstance(history, p.History)
        assert [(game.casual, game.rating_change) for game in history.games] == [(True, None)]
        await ana.close()


async def test_the_host_marks_a_table_casual_before_the_start_only(
    start_server: StartServer,
) -> None:
    async with start_server(seeds=seeds_not_won_on_the_deal("heads-up")) as server:
        ana = await person(server, "Ana", new_key())
        await table_of(ana, [], "heads-up", BOT_LEVEL, casual=False)
        await ana.request(c.SetOptions(casual=True))
        snap = await ana.next_snapshot(lambda snap: snap.info.casual)
        assert snap.info.casual
        await ana.request(c.Start())
        with pytest.raises(RequestRefused) as refused:
            await ana.request(c.SetOptions(casual=False))
        assert refused.value.code is ErrorCode.WRONG_PHASE
        await ana.close()


async def test_the_same_player_key_on_another_connection_takes_the_seat_back(
    start_server: StartServer, capfd: pytest.CaptureFixture[str]
) -> None:
    key = new_key()
    async with start_server() as server:
        first = await person(server, "Ana", key)
        mine = await me(first)
        created = await table_of(first, [], "pagat-4p", BOT_LEVEL, casual=False)
        snap = await first.next_snapshot(lambda snap: snap.info.seats[0].player is not None)
        assert snap.info.seats[0].player == mine.id  # public: every viewer sees it
        second = await person(server, "Ana", key)
        seated = await second.request(c.Join(key=created.join_key))
        assert isinstance(seated, s.Seated)
        assert seated.seat == 0
        goodbye = await first.next_of(s.Goodbye)
        assert "taken back" in goodbye.reason
        snap = await second.next_snapshot()
        assert [seat.player for seat in snap.info.seats] == [mine.id, None, None, None]
        assert frames_with([first, second], key) == []
        await second.close()
        await first.close()
    logged = "".join(capfd.readouterr())
    assert mine.id in logged  # the log names the person by public id, and never by key
    assert key not in logged


@pytest.mark.parametrize(
    "bad",
    ["short", "x" * 31, "y" * 65, "not a key: spaces and !" + "z" * 20],
)
async def test_a_malformed_player_key_is_refused_and_names_no_one(
    start_server: StartServer, bad: str
) -> None:
    async with start_server() as server:
        ana = await person(server, "Ana", new_key())  # someone the error could name
        ws = await connect(server.ws_url)
        eve = ClientSession(ws, keep_frames=True)
        hello = {"type": "hello", "rid": 1, "version": PROTOCOL_VERSION, "name": "Eve"}
        await eve.send_raw(msgpack.packb({**hello, "player_key": bad}))
        error = await eve.recv()
        assert isinstance(error, s.Error)
        assert error.code is ErrorCode.INVALID_MESSAGE
        assert "player_key" in error.message
        assert (await me(ana)).id not in error.message
        assert bad not in error.message
        await eve.send_raw(msgpack.packb(hello))  # the connection is not spent: a hello without
        welcome = await eve.recv()  # the bad key is welcomed, as no one
        assert isinstance(welcome, s.Welcome)
        with pytest.raises(RequestRefused) as refused:
            await eve.request(p.MeRequest())
        assert refused.value.code is ErrorCode.NO_PLAYER
        await eve.close()
        await ana.close()


async def test_an_unknown_key_is_a_newcomer_and_no_key_is_no_player(
    start_server: StartServer,
) -> None:
    async with start_server() as server:
        ana = await person(server, "Ana", new_key())
        await table_of(ana, [], "heads-up", BOT_LEVEL, casual=False)
        eve = await person(server, "Eve", new_key())
        found = await me(eve)
        assert (found.name, found.ratings) == ("Eve", [])
        history = await eve.request(p.HistoryRequest())
        assert isinstance(history, p.History)
        assert history.games == []
        guest = await ClientSession.connect(server.ws_url, "Guest")
        for request in (p.MeRequest(), p.HistoryRequest(), p.FriendsRequest()):
            with pytest.raises(RequestRefused) as refused:
                await guest.request(request)
            assert refused.value.code is ErrorCode.NO_PLAYER
        board = await guest.request(p.LeaderboardRequest(profile_class="pairs"))
        assert isinstance(board, p.Leaderboard)
        for session in (ana, eve, guest):
            await session.close()
