"""A family's first evening at the table: what a newcomer reads must be whole and must reach them.

- The score sheet in the side column (1366x768) and on a phone shows every column and says whose
  line is whose, without cutting anything at the panel's edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
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
      `"${cell.innerText}" reaches past the box (${r.left}-${r.right} in ${edge.left}-${edge.right})`);
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
    (e) => e.getBoundingClientRect().width > 1 && e.innerText.trim()).map((e) => e.innerText.trim()))"""
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
