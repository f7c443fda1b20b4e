"""The club host's page sends a command again when the night changed at that moment (issue 43).

With two replicas each writing the night over the version it read, a host command can meet the
other's write and be refused unapplied with ``stale`` ("the night changed at that moment: send it
again"). The page then reloads the night and sends the same command once more by itself, instead
of showing the refusal; a second refusal in a row is shown. In Chromium, against the real server:
the page's WebSocket is routed through the test, which answers the first command(s) with that
refusal, as the other replica's write would, and passes everything else through.

Last, on the same club server, the host starts a night turn-based (issue 41): 24 hours a move,
chosen in the panel; the page, the panel, the TV and the round's tables say so, on a phone too,
and so does a member's page when the round seats him; at 1280×720 the night's section lines up
with the club's tables above it.
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import msgpack
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.web.axe import assert_accessible
from tests.web.conftest import CLUB, NewContext, open_as_host
from tests.web.test_club_tv import join_club

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


TOLD = """new MutationObserver(() => {  // the club page's notice, as it appears
  const notice = document.querySelector(".club-night-notice");
  if (notice) console.log(`told:${notice.textContent}`);
}).observe(document, { childList: true, subtree: true });"""


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


def test_the_host_starts_a_turn_based_night_and_the_page_and_the_tv_show_its_pace(
    club_server: tuple[str, str], new_context: NewContext, artifacts: Any
) -> None:
    url, key = club_server
    kiko = new_context(viewport={"width": 390, "height": 844}).new_page()
    told: list[str] = []  # what Kiko's page says when the round seats him (it then goes on)
    kiko.on(
        "console", lambda line: told.append(line.text) if line.text.startswith("told:") else None
    )
    kiko.add_init_script(TOLD)
    join_club(kiko, url, "Kiko")
    host = new_context().new_page()
    open_as_host(host, url, key)
    for first, second in (("Kiko", "Lola"), ("Memo", "Nora")):
        register(host, first, second)
        expect(host.locator(".club-pairs")).to_contain_text(first, timeout=WAIT_MS)
    host.fill("#club-rounds", "1")
    host.select_option("#club-pace", "86400")
    host.click("#club-start")
    pace = "turn-based, 24 hours a move"
    expect(host.locator(".club-night-round")).to_contain_text(pace, timeout=WAIT_MS)
    expect(host.locator("#club-round-pace")).to_have_value("86400")  # the night's, preselected
    host.click("#club-next-round")
    expect(host.locator(".club-night-round")).to_contain_text(
        f"Round 1 of 1 · {pace}", timeout=WAIT_MS
    )
    expect(host.locator(".club-host-pace")).to_have_text(f"Round 1 · {pace}")
    kiko.wait_for_url(re.compile(r"/t/[\w.~-]+$"), timeout=WAIT_MS)  # seated, and taken there
    said = re.compile(rf"told:Your table: table \d, seat \d, {pace}\. Taking you there…")
    assert told
    assert all(said.fullmatch(line) for line in told), told
    with urllib.request.urlopen(f"{url}/c/{CLUB}/night.json", timeout=5) as answer:
        night = json.loads(answer.read())["night"]
    assert night["paces"] == [{"move_deadline": 86400, "on_deadline": "stand_in"}]
    assert {t["move_deadline"] for t in night["tables"].values()} == {86400}
    tv = new_context(viewport={"width": 1920, "height": 1080}).new_page()
    tv.goto(f"{url}/c/{CLUB}/tv?lang=en")
    expect(tv.locator(".club-tv-round")).to_contain_text(pace, timeout=WAIT_MS)
    host.set_viewport_size({"width": 1280, "height": 720})  # the night lines up with the tables
    tables, tonight = (
        host.locator("#main .lobby").bounding_box(),
        host.locator(".club-night").bounding_box(),
    )
    assert tables is not None
    assert tonight is not None
    assert (round(tonight["x"]), round(tonight["width"])) == (
        round(tables["x"]),
        round(tables["width"]),
    )
    host.screenshot(path=str(artifacts / "club-turn-based-1280x720.png"), full_page=True)
    host.set_viewport_size({"width": 390, "height": 844})
    wide = host.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the club page is {wide} px wide on a 390 px phone"
    host.screenshot(path=str(artifacts / "club-turn-based-phone.png"), full_page=True)
    assert_accessible(host, "the club page of a turn-based night, 390x844")
