"""The club night's server side: safe names, the lobby of public tables, club results, replays.

Real sockets and real stores throughout: names and chat lines are cleaned at the protocol edge
(a raw frame, not our own client's model, carries the dirty name); ``/tables.json`` lists a
public table within a second on every process sharing a Redis store and never a private one;
a club's export lists exactly its finished games and only for its host key; the replay
positions are the engine's (``engine.replay``) and a bad record is a clear 400.
"""

from __future__ import annotations

import asyncio
import base64
import csv
import io
import json
import time
import zlib
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect

from clients.session import ClientSession
from engine.record import Record
from engine.replay import replay
from protocol import PROTOCOL_VERSION
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.store import open_store
from tests.redis_server import RedisServer
from tests.server.test_http import get
from tests.serving import StartServer

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"
DIRTY_NAME = "\u202eAna\x00" + "\u2066" + "x" * 500  # RLO, NUL, an isolate, 500 characters
CLEAN_NAME = ("Ana" + "x" * 500)[:32]
CLUB = "la-esquina-del-40"


async def raw_request(ws: object, message: dict[str, object]) -> None:
    await ws.send(msgpack.packb(message))  # type: ignore[attr-defined]


async def raw_until(ws: object, kind: str) -> dict[str, object]:
    """The next message of ``kind``; a snapshot also from an update (or a protocol 4 change)
    carrying the table info."""
    while True:
        message = msgpack.unpackb(await ws.recv())  # type: ignore[attr-defined]
        if message["type"] == "update" and kind == "snapshot" and message["snapshot"]["info"]:
            return dict(message["snapshot"])
        if message["type"] == "change" and kind == "snapshot" and message["info"]:
            return dict(message)
        if message["type"] == kind:
            return dict(message)


async def test_a_name_with_a_bidi_override_nul_and_500_characters_is_stored_and_shown_cleaned(
    start_server: StartServer,
) -> None:
    async with start_server() as server, connect(server.ws_url) as ws:
        await raw_request(
            ws, {"type": "hello", "version": PROTOCOL_VERSION, "name": DIRTY_NAME, "rid": 1}
        )
        await raw_until(ws, "welcome")
        await raw_request(ws, {"type": "create", "rid": 2})
        created = await raw_until(ws, "table_created")
        await raw_request(ws, {"type": "join", "key": created["host_key"], "rid": 3})
        snapshot = await raw_until(ws, "snapshot")
        while snapshot["info"]["seats"][0]["occupant"] != "person":  # type: ignore[index]
            snapshot = await raw_until(ws, "snapshot")
        assert snapshot["info"]["seats"][0]["name"] == CLEAN_NAME  # type: ignore[index]
        await raw_request(ws, {"type": "chat", "text": "\u202ehola\x00\n" + "y" * 500, "rid": 4})
        line = await raw_until(ws, "chat")
        assert line["name"] == CLEAN_NAME
        assert line["text"] == ("hola " + "y" * 500)[:280]
        # stored: a watcher arriving later (its snapshot rebuilt from the table) sees it clean
        async with await ClientSession.connect(server.ws_url, "Eva") as eva:
            await eva.request(c.Watch(key=str(created["watch_key"])))
            seen = await eva.next_snapshot()
            assert seen.info.seats[0].name == CLEAN_NAME
        stored = await server.lobby.store.load(str(created["table"]))
        assert stored is not None
        assert json.loads(stored.state)["seats"][0]["name"] == CLEAN_NAME


async def listed(server: TableServer, club: str | None = None) -> list[dict[str, object]]:
    status, _, body = await get(server, "/tables.json" + (f"?club={club}" if club else ""))
    assert status == 200
    tables: list[dict[str, object]] = json.loads(body)["tables"]
    return tables


async def open_tables(server: TableServer) -> tuple[s.TableCreated, s.TableCreated]:
    async with await ClientSession.connect(server.ws_url, "Lucía") as host:
        public = await host.request(c.CreateTable(public=True))
        private = await host.request(c.CreateTable())
        assert isinstance(public, s.TableCreated)
        assert isinstance(private, s.TableCreated)
        await host.request(c.Join(key=public.host_key))
        return public, private


async def until_listed(servers: list[TableServer], table: str, within_s: float = 1.0) -> float:
    started = time.monotonic()
    async with asyncio.timeout(within_s):  # "within a second" is the promise
        for server in servers:
            while table not in [e["table"] for e in await listed(server)]:  # noqa: ASYNC110
                await asyncio.sleep(0.02)  # polling over HTTP: there is no event to wait on
    return time.monotonic() - started


async def test_a_public_table_is_listed_within_a_second_and_a_private_one_never(
    start_server: StartServer,
) -> None:
    async with start_server() as server:
        public, private = await open_tables(server)
        await until_listed([server], public.table)
        entry = next(e for e in await listed(server) if e["table"] == public.table)
        assert entry["watch"] == public.watch_key
        assert entry["profile"] == "pagat-4p"
        assert entry["seats"][0]["name"] == "Lucía"  # type: ignore[index]
        assert private.table not in json.dumps(await listed(server))
        assert private.watch_key not in json.dumps(await listed(server))
        assert private.join_key not in json.dumps(await listed(server))


async def test_the_listing_is_shared_by_every_process_of_a_redis_store(
    start_server: StartServer,
    redis_server: RedisServer,
) -> None:
    store_a, store_b = await open_store(redis_server.url), await open_store(redis_server.url)
    async with start_server(store=store_a) as a, start_server(store=store_b) as b:
        public, private = await open_tables(a)
        await until_listed([a, b], public.table)
        for server in (a, b):
            assert private.table not in json.dumps(await listed(server))


async def play_club_game(server: TableServer) -> str:
    """Seat four bots at the club table with its host key and play a whole game to the end."""
    host_key = await server.club_host_key(CLUB)
    assert host_key is not None
    async with await ClientSession.connect(server.ws_url, "Referee") as referee:
        await referee.request(c.Watch(key=host_key))
        for seat in range(4):
            await referee.request(c.AddBot(level=1, seat=seat))
        await referee.request(c.Start())
        snap = await referee.next_snapshot(lambda x: x.info.stage == "finished", wait_s=60)
        return snap.info.table


async def test_the_club_export_lists_exactly_its_finished_games_and_needs_its_host_key(
    start_server: StartServer,
) -> None:
    async with start_server(clubs=(CLUB,), claim_window_s=0.05) as server:
        table = await play_club_game(server)
        async with await ClientSession.connect(server.ws_url, "Otro") as other:  # not the club's
            created = await other.request(c.CreateTable(public=True))
            assert isinstance(created, s.TableCreated)
        host_key = await server.club_host_key(CLUB)
        kept = await server.lobby.store.find_record(table)
        assert kept is not None
        expected = replay(Record.from_json(json.loads(kept.record)))

        async def results() -> list[dict[str, object]]:
            status, _, body = await get(server, f"/c/{CLUB}/results.json?key={host_key}")
            assert status == 200
            found: list[dict[str, object]] = json.loads(body)["results"]
            return found

        async with asyncio.timeout(5):
            while not await results():  # noqa: ASYNC110 (polling over HTTP)
                await asyncio.sleep(0.05)  # the result is kept by the listing's next pass
        [result] = await results()
        assert (result["table"], result["game"]) == (table, 1)
        assert result["scores"] == expected["scores"]
        assert result["winner"] == expected["winner"]
        assert result["hands"] == expected["hands"]
        players = result["players"]
        assert isinstance(players, list)
        assert [p["team"] for p in players] == [0, 1, 0, 1]

        status, kind, body = await get(server, f"/c/{CLUB}/results.csv?key={host_key}")
        rows = list(csv.DictReader(io.StringIO(body.decode())))
        assert status == 200
        assert kind.startswith("text/csv")
        assert [(row["table"], row["score_0"], row["score_1"]) for row in rows] == [
            (table, str(expected["scores"][0]), str(expected["scores"][1]))
        ]
        for path in (
            f"/c/{CLUB}/results.csv",
            f"/c/{CLUB}/results.json?key={created.host_key}",
            f"/c/{CLUB}/results.csv?key=wrong-key-123",
        ):
            status, _, body = await get(server, path)
            assert status == 403, path
            assert table.encode() not in body
        # the players' game-over link: /replay?record=/record/<table>?key=… asks /replayed/…
        status, _, body = await get(server, f"/replayed/{table}?key={host_key}")
        assert status == 200
        assert json.loads(body)["steps"][-1]["scores"] == expected["scores"]
        assert (await get(server, f"/replayed/{table}?key=wrong-key-123"))[0] == 404
        status, _, page = await get(server, f"/c/{CLUB}.json")
        club = json.loads(page)
        assert [r["table"] for r in club["results"]] == [table]
        assert await get(server, "/c/not-a-club.json") == (
            404,
            "text/plain; charset=utf-8",
            b"not found\n",
        )


def packed(record: object) -> str:
    deflater = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = deflater.compress(json.dumps(record).encode()) + deflater.flush()
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@pytest.mark.parametrize("name", ["pagat-4p-claim", "heads-up-bots"])
async def test_replayed_positions_are_the_engines_r15(start_server: StartServer, name: str) -> None:
    record = json.loads((GAMES / f"{name}.json").read_text())
    async with start_server() as server:
        status, _, body = await get(server, f"/replayed?record={packed(record)}")
        assert status == 200
        answer = json.loads(body)
        expected = replay(Record.from_json(record))
        assert len(answer["steps"]) == len(record["actions"]) + 1
        assert answer["steps"][-1]["scores"] == expected["scores"] == answer["result"]["scores"]
        assert all(len(step["hands"]) == answer["seats"] for step in answer["steps"])


async def test_a_bad_or_oversized_record_is_a_clear_400(start_server: StartServer) -> None:
    record = json.loads((GAMES / "pagat-4p-claim.json").read_text())
    illegal = {**record, "actions": [record["actions"][1], *record["actions"]]}
    async with start_server() as server:
        for query, reason in (
            (packed({"format": "nope"}), b"format"),
            (packed(illegal), b"illegal"),
            ("not*base64", b"base64url"),
            (packed({"pad": "x" * 70_000}), b"larger than"),
            ("", b"send ?record="),
        ):
            status, kind, body = await get(server, f"/replayed?record={query}")
            assert (status, kind) == (400, "text/plain; charset=utf-8"), body
            assert reason in body, body


async def test_the_lobby_says_storage_unavailable_while_redis_is_down_and_recovers(
    start_server: StartServer, redis_server: RedisServer
) -> None:
    async with start_server(store=await open_store(redis_server.url)) as server:
        public, _ = await open_tables(server)
        await until_listed([server], public.table)
        redis_server.kill()
        status, _, body = await get(server, "/tables.json")
        assert (status, body) == (503, b"storage unavailable, try again\n")
        # In a thread: the server in this loop goes on (and keeps failing cleanly) while Redis
        # starts again and reloads its append-only file, as it would beside a real restart.
        await asyncio.to_thread(redis_server.restart)
        await until_listed([server], public.table, within_s=5.0)  # rewritten by the next refresh
