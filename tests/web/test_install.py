"""Installable: the web app manifest is linked and valid (name, icons that load with their types),
the service worker registers at the site's root and keeps the live answers (socket, logs, JSON)
out of its cache, and when the server cannot be reached a reload shows the friendly offline page
in the person's language.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.serving import ServerProcess
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser


def fetch(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.headers["Content-Type"], answer.read()


def test_the_manifest_is_linked_and_valid_and_the_worker_served_at_the_root(
    new_context: NewContext, web_url: str
) -> None:
    kind, body = fetch(f"{web_url}/manifest.webmanifest")
    assert kind.startswith("application/manifest+json")
    manifest: dict[str, Any] = json.loads(body)
    assert manifest["name"] == manifest["short_name"] == "Cuarenta"
    assert (manifest["lang"], manifest["start_url"], manifest["scope"]) == ("es", "/", "/")
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        kind, data = fetch(web_url + icon["src"])
        assert kind.split(";")[0] == icon["type"], icon
        if icon["type"] == "image/png":
            assert data.startswith(b"\x89PNG"), icon
    kind, _ = fetch(f"{web_url}/sw.js")
    assert kind.startswith("text/javascript")
    kind, _ = fetch(f"{web_url}/offline.html")
    assert kind.startswith("text/html")
    page = new_context(locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    assert page.get_attribute("link[rel=manifest]", "href") == "/manifest.webmanifest"


def worker_ready(page: Page) -> str:
    scope: str = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    return scope


CACHED = """async () => { const names = await caches.keys(); const urls = [];
  for (const name of names) {
    for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
  }
  return {names, urls}; }"""


@pytest.mark.timeout(90)
def test_the_worker_registers_and_a_reload_without_the_server_shows_the_friendly_page(
    new_context: NewContext,
) -> None:
    server = ServerProcess(["--store", "memory", "--log-level", "warning"])
    server.start()
    base = server.url.rstrip("/")
    try:
        page = new_context(locale="es-EC").new_page()
        page.goto(f"{base}/")
        assert worker_ready(page) == f"{base}/"
        page.reload()  # now a page the worker controls: its files go through the cache
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        page.wait_for_selector("#player-name")
        cached = page.evaluate(CACHED)
        assert cached["names"] == ["cuarenta-v2"]
        assert f"{base}/offline.html" in cached["urls"]
        assert f"{base}/js/main.js" in cached["urls"]
        live = [u for u in cached["urls"] if "/ws" in u or "/record" in u or u.endswith(".json")]
        assert not live, live
    finally:
        server.kill()
    page.reload()
    page.wait_for_selector("#offline-title")
    assert page.inner_text("#offline-title") == "No hay conexión con Cuarenta"
    assert page.get_attribute("html", "lang") == "es"
    # Without the server, the cached files still answer: a versioned icon, a module of the client.
    for path in ("/icons/icon-192.png?v=1", "/js/main.js"):
        assert page.evaluate("(p) => fetch(p).then((r) => r.ok, () => false)", path), path
    page.goto(f"{base}/t/some-table?lang=en")
    page.wait_for_selector("#offline-title")
    assert page.inner_text("#offline-title") == "Cuarenta cannot be reached"
    assert page.inner_text("#offline-retry") == "Try again"
    assert_accessible(page, "the offline page")
