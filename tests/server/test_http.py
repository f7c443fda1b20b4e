"""HTTP on the WebSocket port: pages, table links, vendor files, health, metrics, records."""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path

import pytest

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from tests.serving import StartServer


async def get(server: TableServer, path: str) -> tuple[int, str, bytes]:
    """GET ``path`` exactly as written (no client-side normalisation of ``..``)."""

    def fetch() -> tuple[int, str, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type") or "", response.read()
        finally:
            connection.close()

    return await asyncio.to_thread(fetch)


@pytest.fixture
def web_root(tmp_path: Path) -> Path:
    root = tmp_path / "web"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>Cuarenta test page</title>")
    (root / "js" / "app.js").write_text("export const ok = 1;")
    (root / "node_modules" / "lib").mkdir(parents=True)
    (root / "node_modules" / "lib" / "lib.min.js").write_text("/* vendored */")
    (root / "node_modules" / "lib" / "secret.js").write_text("/* not listed */")
    (root / "vendor.json").write_text(json.dumps({"lib.js": "node_modules/lib/lib.min.js"}))
    (tmp_path / "outside.txt").write_text("private")
    return root


async def test_pages_and_table_links_serve_the_web_client(
    start_server: StartServer, web_root: Path
) -> None:
    async with start_server(web_root=web_root) as server:
        for path in ("/", "/t/some-join-key-123"):
            status, kind, body = await get(server, path)
            assert (status, kind) == (200, "text/html; charset=utf-8")
            assert b"Cuarenta test page" in body
        status, kind, body = await get(server, "/js/app.js")
        assert status == 200
        assert kind.startswith("text/javascript")
        status, _, body = await get(server, "/vendor/lib.js")
        assert (status, body) == (200, b"/* vendored */")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/../outside.txt", 400),  # a dot segment, raw or encoded: malformed
        ("/%2e%2e/outside.txt", 400),
        ("/js/../../outside.txt", 400),
        ("/vendor/../outside.txt", 400),
        ("/js/%2E%2E/%2e%2e/outside.txt", 400),
        ("/vendor/secret.js", 404),
        ("/node_modules/lib/secret.js", 404),
        ("/node_modules/lib/lib.min.js", 404),
        ("/vendor.json.bak", 404),
        ("/nope.js", 404),
        ("/js%2f..%2f..%2foutside.txt", 400),
    ],
)
async def test_nothing_outside_the_client_or_the_vendor_list_is_served(
    start_server: StartServer, web_root: Path, path: str, status: int
) -> None:
    async with start_server(web_root=web_root) as server:
        got, _, body = await get(server, path)
        assert got == status
        assert b"private" not in body


async def test_a_placeholder_page_stands_in_for_a_missing_web_client(
    start_server: StartServer, tmp_path: Path
) -> None:
    async with start_server(web_root=tmp_path) as server:
        status, _, body = await get(server, "/t/whatever-key")
        assert status == 200
        assert b"/ws" in body


async def test_health_and_prometheus_metrics(table_server: TableServer) -> None:
    async with await ClientSession.connect(table_server.ws_url) as session:
        await session.request(c.Ping())
        assert (await get(table_server, "/healthz"))[:1] == (200,)
        status, kind, body = await get(table_server, "/metrics")
    assert status == 200
    assert kind.startswith("text/plain")
    text = body.decode()
    for name in (
        "cuarenta_tables",
        "cuarenta_connections 1.0",
        'cuarenta_commands_total{outcome="ok",type="ping"} 1.0',
        "cuarenta_event_loop_lag_seconds",
        "cuarenta_command_latency_seconds_bucket",
    ):
        assert name in text


async def test_the_finished_games_record_downloads_with_the_host_key_or_a_seat_token_r15(
    table_server: TableServer,
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Referee") as host:
        created = await host.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await host.request(c.Watch(key=created.host_key))
        for _ in range(4):
            await host.request(c.AddBot(level=1))
        status, _, _ = await get(table_server, f"/record/{created.table}?key={created.host_key}")
        assert status == 404, "no record before a game has finished"
        await host.request(c.Start())
        await host.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=30)
        status, kind, body = await get(
            table_server, f"/record/{created.table}?key={created.host_key}"
        )
        assert (status, kind) == (200, "application/json")
        assert json.loads(body)["format"] == "cuarenta-record/1"
        for bad in (f"?key={created.watch_key}", f"?key={created.join_key}", ""):
            status, _, _ = await get(table_server, f"/record/{created.table}{bad}")
            assert status in (400, 404)
