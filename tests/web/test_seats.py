"""Seats before the start: a friend opening the join link sees the free chairs around
the table and takes the one they choose (partner or opponent); the host moves people and bots
between chairs (the protocol's swap).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.conftest import NewContext
from tests.web.test_browser import create_table, host_at_table, model
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser


@pytest.mark.timeout(120)
def test_a_friend_chooses_the_partners_chair_and_the_host_moves_them(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host, links = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    you = model(host, "m.you")
    partner = (you + 2) % 4
    friend = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    friend.goto(links["join"])
    friend.wait_for_selector(f"[data-action='sit-{partner}']")
    chair = friend.locator(f".seat[data-seat='{partner}']")
    assert "Pareja de Lucía" in chair.inner_text()  # the chair says whose partner it makes you
    friend.screenshot(path=artifacts / "seats-join-page-phone.png")
    friend.fill("#sit-name", "Marta")
    friend.click(f"[data-action='sit-{partner}']")
    friend.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    assert model(friend, "m.you") == partner
    host.wait_for_selector(f".seat[data-seat='{partner}'] >> text=Marta")
    # The host moves Marta to an opponent's chair before the start.
    opponent = (you + 1) % 4
    host.select_option(f"[data-action='move-{partner}']", str(opponent))
    friend.wait_for_function(f"globalThis.__cuarenta.model.you === {opponent}")
    host.wait_for_selector(f".seat[data-seat='{opponent}'] >> text=Marta")


@pytest.mark.timeout(60)
def test_the_links_page_gives_the_three_links_the_readme_promises(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    links = create_table(page, web_url)
    host = page.input_value("#link-host")
    assert len({links["join"], links["watch"], host}) == 3
    assert all(url.startswith(f"{web_url}/t/") for url in (*links.values(), host))
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "three links: the *join* link" in readme
    # The rules are a link away on every screen (the top bar), in the page's language.
    assert page.inner_text("#rules-link") == "Reglas"
    page.screenshot(path=artifacts / "links-page-phone.png", full_page=True)
