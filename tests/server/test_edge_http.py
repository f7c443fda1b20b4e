"""HTTP requests the server refuses, each with its status and one log line, never a traceback.

The requests are written byte for byte on a raw socket (no client library tidies them up).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from tests.serving import START_TIMEOUT_S, StartServer

READ_TIMEOUT_S = 10.0


async def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Write ``data`` and read the answer to the end: (status, headers, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(READ_TIMEOUT_S):
            answer = await reader.read()
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1.1 "), answer[:200]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def get_line(path: bytes, *headers: bytes) -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(headers) + b"\r\n"


BAD_REQUESTS = [
    ("post", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 405),
    ("options", b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    ("delete", b"DELETE /ws HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    ("nul-escaped", get_line(b"/js/main.js%00.png"), 400),
    ("nul-raw", get_line(b"/js/main\x00.js"), 400),
    ("bad-escape", get_line(b"/js/%zz.js"), 400),
    ("cut-escape", get_line(b"/index.html%4"), 400),
    ("traversal", get_line(b"/js/%2e%2e/%2e%2e/etc/passwd"), 400),
    ("not-ascii", get_line("/caf\u00e9.js".encode()), 400),
    ("header-no-colon", b"GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n", 400),
    ("request-line", b"GET /\r\n\r\n", 400),
    ("http-1.0", b"GET / HTTP/1.0\r\n\r\n", 505),
    ("get-with-body", get_line(b"/", b"Content-Length: 5\r\n") + b"hello", 400),
    ("long-uri", get_line(b"/" + b"a" * 9000), 414),
    ("long-header", get_line(b"/", b"X-Big: " + b"b" * 9000 + b"\r\n"), 431),
    ("many-headers", get_line(b"/", *(b"X-%d: 1\r\n" % i for i in range(200))), 431),
]


@pytest.mark.parametrize(
    ("data", "status"),
    [(data, status) for _, data, status in BAD_REQUESTS],
    ids=[name for name, _, _ in BAD_REQUESTS],
)
async def test_a_bad_request_gets_its_status_and_the_server_serves_on(
    table_server: TableServer, data: bytes, status: int
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Watch(key=created.host_key))
        got, headers, _ = await raw_request(table_server.port, data)
        assert got == status
        if status == 405:
            assert headers["allow"] == "GET, HEAD"
        assert isinstance(await ana.request(c.Ping()), s.Pong)  # the other client is unaffected
        assert ana.problems == []
    metrics = (await raw_request(table_server.port, get_line(b"/metrics")))[2].decode()
    assert f'cuarenta_http_refusals_total{{status="{status}"}} 1.0' in metrics


async def test_head_answers_like_get_without_the_body(table_server: TableServer) -> None:
    status, headers, body = await raw_request(
        table_server.port, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert (status, headers["content-length"], body) == (200, "3", b"")
    status, headers, _ = await raw_request(
        table_server.port, b"HEAD /ws HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert (status, headers["allow"]) == (405, "GET")


async def test_a_get_of_the_socket_path_without_an_upgrade_is_refused_quietly(
    table_server: TableServer,
) -> None:
    status, _, _ = await raw_request(table_server.port, get_line(b"/ws"))
    assert status == 426  # websockets' own answer: Upgrade Required


def test_the_json_log_has_one_line_per_refusal_and_no_traceback(
    tmp_path: Path, start_server: StartServer
) -> None:
    """A real ``cuarenta serve`` with ``--log-format json``: its stderr, line by line."""
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--log-format", "json"],
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith("listening on "), line
            port = int(line.rsplit(":", 1)[1].strip("/\n"))

            async def send_all() -> list[int]:
                statuses = [(await raw_request(port, data))[0] for _, data, _ in BAD_REQUESTS]
                statuses.append((await raw_request(port, get_line(b"/ws")))[0])
                return statuses

            statuses = asyncio.run(send_all())
            assert statuses == [status for _, _, status in BAD_REQUESTS] + [426]
        finally:
            process.terminate()
            process.wait(timeout=START_TIMEOUT_S)
            if process.stdout is not None:
                process.stdout.close()
    lines = log_path.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    refused = [r for r in records if r["event"] == "http request refused"]
    assert len(refused) == len(BAD_REQUESTS)
    assert {r["kind"] for r in refused} >= {
        "method_not_allowed",
        "bad_path",
        "bad_header",
        "headers_too_large",
        "uri_too_long",
    }
    failed = next(r for r in records if r["event"] == "handshake failed")
    assert failed["kind"] == "InvalidUpgrade"
    assert not [r for r in records if r.get("level") == "error" or "exception" in r]
