"""A club night set up from the club page in Debian's Chromium, and its TV at 1920×1080.

The host opens the panel with the club's key, registers four pairs and starts the night; Ana and
Beto joined the club through its link, and the round seats them: each page takes its person to
the table, in the seat the round gave (its seat token kept where the table page resumes it). The
host rules the other table (a score awarded); the TV shows both tables, the standings and the
pairings. Screenshot: test-artifacts/club-tv.png.
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import CLUB, NewContext

pytestmark = pytest.mark.browser
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def web_url(club_server: tuple[str, str]) -> str:
    return club_server[0]


def night(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/c/{CLUB}/night.json", timeout=5) as answer:
        data: dict[str, Any] = json.loads(answer.read())
    return data


def join_club(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/c/{CLUB}")
    page.fill("#club-member-name", name)
    page.click("#club-member-join")
    expect(page.locator(".club-member-me")).to_contain_text(name, timeout=WAIT_MS)


def register(host: Page, first: str, second: str = "") -> None:
    host.fill("#club-pair-1", first)
    host.fill("#club-pair-2", second)
    host.select_option("#club-pair-bot", "2")
    host.click("#club-pair-add")
    expect(host.locator(".club-pairs")).to_contain_text(first, timeout=WAIT_MS)


def test_the_host_sets_up_a_night_people_are_seated_and_the_tv_shows_it(
    club_server: tuple[str, str], new_context: NewContext, artifacts: Any
) -> None:
    url, key = club_server
    ana, beto = new_context().new_page(), new_context().new_page()
    join_club(ana, url, "Ana")
    join_club(beto, url, "Beto")
    host = new_context().new_page()
    host.goto(f"{url}/c/{CLUB}")
    host.fill("#club-host-key", key)
    host.click("#club-host-open")
    expect(host.locator("#club-host-title")).to_be_visible(timeout=WAIT_MS)
    expect(host.locator(".club-members li")).to_have_text(["Ana", "Beto"], timeout=WAIT_MS)
    for first, second in (("Ana", ""), ("Beto", ""), ("Carla", "Dani"), ("Eli", "Fer")):
        register(host, first, second)
    host.select_option("#club-format", "swiss")
    host.fill("#club-rounds", "2")
    host.click("#club-start")
    expect(host.locator("#club-next-round")).to_be_enabled(timeout=WAIT_MS)
    host.click("#club-next-round")
    # the round seats the people: each page takes its person to the table the round gave
    for person in (ana, beto):
        person.wait_for_url(re.compile(r"/t/[\w.~-]+$"), timeout=WAIT_MS)
    tables = night(url)["night"]["tables"]
    first = tables["1-1"]
    assert ana.url.endswith(f"/t/{first['join']}")
    assert beto.url.endswith(f"/t/{first['join']}")
    expect(ana.locator("body")).to_contain_text("Beto", timeout=WAIT_MS)
    seats = night(url)["live"][first["id"]]["seats"]
    assert [seats[0]["name"], seats[1]["name"]] == ["Ana", "Beto"]  # the round's seats (R: pairs)
    assert [seat["occupant"] for seat in seats] == ["person", "person", "bot", "bot"]
    # the other table waits for Carla, Dani, Eli and Fer: the host rules it
    expect(host.locator("#club-rule-table")).to_be_visible(timeout=WAIT_MS)
    host.select_option("#club-rule-table", "2")
    host.fill("#club-rule-a", "41")
    host.fill("#club-rule-b", "12")
    host.click("#club-rule-form button[type=submit]")
    expect(host.locator(".club-standings tbody tr").first).to_contain_text("Carla", timeout=WAIT_MS)
    tv = new_context(viewport={"width": 1920, "height": 1080}).new_page()
    tv.goto(f"{url}/c/{CLUB}/tv")
    expect(tv.locator(".club-tv .club-night-table")).to_have_count(2, timeout=WAIT_MS)
    expect(tv.locator(".club-tv .club-standings tbody tr")).to_have_count(4)
    expect(tv.locator(".club-tv .club-pairings li")).to_have_count(2)
    expect(tv.locator(".club-tv-round")).to_contain_text("1")
    expect(tv.locator(".club-night-table[data-table='2']")).to_contain_text("41")
    font = tv.locator(".club-tv .club-standings td").first.evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)"
    )
    assert font >= 24  # legible from three metres
    tv.screenshot(path=str(artifacts / "club-tv.png"))
    host.set_viewport_size({"width": 390, "height": 844})  # the host's panel on a phone
    expect(host.locator(".club-standings")).to_be_visible()
    wide = host.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the club page is {wide} px wide on a 390 px phone"
    host.screenshot(path=str(artifacts / "club-page-phone.png"), full_page=True)
