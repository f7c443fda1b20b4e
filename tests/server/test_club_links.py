"""Every club name makes a working link: ``/t/<slug>`` and ``/c/<slug>``, whatever its length.

A real ``cuarenta serve`` with ``--clubs 'quito,Club Loja,ñandú'``: each club's links open over
HTTP and its table is joined and watched over the WebSocket (the watch key of a short club name
was refused by the wire's 8-character minimum for random keys). A list with a name that cannot
make a link is refused at start, in one line.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import sys
from collections.abc import Callable
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server.clubs.names import ClubNameError, club_slugs, is_slug, parse_clubs, slug
from server.config import Settings
from tests.serving import ServerProcess

CLUBS = {"quito": "quito", "Club Loja": "club-loja", "ñandú": "nandu"}


def test_a_slug_is_the_name_in_lower_case_without_accents_spaces_as_hyphens() -> None:
    assert [slug(name) for name in CLUBS] == list(CLUBS.values())
    assert slug("  La Esquina del 40 !! ") == "la-esquina-del-40"
    assert slug("Ñ") == "n"
    assert parse_clubs("quito, Club Loja ,ñandú") == ("quito", "club-loja", "nandu")
    assert parse_clubs("  ") == ()
    assert Settings(clubs=("Club Loja",)).clubs == ("club-loja",)


@pytest.mark.parametrize(
    ("names", "says"),
    [
        ("quito,,loja", "an empty club name"),
        ("quito,", "an empty club name"),
        ("quito,!!!", "'!!!' has no letter or digit a link can carry"),
        ("東京", "'東京' has no letter or digit a link can carry"),
        ("Niño,nino", "'Niño' and 'nino' make the same link /t/nino"),
    ],
)
def test_a_name_that_cannot_make_a_link_is_refused_saying_why(names: str, says: str) -> None:
    with pytest.raises(ClubNameError, match=says):
        parse_clubs(names)


@given(st.text(max_size=120))
def test_every_slug_is_its_own_slug_and_a_key_the_wire_accepts(name: str) -> None:
    made = slug(name)
    if not made:
        return
    assert is_slug(made)
    assert slug(made) == made
    assert c.Watch(key=made).key == made
    assert c.Join(key=made).key == made


def test_random_keys_keep_their_rules_and_other_text_is_still_refused() -> None:
    for bad in ("Quito", "club loja", "ñandú", "-quito", "a--b", "x" * 81, ""):
        with pytest.raises(ValidationError):
            c.Watch(key=bad)
    assert c.Watch(key="Ab_9-xYz").key == "Ab_9-xYz"  # a random key's shape: 8 or more


def fetch(url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


async def test_serve_with_short_spaced_and_accented_club_names_gives_three_working_links(
    server_process: Callable[..., ServerProcess],
) -> None:
    process = server_process("--clubs", ",".join(CLUBS))
    for name, club in CLUBS.items():
        status, headers, _ = await asyncio.to_thread(fetch, process.url, f"/t/{club}")
        assert (status, headers["Content-Type"]) == (200, "text/html; charset=utf-8"), club
        status, _, body = await asyncio.to_thread(fetch, process.url, f"/c/{club}.json")
        assert status == 200
        assert json.loads(body)["club"] == club
        status, _, _ = await asyncio.to_thread(fetch, process.url, f"/c/{club}")
        assert status == 200
        typed = quote(name)  # the name as a person types it: redirected to the slug
        status, headers, _ = await asyncio.to_thread(fetch, process.url, f"/t/{typed}?screen")
        if name != club:
            assert (status, headers["Location"]) == (302, f"/t/{club}?screen"), name
        async with (
            await ClientSession.connect(process.ws_url, "Ana") as ana,
            await ClientSession.connect(process.ws_url, "Tele") as screen,
        ):
            seated = await ana.request(c.Join(key=club))
            assert isinstance(seated, s.Seated), club
            assert isinstance(await screen.request(c.Watch(key=club)), s.Ack), club
            watched = await screen.next_snapshot()
            assert watched.info.table == seated.table
            assert [seat.name for seat in watched.info.seats][seated.seat] == "Ana"
    assert process.stop() == 0


@pytest.mark.parametrize(
    ("names", "says"),
    [
        ("quito,,Club Loja", "cuarenta serve: --clubs: an empty club name"),
        ("quito,***", "cuarenta serve: --clubs: '***' has no letter or digit a link can carry"),
        ("Club Loja,club-loja", "cuarenta serve: --clubs: 'Club Loja' and 'club-loja' make the"),
    ],
)
def test_serve_refuses_a_bad_club_list_at_start_in_one_line(names: str, says: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--clubs", names],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(says), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""


def test_settings_refuse_a_bad_club_list_too() -> None:
    with pytest.raises(ClubNameError):
        Settings(clubs=("quito", "Quito"))
    assert club_slugs(()) == ()
