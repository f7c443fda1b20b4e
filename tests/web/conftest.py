"""Browser-test fixtures: the real table server on a free port and Debian's headless chromium.

The server runs as `cuarenta serve` in a child process (the same entry point people use, started
by tests/serving.py), with bots acting without delay and a one-second claim window.
Screenshots land in test-artifacts/ (git-ignored).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Error,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from tests.serving import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SHOTS = ROOT / "docs" / "screenshots" if os.environ.get("CUARENTA_README_SHOTS") else ARTIFACTS
"""Where the README's pictures are written: test-artifacts/ on every run, so a run leaves the
tracked tree clean; docs/screenshots/ when CUARENTA_README_SHOTS=1 (``make screenshots``)."""
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def web_url() -> Iterator[str]:
    """Start `cuarenta serve` on a free port (tests/serving.py) and yield its http:// address."""
    if not (ROOT / "clients" / "web" / "node_modules").is_dir():
        pytest.fail("clients/web/node_modules is missing: run `npm ci --prefix clients/web`")
    # Python players in these tests answer instant bots at machine speed: past a person's rate;
    # a game's review on 2 deals a decision, not 8: the tests read its marks, not its judgement.
    args = ["--claim-window", "1", "--store", "memory", "--log-level", "warning"]
    args += ["--review-samples", "2"]
    server = ServerProcess([*args, "--commands-per-s", "1000"])
    server.start()
    try:
        yield server.url.rstrip("/")
    finally:
        server.kill()  # nothing to keep: a clean shutdown is the server tests' subject


CLUB = "quito"


@contextlib.contextmanager
def club_serving(*extra: str) -> Iterator[tuple[str, str]]:
    """`cuarenta serve --clubs quito` (and ``extra``): its address and the club's host key
    (printed on stdout). The Python host answers instant bots at machine speed: past a
    person's rate of commands."""
    args = ["--claim-window", "1", "--store", "memory", "--log-level", "warning"]
    server = ServerProcess([*args, "--clubs", CLUB, "--commands-per-s", "1000", *extra])
    server.start()
    try:
        assert server.process is not None
        assert server.process.stdout is not None
        line = server.process.stdout.readline()  # "club quito: <page> host link <url>t/<key>"
        assert line.startswith(f"club {CLUB}: "), line
        yield server.url.rstrip("/"), line.rsplit("/t/", 1)[1].strip()
    finally:
        server.kill()


@pytest.fixture(scope="module")
def club_server() -> Iterator[tuple[str, str]]:
    """A club's server for the module (``club_serving``); a module that uses it serves its
    pages from it (its own ``web_url`` returns the address)."""
    with club_serving() as served:
        yield served


def open_as_host(page: Page, url: str, key: str, lang: str = "en") -> None:
    """The club's page, opened by its host with the host key."""
    page.goto(f"{url}/c/{CLUB}?lang={lang}")
    page.fill("#club-host-key", key)
    page.click("#club-host-open")
    expect(page.locator("#club-host-title")).to_be_visible(timeout=10_000)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(web_url: str, playwright: Playwright) -> Iterator[Browser]:
    """Chromium, closed before the server it talks to (it depends on ``web_url`` for that order)."""
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


NewContext = Callable[..., BrowserContext]


@pytest.fixture
def new_context(browser: Browser) -> Iterator[NewContext]:
    """Browser contexts (one per person) whose pages must never throw an uncaught script error.

    Every context opened through this factory is closed after the test, and the test fails if
    any of its pages raised an error no code caught (a broken page is a failed test).
    """
    contexts: list[BrowserContext] = []
    errors: list[Error] = []

    def make(**options: Any) -> BrowserContext:
        options.setdefault("reduced_motion", "reduce")  # steady screenshots unless asked
        context = browser.new_context(**options)
        context.on("page", lambda page: page.on("pageerror", lambda e: errors.append(e)))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"uncaught script errors: {errors}"
