"""`cuarenta new` prints the table's links: for people (es/en) or as JSON for scripts."""

from __future__ import annotations

import json

import pytest

from clients.links import TableLink
from clients.session import SessionError
from clients.table import TableLinks
from clients.terminal.cli_new import links_text, parse_option
from clients.terminal.i18n import Translator

LINKS = TableLinks(
    "T4ble",
    TableLink("http://h:1", "join-key-1"),
    TableLink("http://h:1", "watch-key-1"),
    TableLink("http://h:1", "host-key-1"),
)


def test_people_read_which_link_plays_which_watches_and_that_the_host_link_is_secret() -> None:
    assert links_text(LINKS, Translator("es")).splitlines() == [
        "Mesa T4ble",
        "jugar:   http://h:1/t/join-key-1",
        "mirar:   http://h:1/t/watch-key-1",
        "anfitrión (secreto): http://h:1/t/host-key-1",
    ]
    assert "host (secret): http://h:1/t/host-key-1" in links_text(LINKS, Translator("en"))


def test_scripts_read_json() -> None:
    assert json.loads(links_text(LINKS, Translator("en"), as_json=True)) == {
        "table": "T4ble",
        "join": "http://h:1/t/join-key-1",
        "watch": "http://h:1/t/watch-key-1",
        "host": "http://h:1/t/host-key-1",
    }


def test_options_take_r13_value_types() -> None:
    assert parse_option("sequence=manual") == ("sequence", "manual")
    assert parse_option("ronda_points=2") == ("ronda_points", 2)
    assert parse_option("capture_mandatory=true") == ("capture_mandatory", True)
    with pytest.raises(SessionError, match="expected NAME=VALUE"):
        parse_option("sequence")
