"""A host command that meets another replica's write of the night is refused ``stale`` (issue 43).

Two replicas drive one club's night, each writing it only over the version it read. When the other
one writes between this one's read and write, the command is refused unapplied, with the code
``stale`` (a client may send it again: the club page does, once) and the sentence "the night
changed at that moment: send it again"; sent again, it is applied. The other replica here is a
real second write of the night through the same store, landing right after the command's read.
"""

from __future__ import annotations

import pytest

from clients.session import RequestRefused
from protocol import clubs as m
from protocol.errors import ErrorCode
from server.clubs.night_store import Doc, NightStore, club_key
from tests.server.clubs.helpers import CLUB, follow
from tests.serving import StartServer


class OtherReplica:
    """The night store, and another replica's write of the night right after the next read."""

    def __init__(self, store: NightStore) -> None:
        self.store = store
        self.armed = False

    async def get(self, key: str) -> tuple[Doc, int] | None:
        found = await self.store.get(key)
        if self.armed and found is not None and key != club_key(CLUB):
            self.armed = False
            await self.store.put(key, *found)  # the same night written again: a newer version
        return found

    async def put(self, key: str, doc: Doc, version: int) -> int:
        return await self.store.put(key, doc, version)


async def test_a_command_meeting_the_other_replicas_write_is_stale_unapplied_then_applied(
    start_server: StartServer,
) -> None:
    async with start_server(clubs=(CLUB,)) as server:
        nights = server.nights
        assert nights is not None
        other = nights.store = OtherReplica(nights.store)  # the second replica, for this test
        key = await server.club_host_key(CLUB)
        assert key is not None
        async with await follow(server, "host", key) as host:
            await host.request(m.ClubPair(club=CLUB, key=key, members=["Ana", "Beto"]))
            other.armed = True
            pair = m.ClubPair(club=CLUB, key=key, members=["Carla", "Dani"])
            with pytest.raises(RequestRefused) as refused:
                await host.request(pair)
            assert refused.value.code is ErrorCode.STALE
            assert refused.value.error.message == "the night changed at that moment: send it again"
            state = (await nights.state(CLUB)).state
            assert [p["members"] for p in state["night"]["pairs"]] == [["Ana", "Beto"]]

            answer = await host.request(pair)  # sent again, as the refusal asks
            assert isinstance(answer, m.ClubNight)
            pairs = [p["members"] for p in answer.state["night"]["pairs"]]
            assert pairs == [["Ana", "Beto"], ["Carla", "Dani"]]
