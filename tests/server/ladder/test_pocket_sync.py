"""Chicas played offline, in the pocket (issue 42), handed in by record (``ladder_sync``): the
server replays each, counts it once on the ladder's pocket tally (a record sent again is known
by its digest), refuses what is not a finished heads-up game, and leaves the streak alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from clients.session import ClientSession, RequestRefused
from engine import Record, replay
from engine.actions import action_from_json
from protocol import ladder as m
from protocol.errors import ErrorCode
from server.ladder.rules import LadderRun
from server.ladder.service import record_digest
from tests.engine.helpers import bot_game
from tests.serving import StartServer


def finished(seed: int) -> dict[str, Any]:
    """A finished heads-up game between bots, as the pocket keeps its record (R15)."""
    record: dict[str, Any] = bot_game("heads-up", {}, seed, (2, 3)).record().to_json()
    return record


def action_text(action: dict[str, Any]) -> str:
    """An R15 action in its one-line text form (as pocket.js writes it)."""
    return str(action_from_json(action))


def compact(token: str, record: dict[str, Any], chunk: int = 300) -> m.LadderSync:
    """The ``ladder_sync`` of a record: packs run together, actions in chunks of text."""
    chunks: list[str] = []
    for text in map(action_text, record["actions"]):
        if chunks and len(chunks[-1]) + 1 + len(text) <= chunk:
            chunks[-1] += ";" + text
        else:
            chunks.append(text)
    draw = record.get("draw")
    return m.LadderSync(
        token=token,
        dealer=record.get("dealer"),
        draw_start=None if draw is None else draw["start"],
        draw="" if draw is None else "".join(draw["cards"]),
        packs=["".join(pack) for pack in record["packs"]],
        actions=chunks,
    )


async def sync(session: ClientSession, token: str, record: dict[str, Any]) -> m.LadderSynced:
    answer = await session.request(compact(token, record))
    assert isinstance(answer, m.LadderSynced)
    return answer


async def test_a_pocket_chica_is_replayed_and_counted_once_R14_R15(
    start_server: StartServer,
) -> None:
    first, second = finished(1), finished(2)
    expected = replay(Record.from_json(first))
    async with start_server() as server, await ClientSession.connect(server.ws_url, "Ana") as ana:
        opened = await ana.request(m.LadderOpen())
        assert isinstance(opened, m.LadderState)
        counted = await sync(ana, opened.token, first)
        assert counted.counted
        assert list(counted.scores) == expected["scores"]
        assert counted.result == {0: "won", 1: "lost", "draw": "draw"}[expected["winner"]]
        assert (counted.played, counted.won) == (1, int(counted.result == "won"))
        assert counted.digest == record_digest(first)
        # The same record again (its actions cut into other chunks: the same game) counts nothing.
        again_sent = compact(opened.token, first, chunk=60)
        assert again_sent.actions != compact(opened.token, first).actions
        answer = await ana.request(again_sent)
        assert isinstance(answer, m.LadderSynced)
        again = answer
        assert not again.counted
        assert (again.played, again.won, again.digest) == (1, counted.won, counted.digest)
        other = await sync(ana, opened.token, second)
        assert other.counted
        assert other.played == 2
        after = await ana.request(m.LadderOpen(token=opened.token))
        assert isinstance(after, m.LadderState)
        assert (after.streak, after.best, after.chica) == (0, 0, None)  # the streak is untouched


def cut_short(record: dict[str, Any]) -> dict[str, Any]:
    return dict(record, actions=record["actions"][:10])


def illegal(record: dict[str, Any]) -> dict[str, Any]:
    """The fourth play made with a card of the other seat's hand."""
    actions = [dict(action) for action in record["actions"]]
    actions[3]["card"], actions[4]["card"] = actions[4]["card"], actions[3]["card"]
    return dict(record, actions=actions)


@pytest.mark.parametrize(
    ("spoil", "code"),
    [
        (cut_short, ErrorCode.WRONG_PHASE),
        (illegal, ErrorCode.ILLEGAL_ACTION),
        (lambda record: dict(record, packs=record["packs"][:1]), ErrorCode.ILLEGAL_ACTION),
        (lambda record: dict(record, dealer=1 - record["dealer"]), ErrorCode.INVALID_MESSAGE),
    ],
)
async def test_what_is_not_a_finished_heads_up_game_is_refused_and_not_counted(
    start_server: StartServer, spoil: Any, code: ErrorCode
) -> None:
    async with start_server() as server, await ClientSession.connect(server.ws_url, "Ana") as ana:
        opened = await ana.request(m.LadderOpen())
        assert isinstance(opened, m.LadderState)
        with pytest.raises(RequestRefused) as refused:
            await ana.request(compact(opened.token, spoil(finished(3))))
        assert refused.value.code is code
        counted = await sync(ana, opened.token, finished(3))
        assert counted.played == 1


async def test_a_pocket_chica_needs_a_ladder_of_the_servers(start_server: StartServer) -> None:
    async with start_server() as server, await ClientSession.connect(server.ws_url, "Ana") as ana:
        with pytest.raises(RequestRefused) as refused:
            await ana.request(compact("made-up-token-0123456789", finished(4)))
        assert refused.value.code is ErrorCode.NOT_FOUND


def test_the_pocket_tally_round_trips_and_an_old_run_reads_without_one() -> None:
    run = LadderRun("t").pocketed("abc", won=True).pocketed("abc", won=True)
    assert (run.pocket_played, run.pocket_won, run.pocket_seen) == (1, 1, ("abc",))
    assert LadderRun.from_json(run.to_json()) == run
    assert "pocket" not in LadderRun("t").to_json()  # stored runs keep their old form
