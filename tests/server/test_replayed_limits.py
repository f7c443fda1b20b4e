"""``/replayed`` replays a whole game through the engine per request: it is rate-limited per
client address (HTTP 429 past the limit, other addresses unaffected), and a record that is not
base64url is told so, not called "not JSON"."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import zlib
from pathlib import Path

import pytest

from server.app import TableServer
from server.edge import REPLAYS_PER_MIN
from tests.serving import StartServer

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"


def packed(record: object) -> str:
    deflater = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = deflater.compress(json.dumps(record).encode()) + deflater.flush()
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


async def get(server: TableServer, path: str, forwarded: str | None = None) -> tuple[int, bytes]:
    def fetch() -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    return await asyncio.to_thread(fetch)


async def test_replayed_games_are_limited_per_address_with_429(start_server: StartServer) -> None:
    record = packed(json.loads((GAMES / "heads-up-bots.json").read_text()))
    async with start_server(trusted_proxies=("127.0.0.1",)) as server:
        for _ in range(int(REPLAYS_PER_MIN)):  # a minute's burst
            status, _ = await get(server, f"/replayed?record={record}", "203.0.113.7")
            assert status == 200
        status, body = await get(server, f"/replayed?record={record}", "203.0.113.7")
        assert status == 429
        assert body == b"at most 30 replays a minute from one address: wait a moment\n"
        status, _ = await get(server, "/replayed?record=x", "203.0.113.7")  # bad ones count too
        assert status == 429
        status, _ = await get(server, f"/replayed?record={record}", "198.51.100.9")
        assert status == 200  # another address has its own allowance
        assert (await get(server, "/healthz", "203.0.113.7"))[0] == 200  # other routes unlimited
        text = server.metrics.render().decode()
        assert 'cuarenta_limit_refusals_total{limit="replays_per_minute"} 2.0' in text


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("!!!!", b"the record is not base64url (only A-Z"),
        ("a b", b"the record is not base64url (only A-Z"),
        ("AAAA", b"deflate"),  # base64url, but no deflate stream in it
        (packed({"format": "x"})[:-6], b"deflate"),  # a cut stream
    ],
)
async def test_a_record_that_is_not_base64url_or_deflate_is_told_so(
    start_server: StartServer, query: str, reason: bytes
) -> None:
    async with start_server() as server:
        status, body = await get(server, f"/replayed?record={query.replace(' ', '%20')}")
        assert status == 400
        assert reason in body, body
        assert b"not JSON" not in body
