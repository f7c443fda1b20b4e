"""A club night calls back the members a round seats (issue 41): when a round's tables open,
each seated member known by a public id (their ``club_open`` came over a socket whose hello had
a player key) is sent one ``night_round`` notice for that round, which opens the club's page
and carries no key; a member without a key, and every later pass of the driver, sends none."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from clients.session import ClientSession
from protocol import clubs as m
from protocol import players as p
from server.app import TableServer
from server.notices import Notice
from tests.server.clubs.helpers import CLUB, follow, night_until, round_done
from tests.server.people.wire import new_key
from tests.serving import TEST_SETTINGS

PAIRS = [["Ana"], ["Beto"], ["Carla", "Dani"], ["Eli"]]
WAIT_S = 60.0


class Collected:
    """The notices the server sent, in order (what a sender would be handed)."""

    def __init__(self) -> None:
        self.sent: list[Notice] = []
        self.arrived: asyncio.Queue[Notice] = asyncio.Queue()

    async def send(self, notice: Notice) -> None:
        self.sent.append(notice)
        self.arrived.put_nowait(notice)


async def test_each_round_notifies_a_seated_member_with_a_player_id_once() -> None:
    collected = Collected()
    settings = replace(TEST_SETTINGS, clubs=(CLUB,), claim_window_s=0.2)
    server = TableServer(settings, notices=collected)
    await server.start()
    try:
        assert server.nights is not None
        server.nights.seat_wait_s = 0.0  # nobody sits: stand-ins at once
        key = await server.club_host_key(CLUB)
        assert key is not None
        host = await follow(server, "host", key)
        ana = await ClientSession.connect(server.ws_url, "Ana", player_key=new_key())
        me = await ana.request(p.MeRequest())
        assert isinstance(me, p.Me)
        await ana.request(m.ClubOpen(club=CLUB, member=True))  # her hello proved who she is
        beto = await follow(server, "Beto", member=True)  # a guest: no public id
        for members in PAIRS:
            await host.request(m.ClubPair(club=CLUB, key=key, members=members, bot_level=1))
        await host.request(m.ClubStart(club=CLUB, key=key, format="swiss", rounds=2))
        tables = []
        for number in (1, 2):
            await host.request(m.ClubRound(club=CLUB, key=key, round=number))
            notice = await asyncio.wait_for(collected.arrived.get(), WAIT_S)
            assert (notice.kind, notice.player_id) == ("night_round", me.id)
            assert notice.url == f"/c/{CLUB}"
            assert (notice.detail, notice.pace) == (CLUB, 0)  # a live round says so
            night = await night_until(host, round_done(number))
            entry = next(
                t
                for t in night["tables"].values()
                if t["round"] == number and any(pl["name"] == "Ana" for pl in t["places"])
            )
            assert notice.room_id == entry["id"]  # her table of that round
            tables.append(entry["id"])
        rounds = [n for n in collected.sent if n.kind == "night_round"]
        assert [n.player_id for n in rounds] == [me.id, me.id]  # once a round, Beto never
        assert len({n.key for n in rounds}) == 2
        assert tables[0] != tables[1]
        for session in (host, ana, beto):
            await session.close()
    finally:
        await server.close()
