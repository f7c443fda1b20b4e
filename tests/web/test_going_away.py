"""Going away and coming back: a dropped connection says when it retries, and a table
that no longer exists (the memory store after a restart) is said so in plain words, with a way
to open a new one — on the open page and on a reload of its link, never "Connecting…" for ever.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.serving import ServerProcess
from tests.web.conftest import NewContext
from tests.web.test_table_fits import VIEWPORTS, open_started_table

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.timeout(180)
def test_a_server_restart_on_the_memory_store_tells_the_table_is_gone(
    new_context: NewContext, artifacts: Path
) -> None:
    port = free_port()
    server = ServerProcess(["--port", str(port), "--store", "memory", "--log-level", "warning"])
    base = server.start().rstrip("/")
    try:
        page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
        open_started_table(page, base)
        link = page.url
        server.kill()
        # Reconnecting says so, with its countdown.
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('reintento en')"
        )
        assert page.locator(".felt").count() == 1  # the table stays in view meanwhile
        server.start()  # the same address, an empty memory store: the table is gone
        page.wait_for_selector("#gone-title", timeout=30_000)
        assert page.inner_text("#gone-title") == "Esta mesa ya no existe"
        assert page.get_attribute("#new-table", "href") == "/"
        page.screenshot(path=artifacts / "table-gone.png")
        # Opening the old link again says the same at once.
        again = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
        again.goto(link)
        again.wait_for_selector("#gone-title", timeout=15_000)
        page.goto(link)
        page.wait_for_selector("#gone-title", timeout=15_000)
        assert "Conectando" not in page.inner_text("main")
    finally:
        server.kill()
