"""A club's export opens safely in a spreadsheet and names every team by its players.

OWASP's CSV injection guidance: a text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return is prefixed with ``'`` and quoted, so a player called ``=HYPERLINK(...)`` is
text in the spreadsheet, not a live formula; numbers stay numbers (a negative one too). A bot is
named by its seat's compass and level, never "Bot 3 & Bot 3".
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server import keys
from server.app import TableServer
from server.clubs.export import CSV_COLUMNS, FORMULA_STARTS, results_csv, results_json, safe_cell
from tests.server.test_http import get
from tests.serving import StartServer

CLUB = "quito"
HOSTILE = ['=HYPERLINK("http://e.x","y")', "+1+cmd|x!A0"]


def result(
    names: Sequence[str | None], levels: Sequence[int | None], scores: list[int]
) -> dict[str, Any]:
    players = [
        {"seat": seat, "team": seat % 2, "name": name, "bot_level": level}
        for seat, (name, level) in enumerate(zip(names, levels, strict=True))
    ]
    return {
        "ended": "2025-01-01T20:00:00+00:00",
        "table": "-Tbl_id1",  # table ids are URL-safe and may begin with "-"
        "game": 1,
        "profile": "pagat-4p",
        "seats": len(players),
        "players": players,
        "scores": scores,
        "winner": 0,
        "hands": [{}, {}],
    }


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_formula_names_open_as_text_and_a_negative_number_stays_a_number() -> None:
    names = ["@SUM(A1)", "-2+3", "\tTab", "\rCR"]
    text = results_csv([result(names, [None] * 4, [-3, 41])])
    header, row = cells(text)
    assert header == CSV_COLUMNS
    assert row[4:8] == ["'@SUM(A1)", "'-2+3", "'\tTab", "'\rCR"]
    assert row[1] == "'-Tbl_id1"
    assert row[10:12] == ["-3", "41"]  # written unquoted: the spreadsheet reads a number
    assert ",-3,41,0,2\r\n" in text  # the scores unquoted, as numbers


@given(st.lists(st.text(max_size=12), min_size=4, max_size=4))
def test_no_cell_of_any_name_begins_with_a_formula_character(names: list[str]) -> None:
    for row in cells(results_csv([result(list(names), [None] * 4, [0, 40])]))[1:]:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), row
    assert safe_cell("Ana") == "Ana"


def test_teams_of_bots_are_named_by_compass_and_level() -> None:
    bots = result(["Bot 3", "Lucía", "Bot 3", "Bot 5"], [3, None, 3, 5], [40, 12])
    worded = results_json("quito", [bots])["results"][0]
    assert worded["teams"] == [
        "South bot (level 3) and North bot (level 3)",
        "Lucía and East bot (level 5)",
    ]
    duel = result(["Ana", "Bot 2"], [None, 2], [40, 30])
    assert results_json("quito", [duel])["results"][0]["teams"] == ["Ana", "North bot (level 2)"]
    assert "&" not in results_csv([bots, duel])


async def play_with_hostile_names(server: TableServer) -> str:
    """Two people with formula names sit by the club's link, bots at the other seats; they go
    away once the game starts and the stand-in plays for them to the end."""
    host_key = await server.club_host_key(CLUB)
    assert host_key is not None
    people = [await ClientSession.connect(server.ws_url, name) for name in HOSTILE]
    async with await ClientSession.connect(server.ws_url, "Referee") as referee:
        await referee.request(c.Watch(key=host_key))
        for seat, person in zip((0, 2), people, strict=True):
            assert isinstance(await person.request(c.Join(key=CLUB, seat=seat)), s.Seated)
        for seat in (1, 3):
            await referee.request(c.AddBot(level=1, seat=seat))
        await referee.request(c.Start())
        for person in people:
            await person.close()
        snap = await referee.next_snapshot(lambda x: x.info.stage == "finished", wait_s=90)
        return snap.info.table


async def test_a_hostile_name_in_the_club_export_opens_as_text(start_server: StartServer) -> None:
    async with start_server(clubs=(CLUB,), claim_window_s=0.05, grace_s=600.0) as server:
        table = await play_with_hostile_names(server)
        host_key = await server.club_host_key(CLUB)
        async with asyncio.timeout(10):
            while True:
                status, kind, body = await get(server, f"/c/{CLUB}/results.csv?key={host_key}")
                rows = cells(body.decode())
                if len(rows) > 1:
                    break
                await asyncio.sleep(0.05)  # the result is kept by the listing's next pass
        assert status == 200
        assert kind.startswith("text/csv")
        [row] = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in rows[1:]]
        assert row["table"].removeprefix("'") == table
        assert [row["seat_0"], row["seat_2"]] == ["'" + name for name in HOSTILE]
        assert row["team_0"] == f"'{HOSTILE[0]} and {HOSTILE[1]}"
        assert row["team_1"] == "West bot (level 1) and East bot (level 1)"
        for line in rows[1:]:
            assert not any(cell.startswith(FORMULA_STARTS) for cell in line)
        status, _, body = await get(server, f"/c/{CLUB}/results.json?key={host_key}")
        [kept] = json.loads(body)["results"]
        assert kept["players"][0]["name"] == HOSTILE[0]  # JSON is data: kept as typed
        assert kept["teams"][1] == "West bot (level 1) and East bot (level 1)"


def test_a_table_id_never_begins_with_a_minus_so_its_cell_reads_as_is() -> None:
    ids = [keys.new_table_id() for _ in range(2000)]
    assert not any(made.startswith("-") for made in ids)
    assert all(safe_cell(made) == made for made in ids)
