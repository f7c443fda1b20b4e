"""A table's facts read cleanly on a 390x844 phone.

- Under the score boxes the table page shows one line of facts (hand, "1 mirando", "a 40") and
  one of buttons: "a 40" and the watchers badge used to end on lines of their own.
- In the lobby of public tables each fact of a table's row ("1 mirando") stays whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_seating import sit_down
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser

PHONE = VIEWPORTS["phone-390x844"]

META_LINES = """() => {
  const items = [...document.querySelectorAll(".score-meta > span, .score-meta .table-tools > *")]
    .filter((e) => e.getBoundingClientRect().width > 0);
  const lines = [];
  for (const e of items) {
    const r = e.getBoundingClientRect();
    const line = lines.find((l) => r.top < l.bottom && r.bottom > l.top);
    if (line) line.items.push(e.innerText.trim());
    else lines.push({top: r.top, bottom: r.bottom, items: [e.innerText.trim()]});
  }
  return lines.map((l) => l.items);
}"""
"""The score row's items grouped by the line they are drawn on (boxes that overlap vertically)."""


def assert_reads_cleanly(page: Page, when: str, watched: bool = True) -> None:
    """At most two lines, none holding a single item; "a 40" beside "1 mirando" if watched."""
    lines: list[list[str]] = page.evaluate(META_LINES)
    assert len(lines) <= 2, f"{when}: the row takes {len(lines)} lines: {lines}"
    alone = [line for line in lines if len(line) == 1]
    assert not alone, f"{when}: {alone} on a line of its own ({lines})"
    facts = next(line for line in lines if "a 40" in line)
    assert ("1 mirando" in " ".join(facts).lower()) is watched, f"{when}: {lines}"


def public_table(new_context: NewContext, web_url: str) -> tuple[Page, dict[str, str]]:
    """A public table hosted by Abuela Rosa (bots fill the free chairs at the start)."""
    host = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    host.goto(f"{web_url}/")
    host.fill("#player-name", "Abuela Rosa")
    host.select_option("#turn-timer", "0")
    host.select_option("#bot-level", "1")
    host.check("#public-table")
    host.click("button[type=submit]")
    host.wait_for_selector("#go-to-table")
    links = {"join": host.input_value("#link-join"), "watch": host.input_value("#link-watch")}
    host.click("#go-to-table")
    host.wait_for_selector("#start-game")
    return host, links


@pytest.mark.timeout(120)
def test_the_score_row_and_the_lobby_row_read_cleanly_on_a_phone(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host, links = public_table(new_context, web_url)
    guest = sit_down(new_context, links["join"], "Pepe", 1)
    assert_reads_cleanly(guest, "before the start, nobody watching", watched=False)
    guest.screenshot(path=artifacts / "seating-phone-score-row-alone.png")
    watcher = new_context(viewport=PHONE, locale="es-EC").new_page()
    watcher.goto(links["watch"])
    guest.wait_for_selector("#watchers")
    assert_reads_cleanly(guest, "before the start")
    guest.screenshot(path=artifacts / "seating-phone-score-row-lobby.png")

    host.click("#start-game")
    guest.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    guest.wait_for_selector(".score-meta >> text=Mano 1")
    assert_reads_cleanly(guest, "in the game")
    guest.screenshot(path=artifacts / "seating-phone-score-row-playing.png")

    lobby = new_context(viewport=PHONE, locale="es-EC").new_page()
    lobby.goto(f"{web_url}/tables")
    lobby.wait_for_selector(".lobby-meta >> text=1 mirando")
    facts = lobby.eval_on_selector_all(
        ".lobby-meta span", "es => es.map((e) => [e.innerText, e.getClientRects().length])"
    )
    assert [text for text, _ in facts][2] == "1 mirando"
    assert all(rects == 1 for _, rects in facts), f"a fact split across lines: {facts}"
    lobby.screenshot(path=artifacts / "seating-phone-lobby.png")
