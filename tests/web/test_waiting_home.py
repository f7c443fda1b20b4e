"""What calls a person back, in the browser (issue 41): the home page says how many turn-based
games wait for their move (a link to /me; nothing at none, nothing for a newcomer), and /me,
opened from a friend_invite notification (``/me?invite=<table>``), shows the invitation with
an Accept that sits them at the table; the notice switches include invitations and club nights.
At 390×844 with no serious axe finding; screenshots in test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import pytest
from playwright.sync_api import Page, ViewportSize

from clients.session import ClientSession
from protocol import away as a
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from tests.server.people.wire import new_key
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_push_worker import click_notification, on_the_wire, pushed
from tests.web.test_turn_based import keyed

pytestmark = pytest.mark.browser
T = TypeVar("T")
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 720}


def ws_of(url: str) -> str:
    return url.replace("http://", "ws://") + "/ws"


async def waiting_for_rosa(url: str, key: str, tables: int) -> None:
    """Rosa sits at ``tables`` one-day turn-based tables with three bots each; the bots play
    until each waits for her move (asked as /me asks, a bounded number of round trips)."""
    async with await ClientSession.connect(ws_of(url), "Rosa", player_key=key) as rosa:
        made = []
        for _ in range(tables):
            created = await rosa.request(c.CreateTable(profile="pagat-4p", move_deadline=86400))
            assert isinstance(created, s.TableCreated)
            await rosa.request(c.Join(key=created.host_key, seat=0))
            for _ in range(3):
                await rosa.request(c.AddBot(level=1))
            await rosa.request(c.Start())
            made.append(created.table)
        for _ in range(500):
            turns = await rosa.request(a.TurnsRequest())
            assert isinstance(turns, a.Turns)
            if sum(line.your_turn for line in turns.tables if line.table in made) == tables:
                return
            await rosa.request(c.Ping())
        raise AssertionError("the bots never came round to Rosa")


def home_count(page: Page) -> int:
    count: int = page.evaluate("globalThis.__cuarentaHome.counted")
    return count


def test_the_home_page_counts_the_games_that_wait_for_your_move(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    key = new_key()
    on_the_wire(waiting_for_rosa(web_url, key, 2))
    for viewport, name in ((PHONE, "390x844"), (DESKTOP, "1280x720")):
        context = new_context(viewport=viewport, locale="en-US")
        context.add_init_script(keyed(key))
        page = context.new_page()
        page.goto(f"{web_url}/?lang=en")
        link = page.wait_for_selector("#home-turns", timeout=STEP_TIMEOUT_MS)
        assert link is not None
        assert link.inner_text() == "2 games wait for your move"
        assert link.get_attribute("href") == "/me"
        assert_accessible(page, f"home with games waiting, {name}")
        page.screenshot(path=str(artifacts / f"home-turns-{name}.png"))
    link.click()
    page.wait_for_url(f"{web_url}/me", timeout=STEP_TIMEOUT_MS)
    page.wait_for_selector(".me-turn.is-yours", timeout=STEP_TIMEOUT_MS)
    assert page.locator(".me-turn.is-yours").count() == 2

    nothing = new_context(viewport=PHONE, locale="es-EC")
    nothing.add_init_script(keyed(new_key()))  # a person with no turn-based game
    page = nothing.new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#player-name")
    assert home_count(page) == 0
    assert page.locator("#home-turns").count() == 0
    newcomer = new_context(viewport=PHONE).new_page()  # no key yet: nothing asked
    newcomer.goto(f"{web_url}/")
    newcomer.wait_for_selector("#player-name")
    assert home_count(newcomer) == 0
    assert newcomer.locator("#home-turns").count() == 0


async def invited_away(url: str, beto_key: str) -> s.TableCreated:
    """Abuela and Beto are friends; Beto's tab is closed; she invites him to her table."""
    abuela = await ClientSession.connect(ws_of(url), "Abuela", player_key=new_key())
    beto = await ClientSession.connect(ws_of(url), "Beto", player_key=beto_key)
    for session, other in ((abuela, beto), (beto, abuela)):
        me = await other.request(p.MeRequest())
        assert isinstance(me, p.Me)
        action = "request" if session is abuela else "accept"
        await session.request(p.Friend(action=action, player=me.id))
    beto_id = (await beto.request(p.MeRequest())).id  # type: ignore[union-attr]
    await beto.close()
    created = await abuela.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await abuela.request(c.Join(key=created.host_key, seat=0))
    await abuela.request(p.Invite(player=beto_id))
    await abuela.close()
    return created


def test_me_opened_from_an_invitation_shows_it_and_accept_sits_at_the_table(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    key = new_key()
    created = on_the_wire(invited_away(web_url, key))
    context = new_context(viewport=PHONE, locale="es-EC")
    context.add_init_script(keyed(key))
    page = context.new_page()
    page.goto(f"{web_url}/me?invite={created.table}")  # in Beto's language, Spanish
    line = page.wait_for_selector(".me-invite.is-wanted", timeout=STEP_TIMEOUT_MS)
    assert line is not None
    assert line.query_selector(".me-invite-text").inner_text() == (  # type: ignore[union-attr]
        "Abuela te invita a una mesa"
    )
    for kind in ("your_turn", "deadline_near", "friend_invite", "night_round"):
        assert page.is_checked(f"#notice-{kind}")  # each can be switched off
    assert_accessible(page, "/me with an invitation, 390x844")
    page.screenshot(path=str(artifacts / "me-invite-390x844.png"))
    page.click(".me-invite.is-wanted .me-invite-accept")
    page.wait_for_url(f"{web_url}/t/{created.join_key}", timeout=STEP_TIMEOUT_MS)
    page.wait_for_selector("#sit-down", timeout=STEP_TIMEOUT_MS)  # a chair, as from a join link
    page.fill("#sit-name", "Beto")
    page.click("#sit-down")
    page.wait_for_function("globalThis.__cuarenta?.model.you !== null", timeout=STEP_TIMEOUT_MS)
    page.goto(f"{web_url}/me")
    page.wait_for_selector("#me-turns-title", timeout=STEP_TIMEOUT_MS)
    assert page.locator(".me-invite").count() == 0  # accepted: no longer pending


def test_a_friend_invite_push_is_titled_in_the_pages_language_and_opens_the_invitation(
    web_url: str, new_context: NewContext
) -> None:
    key = new_key()
    created = on_the_wire(invited_away(web_url, key))
    context = new_context(viewport=PHONE, locale="pt-BR")
    context.grant_permissions(["notifications"], origin=web_url)
    context.add_init_script(keyed(key))
    page = context.new_page()
    page.goto(f"{web_url}/me")
    page.wait_for_selector("#me-turns-title", timeout=STEP_TIMEOUT_MS)
    notice = {  # what the server pushes for an invitation (tests/server/test_invite_push.py)
        "kind": "friend_invite",
        "url": f"/me?invite={created.table}",
        "table": created.table,
        "deadline": None,
        "detail": "Abuela",
    }
    shown = [
        {field: each[field] for field in ("title", "body", "url")}
        for each in pushed(context, page, web_url, notice)
    ]
    assert shown == [
        {
            "title": "Um convite para o Cuarenta",
            "body": "Abuela convida você para uma mesa",
            "url": f"/me?invite={created.table}",
        }
    ]
    click_notification(context)
    page.wait_for_url(f"{web_url}/me?invite={created.table}", timeout=STEP_TIMEOUT_MS)
    page.wait_for_selector(".me-invite.is-wanted", timeout=STEP_TIMEOUT_MS)


def test_the_forfeit_rule_is_chosen_at_creation_and_told_before_anyone_sits(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    page = new_context(viewport=PHONE, locale="en-US").new_page()
    page.goto(f"{web_url}/?lang=en")
    rule = page.wait_for_selector("#on-deadline", timeout=STEP_TIMEOUT_MS)
    assert rule is not None
    assert rule.is_disabled()  # a live table has no deadline to miss
    page.select_option("#pace", "86400")
    assert rule.is_enabled()
    page.select_option("#on-deadline", "forfeit")
    assert_accessible(page, "home with the deadline rule, 390x844")
    page.fill("#player-name", "Abuela")
    page.uncheck("#fill-bots")
    page.check("#public-table")
    page.click("button[type=submit]")
    href = page.wait_for_selector("#go-to-table", timeout=STEP_TIMEOUT_MS)
    assert href is not None
    join = href.get_attribute("href")
    assert join is not None
    visitor = new_context(viewport=PHONE, locale="en-US").new_page()
    visitor.goto(f"{join}?lang=en")  # a visitor with the join link, before anyone sits
    note = visitor.wait_for_selector(".sit-panel #pace-note", timeout=STEP_TIMEOUT_MS)
    assert note is not None
    assert note.inner_text() == (
        "Turn-based: 1 day per move. If the time runs out, the bot plays that turn, and a side "
        "that misses two deadlines in a row loses by forfeit."
    )
    assert_accessible(visitor, "sit panel of a forfeit table, 390x844")
    visitor.screenshot(path=str(artifacts / "sit-forfeit-390x844.png"))
    visitor.goto(f"{web_url}/tables?lang=en")  # the lobby's card of the public table says it
    card = visitor.locator(".lobby-table .lobby-pace")
    card.first.wait_for(timeout=STEP_TIMEOUT_MS)
    texts = card.all_inner_texts()
    assert "Turn-based: 1 day per move (forfeit after 2 missed)" in texts
