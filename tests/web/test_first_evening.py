"""A family's first evening at the table: what a newcomer reads must be whole and must reach them.

- The score sheet in the side column (1366x768) and on a phone shows every column and says whose
  line is whose, without cutting anything at the panel's edge.
- A chat line reaches a player whose chat is out of sight (folded in the side column at 1366x768):
  it is told in the notice strip, and never to the one who wrote it.
- A host who chose not to fill the free chairs with bots is not offered a start the server refuses
  (it answered a bare "Ahora no se puede" under a hint promising bots): the start waits for every
  chair, and the hint says how to fill one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS, guest_sits, host_at_table
from tests.web.test_table_fits import VIEWPORTS, open_started_table

pytestmark = pytest.mark.browser

SHEET_CUTS = """() => [...document.querySelectorAll(".sheet-scroll")].flatMap((box) => {
  const edge = box.getBoundingClientRect();
  const cuts = [];
  if (box.scrollWidth > box.clientWidth) cuts.push(
    `the sheet is ${box.scrollWidth}px wide in a ${box.clientWidth}px box`);
  for (const cell of box.querySelectorAll("th, td, .sheet-legend-team")) {
    const r = cell.getBoundingClientRect();
    if (!r.width || getComputedStyle(cell).display === "none") continue;
    if (r.right > edge.right + 0.5 || r.left < edge.left - 0.5) cuts.push(
      `"${cell.innerText}" reaches past the box `
      + `(${r.left}-${r.right} in ${edge.left}-${edge.right})`);
    // Text cut short inside its cell (an ellipsis) hides whose line it is.
    for (const part of [cell, ...cell.querySelectorAll("span")]) {
      const shown = part.getBoundingClientRect().width > 1;
      if (shown && part.scrollWidth > part.clientWidth + 0.5 && part.clientWidth > 1) cuts.push(
        `"${part.innerText}" is cut (${part.scrollWidth}px in ${part.clientWidth}px)`);
    }
  }
  return cuts;
})"""
"""Every way the score sheets on the page are cut: wider than their box, a cell past its edge, a
text ellipsized."""

TEAMS_NAMED = """() => [...document.querySelectorAll(".sheet-scroll")].map((box) =>
  [...box.querySelectorAll(".sheet-legend-team, .sheet-team")].filter(
    (e) => e.getBoundingClientRect().width > 1 && e.innerText.trim())
    .map((e) => e.innerText.trim()))"""
"""The team names a reader sees in each sheet (in its legend or in its rows)."""


def open_sheet(page: Page) -> None:
    """Open the side column's score sheet (a closed <details> until a hand ends)."""
    page.wait_for_selector(".sheet-panel tr[data-team='1']", state="attached")
    if not page.eval_on_selector(".sheet-panel", "e => e.open"):
        page.click(".sheet-panel summary")
    page.wait_for_selector(".sheet-panel .sheet-table", state="visible")


@pytest.mark.timeout(120)
def test_the_score_sheet_fits_the_side_column_and_a_phone_and_names_both_teams(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    teams = page.eval_on_selector_all(".scoreboard .team-label", "es => es.map((e) => e.innerText)")
    seen: dict[str, Any] = {}
    for name in ("1366x768", "phone-390x844"):
        page.set_viewport_size(VIEWPORTS[name])
        page.reload()
        open_sheet(page)
        page.locator(".sheet-panel").scroll_into_view_if_needed()
        page.screenshot(path=artifacts / f"first-evening-sheet-{name}.png")
        cuts: list[str] = page.evaluate(SHEET_CUTS)
        assert not cuts, f"at {name}: " + "\n".join(cuts)
        seen[name] = page.evaluate(TEAMS_NAMED)
    for name, sheets in seen.items():
        for named in sheets:  # each team's full name is on the sheet, uncut
            assert all(any(team in text for text in named) for team in teams), (name, named, teams)


IN_VIEW = """(text) => [...document.querySelectorAll("body *")].filter((e) => {
  if (e.children.length || !e.textContent.includes(text)) return false;
  let {left, top, right, bottom} = e.getBoundingClientRect();
  if (e.closest(".visually-hidden") || right - left < 1) return false;
  for (let a = e.parentElement; a; a = a.parentElement) {  // cut by a scrolling or clipping box
    if (getComputedStyle(a).overflow === "visible") continue;
    const r = a.getBoundingClientRect();
    left = Math.max(left, r.left); top = Math.max(top, r.top);
    right = Math.min(right, r.right); bottom = Math.min(bottom, r.bottom);
  }
  return right > Math.max(left, 0) && bottom > Math.max(top, 0)
    && left < innerWidth && top < innerHeight;
}).map((e) => e.className)"""
"""The elements showing ``text`` that a person can see: on screen, not scrolled out of their box."""


@pytest.mark.timeout(120)
def test_a_chat_line_reaches_the_host_whose_chat_is_folded(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host, links = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    guest = guest_sits(new_context, host, links["join"], "Pepe")
    host.click("#start-game")
    host.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    host.click("#chat summary")  # she folds the chat away
    guest.click("#chat summary")
    line = "¡Buena suerte, abuela!"
    guest.fill("#chat-input", line)
    guest.click("#chat-send")
    host.wait_for_selector(f"#chat .chat-text >> text={line}", state="attached")
    seen: list[str] = host.evaluate(IN_VIEW, line)
    host.screenshot(path=artifacts / "first-evening-chat-1366x768.png")
    assert seen, f"the host sees nowhere on screen that Pepe wrote {line!r}"
    assert "Pepe" in host.inner_text(".toast-chat")
    guest.wait_for_selector(f"#chat .chat-text >> text={line}")
    assert not guest.locator(".toast-chat").count(), "the writer is not told their own line"


@pytest.mark.timeout(120)
def test_without_bots_at_the_start_the_host_is_told_to_fill_the_chairs_first(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    host.goto(f"{web_url}/")
    host.fill("#player-name", "Abuela Rosa")
    host.uncheck("#fill-bots")  # the family means to sit down together
    host.click("button[type=submit]")
    host.click("#go-to-table")
    host.wait_for_selector("#start-game")
    host.screenshot(path=artifacts / "first-evening-start-waiting.png")
    hint = host.inner_text("#start-game + .hint")
    assert host.is_disabled("#start-game"), f"a start the server refuses is offered: {hint!r}"
    assert "Sentar un bot" in hint, hint
    assert "bots al empezar" not in hint, hint
    while host.locator("[data-action='add-bot']").count():  # the host seats a bot in each chair
        left = host.locator("[data-action='add-bot']").count()
        host.locator("[data-action='add-bot']").first.click()
        host.wait_for_function(
            "n => document.querySelectorAll(\"[data-action='add-bot']\").length < n", arg=left
        )
    assert host.is_enabled("#start-game")
    assert "sentados" in host.inner_text("#start-game + .hint")
    host.click("#start-game")
    host.wait_for_selector(".hand .card, .game-over", timeout=STEP_TIMEOUT_MS)
    assert not host.locator(".toast-error").count()
