"""A client that stops reading is dropped; the table and everyone else go on (invariants 6, 7).

The server writes each frame at once and never waits for a connection; what a client has not
read piles up in its socket's buffers. The slow spectator here stops reading after one frame and
shrinks its receive window, so once the kernel's buffers are full (a few games of updates) the
table's updates back up in the server; past the limit (``send_queue`` frames' worth) the server
drops it, while the games play on to their end for everyone else.
"""

from __future__ import annotations

import asyncio
import re
import socket
from urllib.request import urlopen

from websockets.asyncio.client import connect

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import encode
from protocol import server_messages as s
from tests.serving import StartServer


def _dropped(metrics_text: str) -> float:
    found = re.search(r"^cuarenta_slow_clients_dropped_total (\S+)$", metrics_text, re.M)
    assert found is not None, "the server publishes how many slow clients it dropped"
    return float(found.group(1))


async def test_a_client_that_stops_reading_is_dropped_and_the_game_goes_on(
    start_server: StartServer,
) -> None:
    async with start_server(send_queue=2, claim_window_s=3600) as server:
        host = await ClientSession.connect(server.ws_url, "Host")
        created = await host.request(c.CreateTable(options={"special_claims": "auto"}))
        assert isinstance(created, s.TableCreated)
        await host.request(c.Watch(key=created.host_key))

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # a tiny receive window
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
        async with connect(server.ws_url, sock=sock, max_queue=1) as slow:
            # protocol 3's updates: 4's changes are a quarter of the bytes, so the buffers would
            # take four times the games to fill (the drop is the same for both)
            await slow.send(encode(c.Hello(version=3, name="Slow")))
            await slow.send(encode(c.Watch(key=created.watch_key, rid=1)))
            await host.next_of(s.Presence, lambda p: p.spectators == 2)
            for _ in range(4):
                await host.request(c.AddBot(level=1))
            await host.request(c.Start())  # from here the slow spectator reads nothing
            games = 0
            while True:  # the kernel's socket buffers take a few games' updates first
                final = await host.next_snapshot(
                    lambda snap: snap.info.stage == "finished", wait_s=60
                )
                games += 1
                assert final.view is not None
                assert final.view.winner in (0, 1), "the game played on to its end"
                metrics = await asyncio.to_thread(
                    lambda: urlopen(server.url + "metrics").read().decode()
                )
                if _dropped(metrics) or games == 40:
                    break
                await host.request(c.Start())  # the host deals the bots another game
            assert _dropped(metrics) == 1
            assert host.problems == [], "the others got every event, in order"
        await host.close()
