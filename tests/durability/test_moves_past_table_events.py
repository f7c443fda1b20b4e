"""A move made at an event the table has since followed with a table event (not a game change).

Someone disconnects while another player decides: the table stores a ``stand_in`` event for the
absent seat between the event the mover saw and the move. Only a game change makes a move stale
(PROTOCOL.md, request rule 4), so the move is acknowledged and stored after the stand-in, one
event later than the one it was made at. The suite's checks (``bench.recording``)
must accept that: the deploy test, where people reconnect through a proxy all the time, met it
and reported an acknowledged move as missing from the stored log.
"""

from __future__ import annotations

import pytest

from bench.log_audit import check_table
from bench.recording import Move, Person, close_all, seat_table, wait_for
from protocol import client_messages as c
from protocol import server_messages as s
from server.store.redis import RedisStore, open_store
from tests.redis_server import RedisServer
from tests.serving import StartServer

pytestmark = pytest.mark.redis


def deciding(person: Person) -> list[c.GameAction]:
    """The person's moves if it is to decide on the newest event it was sent, else none."""
    snap = person.session.snapshot
    if snap is None or snap.last_event != person.session.last_event:
        return []
    return [action for action in snap.legal if isinstance(action, c.Play | c.Announce)]


async def test_a_move_made_before_a_stand_in_event_is_acknowledged_and_stored_after_it(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    store = await open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    async with start_server(store=store, claim_window_s=0.1, away_turn_s=30.0) as server:
        table = await seat_table([server.ws_url])

        async def someone_decides() -> bool:
            return any(deciding(person) for person in table.players)

        await wait_for(someone_decides, 30, "a player to decide")
        mover = next(person for person in table.players if deciding(person))
        action, at = deciding(mover)[0], mover.session.last_event
        assert mover.seat is not None
        absent = table.players[(mover.seat + 2) % 4]  # the partner: not the next to decide

        await absent.session.close()  # the table stores a stand-in for the absent seat

        async def stood_in() -> bool:
            stored = await store.load(table.table_id)
            return stored is not None and stored.last_event == at + 1

        await wait_for(stood_in, 30, "the stand-in event")
        answer = await mover.session.request(action.model_copy(update={"at": at}))
        assert isinstance(answer, s.Ack)  # a table event does not make the move stale
        mover.moves.append(Move(mover.seat, at, action.type, "acked"))

        stored = await store.load(table.table_id)
        assert stored is not None
        assert stored.last_event >= at + 2  # the stand-in, then the move
        counts = await check_table(store, table, connected=False, stand_ins=True)
        assert counts["acked"] == 1
        await close_all([table])
    await store.close()
