"""The service worker's side of Web Push, in Chromium (issue 41): a push message delivered to it
through the DevTools protocol (``ServiceWorker.deliverPushMessage``) is shown as a notification
titled in the page's language, carrying only the link to open; a click on it takes the open /me
page to that link, which goes on to the person's seat at the table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from playwright.sync_api import BrowserContext, Page

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from tests.server.people.wire import new_key
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser
T = TypeVar("T")


def on_the_wire(work: Coroutine[Any, Any, T]) -> T:
    """Run a wire client's coroutine beside the page (sync Playwright holds this thread's loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


async def seated(url: str, key: str, **options: Any) -> s.TableCreated:
    """Rosa sits at a turn-based table (24 hours a move unless ``options`` say otherwise:
    `CreateTable`'s fields) with three bots, a game under way; then her tab closes."""
    ws = url.replace("http://", "ws://") + "/ws"
    async with await ClientSession.connect(ws, "Rosa", player_key=key) as rosa:
        create = c.CreateTable(profile="pagat-4p", **{"move_deadline": 86400, **options})
        created = await rosa.request(create)
        assert isinstance(created, s.TableCreated)
        await rosa.request(c.Join(key=created.host_key, seat=0))
        for _ in range(3):
            await rosa.request(c.AddBot(level=1))
        await rosa.request(c.Start())
        return created


REGISTERED = """async () => {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  await navigator.serviceWorker.ready;
  await (await caches.open("prefs")).put("/__lang", new Response("pt"));
}"""  # what turning notifications on does (in Portuguese), bar the push service's subscription
SHOWN = """async () => {  // the notifications, once the worker has shown them (5 s at most)
  const registration = await navigator.serviceWorker.ready;
  for (let tries = 0; tries < 200; tries += 1) {
    const all = await registration.getNotifications();
    if (all.length) {
      return all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data.url }));
    }
    await new Promise((done) => setTimeout(done, 25));
  }
  return null;
}"""
CLICKED = """() => self.registration.getNotifications().then((all) => {
  const click = new NotificationEvent("notificationclick", { notification: all[0] });
  try { self.dispatchEvent(click); } catch (error) { /* a script's event cannot waitUntil */ }
})"""


def pushed(context: BrowserContext, page: Page, web_url: str, notice: dict[str, Any]) -> Any:
    """Register the service worker from ``page`` (open on the site), deliver ``notice`` to it
    as the push service would (DevTools), and return the notifications it showed."""
    page.evaluate(REGISTERED)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=STEP_TIMEOUT_MS)
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_function("true")  # one round trip: the registration event has come
    registration = next(r for r in registrations if r["scopeURL"] == f"{web_url}/")
    delivery = {
        "origin": web_url,
        "registrationId": registration["registrationId"],
        "data": json.dumps(notice),
    }
    # DevTools' delivery is fire-and-forget: on a busy machine one can be dropped while the
    # worker starts. It is repeated until shown; the notice's tag (one per table) keeps a
    # repeat from adding a second notification, and the tests count them.
    for _ in range(6):
        cdp.send("ServiceWorker.deliverPushMessage", delivery)
        shown = page.evaluate(SHOWN)
        if shown:
            return shown
    raise AssertionError(f"the worker showed no notification for {notice} in 30 s")


def click_notification(context: BrowserContext) -> None:
    """Click the first notification shown, as a person would (``notificationclick``)."""
    context.service_workers[0].evaluate(CLICKED)


def test_a_push_is_shown_in_the_pages_language_and_its_click_opens_the_seat(
    web_url: str, new_context: NewContext
) -> None:
    key = new_key()
    created = on_the_wire(seated(web_url, key))
    context = new_context()
    context.grant_permissions(["notifications"], origin=web_url)
    value = json.dumps(json.dumps(key))
    context.add_init_script(
        f"if (location.protocol === 'http:') localStorage.setItem('cuarenta.player', {value});"
    )
    page = context.new_page()
    page.goto(f"{web_url}/me?lang=pt")
    page.wait_for_selector("#me-turns-title", timeout=STEP_TIMEOUT_MS)
    notice = {
        "kind": "your_turn",
        "url": f"/me?open={created.table}",
        "table": created.table,
        "deadline": None,
        "detail": "Diego: 7H",
    }
    shown = pushed(context, page, web_url, notice)
    assert shown == [
        {
            "title": "Sua vez no Cuarenta",
            "body": "Diego: 7H",
            "tag": f"table-{created.table}",
            "url": f"/me?open={created.table}",
        }
    ]
    click_notification(context)
    page.wait_for_url(f"{web_url}/t/{created.join_key}?mine", timeout=STEP_TIMEOUT_MS)
    page.wait_for_function("globalThis.__cuarenta?.model.you === 0", timeout=STEP_TIMEOUT_MS)


def test_a_turn_one_missed_deadline_from_a_forfeit_is_titled_with_the_warning(
    web_url: str, new_context: NewContext
) -> None:
    context = new_context()
    context.grant_permissions(["notifications"], origin=web_url)
    page = context.new_page()
    page.goto(f"{web_url}/me?lang=pt")
    page.wait_for_selector("#me-turns-title", timeout=STEP_TIMEOUT_MS)
    notice = {  # the server's your_turn of a side that missed its last deadline (forfeit rule)
        "kind": "your_turn",
        "url": "/me?open=T1",
        "table": "T1",
        "deadline": None,
        "detail": "Diego: 7H",
        "warning": "forfeit_next",
    }
    shown = pushed(context, page, web_url, notice)
    assert [(n["title"], n["body"], n["url"]) for n in shown] == [
        ("Sua vez: mais um turno sem jogar e a partida está perdida", "Diego: 7H", "/me?open=T1")
    ]


def test_a_club_rounds_push_says_its_pace(web_url: str, new_context: NewContext) -> None:
    context = new_context()
    context.grant_permissions(["notifications"], origin=web_url)
    page = context.new_page()
    page.goto(f"{web_url}/me?lang=pt")
    page.wait_for_selector("#me-turns-title", timeout=STEP_TIMEOUT_MS)
    notice = {  # the server's night_round of a round played at 24 hours a move
        "kind": "night_round",
        "url": "/c/lapaz",
        "table": "T2",
        "deadline": None,
        "detail": "La Paz",
        "warning": "",
        "pace": 86400,
    }
    shown = pushed(context, page, web_url, notice)
    assert [(n["title"], n["body"], n["url"]) for n in shown] == [
        (
            "Começa sua rodada no clube",
            "La Paz: sua mesa espera por você (por turnos, 24 horas por jogada)",
            "/c/lapaz",
        )
    ]
