"""A night of eight pairs in groups of four, then a knock-out with repechage, to its winner.

Memory store, every seat a bot (the members never come: bots stand in once the seat wait is
over), full bot speed. The host presses "next round" whenever a round is done, until the final
has a winner; each knock-out game has one (a level game is played again at its table).
"""

from __future__ import annotations

from protocol import clubs as m
from tests.server.clubs.helpers import CLUB, follow, night_until, round_done
from tests.serving import StartServer

PAIRS = [[f"Socio {i}a", f"Socio {i}b"] for i in range(1, 9)]


async def test_eight_pairs_play_groups_then_a_knock_out_to_one_champion(
    start_server: StartServer,
) -> None:
    async with start_server(clubs=(CLUB,), claim_window_s=0.2) as server:
        server.nights.seat_wait_s = 0.0  # type: ignore[union-attr]
        key = await server.club_host_key(CLUB)
        assert key is not None
        async with await follow(server, "host", key) as host:
            for members in PAIRS:
                await host.request(m.ClubPair(club=CLUB, key=key, members=members))
            await host.request(m.ClubStart(club=CLUB, key=key, format="groups"))
            number = 0
            night = None
            while night is None or not night["finished"]:
                number += 1
                await host.request(m.ClubRound(club=CLUB, key=key, round=number))
                night = await night_until(host, round_done(number))
    rounds = night["tournament"]["rounds"]
    stages = [round_["stage"] for round_ in rounds]
    assert stages[:3] == ["group"] * 3
    assert "repechage" in stages
    assert stages[-1] == "main"
    final = rounds[-1]["matches"]
    assert len(final) == 1
    match = final[0]
    assert match["score_a"] != match["score_b"]  # a knock-out game has a winner
    winner = match["a"] if match["score_a"] > match["score_b"] else match["b"]
    assert night["champion"] == winner
    for round_ in rounds[3:]:  # every knock-out game was decided
        assert all(g["score_a"] != g["score_b"] for g in round_["matches"] if g["forfeit"] is None)
