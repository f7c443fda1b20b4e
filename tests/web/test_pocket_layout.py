"""At home on a phone (issue 42): pocket.html in portrait 390x844, landscape 844x390 and on a
1280x720 desktop keeps the hand in sight without scrolling, its cards large enough to read
without zoom and every target a thumb's 44 px; the top bar's language menu never leaves the
screen (the home page's bar, the widest, included). Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from clients import pocket
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SIZES = [(390, 844, "phone"), (844, 390, "landscape"), (1280, 720, "desktop")]
PERSONS_TURN = "__pocket.chica && __pocket.chica.to_move === 'person' && !__pocket.thinking"
#: the boxes that matter, as [left, top, right, bottom], and every target smaller than a thumb
FACTS = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const shown = (el) => el.getBoundingClientRect().width > 0;
  return {
    hand: box(document.querySelector(".pocket-hand")),
    cards: [...document.querySelectorAll(".pocket-hand .card")].map(box),
    lang: box(document.getElementById("lang")),
    small: [...document.querySelectorAll("main button, main select, header a, header select")]
      .filter(shown).filter((el) => { const r = el.getBoundingClientRect();
        return Math.min(r.width, r.height) < 43.5; }).map((el) => el.id || el.className),
    wide: document.documentElement.scrollWidth,
  };
}"""


def inside(box: list[float], width: int, height: int) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5


@pytest.mark.timeout(120)
def test_the_pocket_is_at_home_on_a_phone_upright_on_its_side_and_on_a_desktop(
    new_context: NewContext, web_url: str
) -> None:
    pocket.build(ROOT / "clients" / "web" / "offline")
    ARTIFACTS.mkdir(exist_ok=True)
    page = new_context(locale="pt-BR", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{web_url}/pocket.html?pace=0")
    page.wait_for_function(PERSONS_TURN, timeout=60_000)
    for width, height, name in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"pocket-{name}.png"))
        facts: Any = page.evaluate(FACTS)
        assert inside(facts["hand"], width, height), f"{name}: the hand in sight, unscrolled"
        assert facts["cards"], "a hand of cards"
        for card in facts["cards"]:
            assert inside(card, width, height), f"{name}: every card of the hand in sight"
            assert card[2] - card[0] >= 48, f"{name}: a card read without zoom"
        assert inside(facts["lang"], width, height), f"{name}: the language menu on the screen"
        assert facts["wide"] <= width, f"{name}: nothing past the right edge"
        if name != "desktop":  # a mouse's targets may be smaller
            assert facts["small"] == [], f"{name}: targets under 44 px"
    page.set_viewport_size({"width": 390, "height": 844})
    assert_accessible(page, "pocket.html at 390x844")


def test_the_top_bar_keeps_the_language_menu_on_a_phone(
    new_context: NewContext, web_url: str
) -> None:
    """The home page's bar (its solo and person links beside the language) at 390 px."""
    page: Page = new_context(locale="pt-BR", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#lang")
    box: Any = page.evaluate(
        "(() => { const r = document.getElementById('lang')"
        ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()"
    )
    assert inside(box, 390, 844)
    assert page.evaluate("document.documentElement.scrollWidth") == 390
