"""A finished game changes ratings by what openskill computes, once; a casual one changes none."""

from __future__ import annotations

import json
from dataclasses import replace

import msgpack
import pytest
from openskill.models import PlackettLuce

from protocol import codec
from protocol.errors import ErrorCode, MessageError
from server.people import FinishedGame, MemoryPlayerStore, Players, Seat
from server.people.model import GameSummary
from server.people.rating import BOT_RATINGS, NEWCOMER

KEYS = {name: name[0] * 43 for name in ("Ana", "Beto", "Caro")}


async def seated(players: Players) -> dict[str, str]:
    return {name: (await players.enter(key, name)).id for name, key in KEYS.items()}


def four(ids: dict[str, str], casual: bool = False, game: int = 1) -> FinishedGame:
    """Ana with a level-1 bot beat Beto and Caro (R1 teams: seats 0 and 2, 1 and 3)."""
    teams = (
        (Seat("Ana", ids["Ana"]), Seat("Bot 1", bot_level=1)),
        (Seat("Beto", ids["Beto"]), Seat("Caro", ids["Caro"])),
    )
    return FinishedGame("T1", game, "pagat-4p", 1.7e9, casual, teams, (42, 30), 0)


async def test_a_rated_game_moves_both_teams_by_what_openskill_computes() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    changes = await players.record_game(four(ids))
    model = PlackettLuce()
    bot = BOT_RATINGS[1]
    expected = model.rate(
        [
            [model.rating(), model.rating(mu=bot.mu, sigma=bot.sigma)],
            [model.rating(), model.rating()],
        ],
        ranks=[0, 1],
    )
    got = await players.store.ratings(list(ids.values()), "pairs")
    for name, want in (("Ana", expected[0][0]), ("Beto", expected[1][0]), ("Caro", expected[1][1])):
        assert got[ids[name]].mu == pytest.approx(want.mu, abs=1e-12)
        assert got[ids[name]].sigma == pytest.approx(want.sigma, abs=1e-12)
        assert got[ids[name]].games == 1
        assert changes[ids[name]] == round(40 * want.mu) - NEWCOMER.shown
    assert changes[ids["Ana"]] > 0 > changes[ids["Beto"]]
    history = await players.store.history(ids["Ana"], 0, 5)
    assert history[0].partners == (Seat("Bot 1", bot_level=1),)
    assert (history[0].score, history[0].result, history[0].casual) == ((42, 30), "won", False)


async def test_a_casual_game_is_in_the_history_and_changes_no_rating() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    changes = await players.record_game(four(ids, casual=True))
    assert set(changes.values()) == {None}
    got = await players.store.ratings(list(ids.values()), "pairs")
    assert set(got.values()) == {NEWCOMER}
    (line,) = await players.store.history(ids["Beto"], 0, 5)
    assert (line.result, line.rating_change, line.casual) == ("lost", None, True)
    assert line.opponents == (Seat("Ana", ids["Ana"]), Seat("Bot 1", bot_level=1))


async def test_a_retried_finish_counts_once() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    first = await players.record_game(four(ids))
    again = await players.record_game(four(ids))
    assert again == first
    got = await players.store.ratings([ids["Ana"]], "pairs")
    assert got[ids["Ana"]].games == 1
    assert len(await players.store.history(ids["Ana"], 0, 5)) == 1
    await players.record_game(four(ids, game=2))  # the next game of the table counts
    assert (await players.store.ratings([ids["Ana"]], "pairs"))[ids["Ana"]].games == 2


async def test_a_game_won_by_forfeit_says_so_on_both_sides_and_an_old_line_reads_as_rules() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    game = four(ids)  # Beto and Caro's side missed two deadlines in a row: Ana's side won
    await players.record_game(replace(game, forfeit=True))
    (won,) = await players.store.history(ids["Ana"], 0, 5)
    (lost,) = await players.store.history(ids["Beto"], 0, 5)
    assert (won.result, won.forfeit, won.score) == ("won", True, (42, 30))
    assert (lost.result, lost.forfeit) == ("lost", True)
    assert GameSummary.from_json(json.loads(lost.dumps())) == lost  # as the Redis store keeps it
    kept_before = {k: v for k, v in lost.to_json().items() if k != "by"}
    assert GameSummary.from_json(kept_before).forfeit is False  # a line kept before the field
    await players.record_game(four(ids, game=2))  # a game ended by the rules (R12)
    line = (await players.store.history(ids["Beto"], 0, 5))[0]
    assert (line.game, line.forfeit) == (2, False)
    assert "by" not in line.to_json()


async def test_a_heads_up_draw_is_a_tie_for_openskill() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    teams = ((Seat("Ana", ids["Ana"]),), (Seat("Bot 4", bot_level=4),))
    await players.record_game(
        FinishedGame("T2", 1, "heads-up", 1.7e9, False, teams, (38, 38), None)
    )
    model = PlackettLuce()
    bot = BOT_RATINGS[4]
    want = model.rate([[model.rating()], [model.rating(mu=bot.mu, sigma=bot.sigma)]], ranks=[0, 0])
    got = (await players.store.ratings([ids["Ana"]], "duel"))[ids["Ana"]]
    assert got.mu == pytest.approx(want[0][0].mu, abs=1e-12)
    assert (await players.store.ratings([ids["Ana"]], "pairs"))[ids["Ana"]] == NEWCOMER


async def test_the_leaderboard_needs_five_rated_games() -> None:
    players = Players(MemoryPlayerStore())
    ids = await seated(players)
    for game in range(1, 5):
        await players.record_game(four(ids, game=game))
    assert await players.store.board("pairs", 10) == []
    await players.record_game(four(ids, game=5))
    board = await players.store.board("pairs", 10)
    assert board[0].player.name == "Ana"
    assert {entry.player.id for entry in board} == set(ids.values())


def test_a_game_with_a_wrong_team_shape_is_refused() -> None:
    with pytest.raises(ValueError):
        FinishedGame(
            "T1", 1, "heads-up", 0.0, False, ((Seat("A"), Seat("B")), (Seat("C"),)), (0, 0), 0
        )


@pytest.mark.parametrize(
    "key", ["short-key", "x" * 31, "x" * 65, "a" * 40 + "/+=", "a" * 40 + " \u202e", 12345]
)
def test_a_bad_player_key_is_invalid_and_never_echoed(key: object) -> None:
    frame = msgpack.packb({"type": "hello", "version": 3, "rid": 4, "player_key": key})
    with pytest.raises(MessageError) as refused:
        codec.decode_client(frame)
    assert refused.value.code is ErrorCode.INVALID_MESSAGE
    assert refused.value.rid == 4
    assert "player_key" in refused.value.message
    assert str(key) not in refused.value.message
