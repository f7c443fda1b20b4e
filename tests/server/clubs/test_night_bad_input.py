"""The host's commands refuse what they must, with a sentence, and change nothing.

Without the club's host key (another table's host key, or a made-up one) register, withdraw,
start, next round and a ruling are ``forbidden``; a round sent twice (at once) starts once; a
pair whose member already plays tonight is refused; a ruling needs both scores or neither.
"""

from __future__ import annotations

import asyncio

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol import clubs as m
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.clubs.helpers import CLUB, follow
from tests.serving import StartServer

PAIRS = [["Ana", "Beto"], ["Carla", "Dani"], ["Eli", "Fer"], ["Gabo", "Hugo"]]


async def night_tables(server: TableServer) -> int:
    state = await server.nights.state(CLUB)  # type: ignore[union-attr]
    return len(state.state["night"]["tables"])


async def refused(session: ClientSession, message: c.ClientMessage) -> s.Error:
    with pytest.raises(RequestRefused) as caught:
        await session.request(message)
    return caught.value.error


async def test_without_the_club_key_every_host_command_is_forbidden(
    start_server: StartServer,
) -> None:
    async with start_server(clubs=(CLUB,)) as server:
        key = await server.club_host_key(CLUB)
        assert key is not None
        async with await ClientSession.connect(server.ws_url, "Eva") as eva:
            other = await eva.request(c.CreateTable())
            assert isinstance(other, s.TableCreated)
            for wrong in (other.host_key, "x" * 22):
                for message in (
                    m.ClubPair(club=CLUB, key=wrong, members=["Eva", "Flor"]),
                    m.ClubWithdraw(club=CLUB, key=wrong, pair="p1"),
                    m.ClubStart(club=CLUB, key=wrong),
                    m.ClubRound(club=CLUB, key=wrong, round=1),
                    m.ClubRule(club=CLUB, key=wrong, table=1, score_a=40, score_b=0),
                    m.ClubOpen(club=CLUB, key=wrong),
                ):
                    error = await refused(eva, message)
                    assert error.code is ErrorCode.FORBIDDEN, message.type
        state = await server.nights.state(CLUB)  # type: ignore[union-attr]
        assert state.state["night"] is None  # nothing was registered


async def test_a_round_sent_twice_starts_once_and_a_pair_entered_twice_is_refused(
    start_server: StartServer,
) -> None:
    async with start_server(clubs=(CLUB,), claim_window_s=0.2) as server:
        server.nights.seat_wait_s = 3600.0  # type: ignore[union-attr]  # tables wait
        key = await server.club_host_key(CLUB)
        assert key is not None
        async with await follow(server, "host", key) as host:
            for members in PAIRS:
                await host.request(m.ClubPair(club=CLUB, key=key, members=members))
            again = await refused(host, m.ClubPair(club=CLUB, key=key, members=["beto", "Zoe"]))
            assert again.code is ErrorCode.INVALID_MESSAGE
            assert "beto already plays in a pair tonight" in again.message
            same = await refused(host, m.ClubPair(club=CLUB, key=key, members=["Zoe", "zoe"]))
            assert "two different people" in same.message
            await host.request(m.ClubStart(club=CLUB, key=key, rounds=2))
            twice = await asyncio.gather(
                host.request(m.ClubRound(club=CLUB, key=key, round=1)),
                host.request(m.ClubRound(club=CLUB, key=key, round=1)),
                return_exceptions=True,
            )
            errors = [answer for answer in twice if isinstance(answer, RequestRefused)]
            assert len(errors) == 1
            assert "round 1 has already started" in errors[0].error.message
            assert await night_tables(server) == 2  # four pairs: two tables, opened once
            skip = await refused(host, m.ClubRound(club=CLUB, key=key, round=3))
            assert "the next round is round 2" in skip.message
            half = await refused(host, m.ClubRule(club=CLUB, key=key, table=1, score_a=40))
            assert "both scores, or neither" in half.message
            ruled = await host.request(
                m.ClubRule(club=CLUB, key=key, table=1, score_a=41, score_b=12)
            )
            assert isinstance(ruled, m.ClubNight)
            match = ruled.state["night"]["tournament"]["rounds"][0]["matches"][0]
            assert (match["score_a"], match["score_b"]) == (41, 12)
            rerule = await refused(
                host, m.ClubRule(club=CLUB, key=key, table=1, score_a=0, score_b=41)
            )
            assert "already recorded" in rerule.message
            stands = await host.request(m.ClubRule(club=CLUB, key=key, table=2))
            assert isinstance(stands, m.ClubNight)  # not started yet: it stands at 0-0
            match = stands.state["night"]["tournament"]["rounds"][0]["matches"][1]
            assert (match["score_a"], match["score_b"]) == (0, 0)
            assert stands.state["night"]["standings"][0]["points"] == 2  # the 41-12 winner


async def test_an_unknown_club_is_not_found_and_a_nameless_member_is_refused(
    start_server: StartServer,
) -> None:
    async with (
        start_server(clubs=(CLUB,)) as server,
        await ClientSession.connect(server.ws_url, "Eva") as eva,
        await ClientSession.connect(server.ws_url) as nameless,
    ):
        error = await refused(eva, m.ClubOpen(club="nowhere"))
        assert error.code is ErrorCode.NOT_FOUND
        error = await refused(nameless, m.ClubOpen(club=CLUB, member=True))
        assert "a member needs a name" in error.message
        joined = await eva.request(m.ClubOpen(club=CLUB, member=True, player="pl-123"))
        assert isinstance(joined, m.ClubNight)
        assert joined.state["members"] == [{"name": "Eva", "player": "pl-123"}]
