"""A table's snapshots offer captures up to suits (R2, R7), and the referee accepts any take.

Always trailing piles equal-rank copies on the table; the complete capture list then grows
with the product of the copies while the offered one stays one per card and ranks taken.
"""

from __future__ import annotations

from engine import Play
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_to_wire
from server.config import Settings
from server.core.referee import Outcome, Referee
from tests.server.core.drive import attach, handle

T0 = 1_000_000.0


def decision(out: Outcome) -> tuple[str, s.Snapshot] | None:
    for conn, message in out.sent():
        if isinstance(message, s.Snapshot) and message.legal:
            return conn, message
    return None


def test_snapshots_offer_captures_by_rank_and_any_equivalent_take_is_played_R2_R7() -> None:
    ref = Referee.create(
        "pagat-4p", {}, 0, Settings(bot_delay_s=0.0).referee_config(), seeds=lambda: 11
    )
    conns = [f"p{seat}" for seat in range(4)]
    attach(ref, conns[0], "P0", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    for each in range(1, 4):
        attach(
            ref, conns[each], f"P{each}", c.Join(key=ref.table.keys["join"], seat=each), "join", T0
        )
    found = decision(handle(ref, conns[0], c.Start(), T0))
    while found is not None:
        conn, snapshot = found
        game, seat = ref.table.game, snapshot.you.seat
        assert game is not None
        assert seat is not None
        offered = game.legal_actions(seat, by_rank=True)
        assert snapshot.legal == [action_to_wire(a) for a in offered]
        others = [a for a in game.legal_actions(seat) if a not in offered]
        if others:  # a take the snapshot does not list: the same ranks in other suits
            take = others[-1]
            assert isinstance(take, Play)
            out = handle(
                ref, conn, action_to_wire(take).model_copy(update={"at": ref.table.last_event}), T0
            )
            assert any(isinstance(m, s.Ack) for _, m in out.sent())
            assert game.actions[-1] == take  # applied as sent, not swapped for an offered one
            return
        trail = next(a for a in snapshot.legal if isinstance(a, c.Play) and not a.take)
        found = decision(
            handle(ref, conn, trail.model_copy(update={"at": ref.table.last_event}), T0)
        )
    raise AssertionError("always trailing never put two copies of a rank within reach")
