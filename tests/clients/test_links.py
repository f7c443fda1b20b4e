"""Table links (ARCHITECTURE "Identity"): parsed strictly, printed as the web client's /t/ path."""

from __future__ import annotations

import pytest

from clients.links import LinkError, TableLink, server_root, socket_url


def test_a_link_names_its_server_and_key_and_prints_back_the_same() -> None:
    link = TableLink.parse("https://cuarenta.example:8443/t/abc_DEF-123~x/")
    assert link == TableLink("https://cuarenta.example:8443", "abc_DEF-123~x")
    assert link.ws_url == "wss://cuarenta.example:8443/ws"
    assert TableLink.parse(str(link)) == link


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("cuarenta.example/t/abcdefgh", "not a server address"),
        ("http://127.0.0.1:8765/", "not a table link"),
        ("http://127.0.0.1:8765/x/abcdefgh", "not a table link"),
        ("http://127.0.0.1:8765/t/short", "malformed"),
        ("http://127.0.0.1:8765/t/bad%20key%20here", "malformed"),
    ],
)
def test_text_that_is_not_a_link_is_refused_saying_why(text: str, reason: str) -> None:
    with pytest.raises(LinkError, match=reason):
        TableLink.parse(text)


def test_server_addresses_in_any_scheme_lead_to_the_socket() -> None:
    assert server_root("ws://127.0.0.1:8765/ws") == "http://127.0.0.1:8765"
    assert socket_url("http://127.0.0.1:8765/t/whatever") == "ws://127.0.0.1:8765/ws"
    assert str(TableLink.of("ws://h:1/ws", "k" * 8)) == "http://h:1/t/kkkkkkkk"
