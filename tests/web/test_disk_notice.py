"""The club host's page warns that the server's disk is nearly full (issue 43), in Chromium.

A real ``cuarenta serve`` reads this machine's real disk; its thresholds are set so the disk counts
as low (``--disk-low-percent 100``: any free space is "low") or full (``--disk-full-percent 100``):
no disk is filled. The host's page reads ``/readyz`` and shows the banner in es, en and pt with
the free space the server reported; members see nothing of it. Screenshots in test-artifacts/.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.axe import assert_accessible
from tests.web.conftest import CLUB, NewContext, club_serving, open_as_host

pytestmark = pytest.mark.browser

WAIT_MS = 10_000
LOW = ["--disk-low-percent", "100", "--disk-full-percent", "0", "--disk-full-mb", "0"]
FULL = ["--disk-full-percent", "100"]


@pytest.fixture(scope="module")
def low_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with club_serving("--disk-dir", str(tmp_path_factory.mktemp("data")), *LOW) as served:
        yield served


@pytest.fixture(scope="module")
def web_url(low_server: tuple[str, str]) -> str:
    return low_server[0]


def readyz(url: str) -> tuple[int, list[str]]:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=5) as answer:
            return answer.status, answer.read().decode().splitlines()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode().splitlines()


def free_megabytes(lines: list[str]) -> int:
    free = next(line for line in lines if line.startswith("disk_free_bytes: "))
    return int(free.removeprefix("disk_free_bytes: ")) // 10**6


WORDING = {
    "en": r"The server's disk is nearly full: [\d,.]+ (MB|GB) left\. Back up the club and free",
    "es": r"El disco del servidor está casi lleno: quedan [\d,.]+ (MB|GB)\. Haz una copia del club",
    "pt": r"O disco do servidor está quase cheio: restam [\d,.]+ (MB|GB)\. Faça uma cópia do clube",
}


def test_the_host_sees_the_disk_nearly_full_in_each_language_and_members_do_not(
    low_server: tuple[str, str], new_context: NewContext, artifacts: Path
) -> None:
    url, key = low_server
    status, lines = readyz(url)
    assert (status, lines[:2]) == (200, ["ready", "disk: low"])  # serving, and saying so
    assert free_megabytes(lines) > 0
    for lang, wording in WORDING.items():
        host = new_context(viewport={"width": 1280, "height": 720}).new_page()
        open_as_host(host, url, key, lang)
        notice = host.locator("#disk-notice")
        expect(notice).to_have_text(re.compile(wording), timeout=WAIT_MS)
        expect(notice).to_have_attribute("role", "status")
        assert "README: Backups" in notice.inner_text()
        if lang == "en":
            host.screenshot(path=str(artifacts / "disk-low-host-1280x720.png"))
            assert_accessible(host, "disk low")

    member = new_context().new_page()
    member.goto(f"{url}/c/{CLUB}?lang=en")
    expect(member.locator("#club-host-key")).to_be_visible(timeout=WAIT_MS)
    expect(member.locator("#disk-notice")).to_have_count(0)


def test_a_full_disk_is_503_and_an_alert_on_the_hosts_phone(
    new_context: NewContext, tmp_path: Path, artifacts: Path
) -> None:
    with club_serving("--disk-dir", str(tmp_path), *FULL) as (url, key):
        status, lines = readyz(url)
        assert (status, lines[:2]) == (503, ["not ready: writes would fail", "disk: full"])
        phone = new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
        open_as_host(phone, url, key, "en")
        notice = phone.locator("#disk-notice")
        expect(notice).to_contain_text("The server's disk is full:", timeout=WAIT_MS)
        expect(notice).to_contain_text("moves may stop being saved")
        expect(notice).to_have_attribute("role", "alert")
        expect(notice).to_be_in_viewport()  # at the top, where the host looks first
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing overflows
        phone.screenshot(path=str(artifacts / "disk-full-host-390x844.png"))
        assert_accessible(phone, "disk full")
