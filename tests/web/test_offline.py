"""Offline honesty: while the socket is down the prompt says so and no card can be chosen or sent;
back online, the turn is offered again. The socket is cut in the browser's network path
(Playwright's WebSocket routing): the page sees a real drop, and its reconnects are refused until
the network comes back.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import WebSocketRoute

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS, model
from tests.web.test_table_fits import VIEWPORTS, open_started_table

pytestmark = pytest.mark.browser

#: every socket of the page, a reconnect too (it names its table: /ws?t=<id>)
WS_URL = re.compile(r"/ws(\?|$)")


class Network:
    """Every socket of the context passes through here: proxied to the server, or cut."""

    def __init__(self) -> None:
        self.up = True
        self.routes: list[WebSocketRoute] = []

    def route(self, ws: WebSocketRoute) -> None:
        if not self.up:
            ws.close()
            return
        self.routes.append(ws)
        ws.connect_to_server()

    def cut(self) -> None:
        self.up = False
        for ws in self.routes:
            ws.close()
        self.routes.clear()


@pytest.mark.timeout(120)
def test_offline_says_so_and_sends_nothing_then_the_turn_comes_back(
    new_context: NewContext, web_url: str
) -> None:
    network = Network()
    context = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC")
    context.route_web_socket(WS_URL, network.route)
    page = context.new_page()
    open_started_table(page, web_url)
    page.wait_for_selector(".prompt >> text=Tu turno")
    before: Any = model(page, "m.lastEvent")
    network.cut()
    page.wait_for_selector(".prompt.is-offline >> text=Sin conexión: reconectando…")
    # No card is a control while offline: clicking one chooses nothing and sends nothing.
    assert page.locator(".hand button.card").count() == 0
    page.locator(".hand .card").first.click()
    assert model(page, "m.selection.card") is None
    assert page.locator("[data-action='capture'], [data-action='trail']").count() == 0
    assert model(page, "[m.lastEvent, m.ownMove]") == [before, False]
    network.up = True
    page.wait_for_selector(".hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
    page.wait_for_selector(".prompt >> text=Tu turno")
    assert page.locator(".prompt.is-offline").count() == 0
