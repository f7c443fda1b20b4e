"""A club table has a stable join link, /t/<name>, that survives restarts of the server."""

from __future__ import annotations

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server.store.memory import MemoryStore
from tests.serving import StartServer

CLUB = "la-esquina-del-40"


async def test_a_club_name_is_a_join_link_to_the_same_table_across_restarts(
    start_server: StartServer,
) -> None:
    store = MemoryStore()
    tables = []
    for _ in range(2):  # the same store, two server lifetimes
        async with (
            start_server(store=store, clubs=(CLUB,)) as server,
            await ClientSession.connect(server.ws_url, "Ana") as ana,
        ):
            seated = await ana.request(c.Join(key=CLUB))
            assert isinstance(seated, s.Seated)
            tables.append(seated.table)
    assert tables[0] == tables[1]
