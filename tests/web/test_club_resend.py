"""The club host's page sends a command again when the night changed at that moment (issue 43).

With two replicas each writing the night over the version it read, a host command can meet the
other's write and be refused unapplied with ``stale`` ("the night changed at that moment: send it
again"). The page then reloads the night and sends the same command once more by itself, instead
of showing the refusal; a second refusal in a row is shown. In Chromium, against the real server:
the page's WebSocket is routed through the test, which answers the first command(s) with that
refusal, as the other replica's write would, and passes everything else through.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.web.conftest import NewContext, open_as_host

pytestmark = pytest.mark.browser

WAIT_MS = 10_000
AGAIN = "the night changed at that moment: send it again"


@pytest.fixture(scope="module")
def web_url(club_server: tuple[str, str]) -> str:
    return club_server[0]


class OtherReplica:
    """Routes the page's socket: the first ``refusals`` host commands of ``kind`` meet a write."""

    def __init__(self, page: Page, kind: str, refusals: int) -> None:
        self.kind = kind
        self.refusals = refusals
        self.sent: list[dict[str, Any]] = []
        page.route_web_socket("**/ws", self.route)

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(frame: str | bytes) -> None:
            message = msgpack.unpackb(frame) if isinstance(frame, bytes) else {}
            if message.get("type") == self.kind:
                self.sent.append(message)
                if len(self.sent) <= self.refusals:
                    refusal = {"type": "error", "rid": message["rid"], "code": "stale"}
                    ws.send(msgpack.packb({**refusal, "message": AGAIN}))
                    return
            server.send(frame)

        ws.on_message(from_page)


def register(page: Page, first: str, second: str) -> None:
    page.fill("#club-pair-1", first)
    page.fill("#club-pair-2", second)
    page.click("#club-pair-add")


def test_a_command_that_met_the_other_replicas_write_is_sent_again_once_by_itself(
    club_server: tuple[str, str], new_context: NewContext
) -> None:
    url, key = club_server
    host = new_context().new_page()
    other = OtherReplica(host, "club_pair", refusals=1)
    open_as_host(host, url, key)
    register(host, "Gabi", "Hugo")
    expect(host.locator(".club-pairs")).to_contain_text("Gabi", timeout=WAIT_MS)
    assert [m["members"] for m in other.sent] == [["Gabi", "Hugo"], ["Gabi", "Hugo"]]
    assert other.sent[0]["rid"] != other.sent[1]["rid"]  # a new request, the same command
    expect(host.locator("#club-host-note")).to_have_text("")  # the refusal was never shown


def test_a_second_refusal_in_a_row_is_shown_and_not_sent_a_third_time(
    club_server: tuple[str, str], new_context: NewContext
) -> None:
    url, key = club_server
    host = new_context().new_page()
    other = OtherReplica(host, "club_pair", refusals=2)
    open_as_host(host, url, key)
    register(host, "Iris", "Juan")
    expect(host.locator("#club-host-note")).to_have_text(AGAIN, timeout=WAIT_MS)
    assert len(other.sent) == 2
    # No pair holds Iris; on a server where no pair was registered yet there is no list at all.
    expect(host.locator(".club-pairs li", has_text="Iris")).to_have_count(0)
