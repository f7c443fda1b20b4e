"""Friends in the browser: two people become friends through a player link, one sees the other
online at a table on /me, invites them to her own table with one tap, and the invitation's
Accept seats them there. "+ amigo" on a seat's name asks a stranger at the table."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_players import LAPTOP, PHONE, create_heads_up, me_id, open_me

pytestmark = pytest.mark.browser


def host_seated(page: Page, base: str, name: str, profile: str = "pagat-4p") -> dict[str, str]:
    """A host at her own table, not started, with free chairs (no bots yet)."""
    page.goto(f"{base}/?lang=es")
    page.fill("#player-name", name)
    page.select_option("#profile", profile)
    page.select_option("#turn-timer", "0")
    page.uncheck("#fill-bots")
    page.click("button[type=submit]")
    page.wait_for_selector("#go-to-table")
    join = page.input_value("#link-join")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    return {"join": join}


@pytest.mark.timeout(180)
def test_friends_see_each_other_at_a_table_and_an_invitation_seats_one(
    new_context: NewContext, web_url: str
) -> None:
    ana_context = new_context(viewport=LAPTOP, locale="es-EC")
    ana_context.on("page", lambda p: p.on("dialog", lambda d: d.accept()))
    ben_context = new_context(viewport=PHONE, locale="es-EC")
    ben_context.on("page", lambda p: p.on("dialog", lambda d: d.accept()))
    # Both have a name (Ben's first table), then Ana opens Ben's player link: a request.
    ana = ana_context.new_page()
    create_heads_up(ana, web_url, "Ana")
    ben_table = ben_context.new_page()
    create_heads_up(ben_table, web_url, "Ben")
    ben_table.click("#go-to-table")
    ben_table.wait_for_selector("#start-game")  # Ben sits at his table, online
    ben_me = open_me(ben_context, web_url)
    ben = me_id(ben_me)
    link = ben_me.input_value("#my-player-link")
    ana.goto(link)
    ana.wait_for_selector(f"#friends-outgoing li[data-player='{ben}']", timeout=STEP_TIMEOUT_MS)
    ben_me.reload()
    ben_me.click(f"#friend-accept-{ben_me_incoming(ben_me)}")
    ben_me.wait_for_selector("#friends-list .me-friend", timeout=STEP_TIMEOUT_MS)
    ben_me.close()
    # Ana sees Ben online, at a table.
    ana.reload()
    row = ana.locator(f"#friends-list li[data-player='{ben}']")
    row.wait_for(timeout=STEP_TIMEOUT_MS)
    assert row.get_attribute("data-online") == "true"
    assert "Jugando en una mesa" in row.inner_text()
    # Ana at her own table invites Ben with one tap; Ben's table page shows the invitation.
    host_seated(ana, web_url, "Ana")
    invite = ana.locator(f"button[data-invite='{ben}']")
    invite.wait_for(timeout=STEP_TIMEOUT_MS)
    invite.click()
    notice = ben_table.locator(".invite")
    notice.wait_for(timeout=STEP_TIMEOUT_MS)
    assert "Ana te invita a su mesa" in notice.inner_text()
    notice.locator("#invite-accept").click()
    ben_table.wait_for_function(
        "globalThis.__cuarenta?.model.you !== null", timeout=STEP_TIMEOUT_MS
    )
    ana.wait_for_selector(".host-seat-name >> text=Ben", timeout=STEP_TIMEOUT_MS)


def ben_me_incoming(page: Page) -> str:
    """The id of the first person asking to be friends, once shown."""
    page.wait_for_selector("#friends-incoming .me-friend", timeout=STEP_TIMEOUT_MS)
    found = page.get_attribute("#friends-incoming .me-friend", "data-player")
    assert found
    return found


@pytest.mark.timeout(120)
def test_plus_friend_on_a_seat_asks_that_person(new_context: NewContext, web_url: str) -> None:
    host = new_context(viewport=LAPTOP, locale="es-EC").new_page()
    links = host_seated(host, web_url, "Carla")
    guest = new_context(viewport=PHONE, locale="es-EC").new_page()
    guest.goto(links["join"])
    guest.wait_for_selector("#sit-name")
    guest.fill("#sit-name", "Dani")
    guest.click("#sit-down")
    guest.wait_for_function("globalThis.__cuarenta.model.you !== null")
    plus = host.locator(".seat [data-befriend]")
    plus.wait_for(timeout=STEP_TIMEOUT_MS)
    assert plus.get_attribute("aria-label") == "Añadir a Dani como amigo"
    plus.click()
    me = open_me(guest.context, web_url)
    me.wait_for_selector("#friends-incoming >> text=Carla", timeout=STEP_TIMEOUT_MS)
