"""The coach's review as a person meets it: after a game, /me lists the coach's mark for their
play beside the game (once the review is done, computed at the game's end), the replay marks
the plays; and the host may switch hints off at a casual table, the players told in the log.
Screenshots of /me and of the replay at 1366x768 and 390x844; axe finds nothing serious."""

from __future__ import annotations

import math
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from playwright.sync_api import Page, expect

from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_coach_hint import started
from tests.web.test_confirm import my_turn_to_play
from tests.web.test_players import AUTOPLAY, GAME_TIMEOUT_MS, LAPTOP, PHONE

pytestmark = pytest.mark.browser
REVIEW_WAIT_MS = 240_000  # a whole game's review in the low-priority worker, on a shared machine
SHOTS = Path("/work/scratch/shots/review")

WAIT_REVIEW = """async ([url, waitMs]) => {
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    const answer = await fetch(url);
    if (answer.status === 200) return await answer.json();
    await new Promise((done) => setTimeout(done, 1000));  // polled as the replay polls
  }
  return null;
}"""


def shot(page: Page, name: str) -> None:
    if SHOTS.parent.is_dir():  # the pictures looked at by hand; the tests never need them
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=SHOTS / name, full_page=True)


@pytest.mark.timeout(120)
def test_the_host_switches_hints_off_and_the_button_goes(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=LAPTOP, locale="es-EC").new_page()
    started(page, web_url, casual=True)
    my_turn_to_play(page)
    page.wait_for_selector("#coach-ask", timeout=STEP_TIMEOUT_MS)
    if not page.locator("#host-hints").is_visible():  # in the game the panel folds
        page.click(".host-panel > summary")
    expect(page.locator("#host-hints")).to_be_checked()
    page.uncheck("#host-hints")
    expect(page.locator("#coach-ask")).to_have_count(0)
    expect(page.locator("body")).to_contain_text("El anfitrión quitó las pistas")
    page.check("#host-hints")
    expect(page.locator("#coach-ask")).to_have_count(1)


@pytest.mark.timeout(600)
def test_me_lists_the_coachs_mark_of_each_game_and_the_replay_marks_the_plays(
    new_context: NewContext, web_url: str
) -> None:
    context = new_context(viewport=LAPTOP, locale="es-EC")
    page = context.new_page()
    page.goto(f"{web_url}/?lang=es")
    page.fill("#player-name", "Lucía")
    page.select_option("#profile", "heads-up")
    page.select_option("#turn-timer", "0")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.check("#casual-table")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    page.evaluate(AUTOPLAY)
    page.wait_for_selector(".game-over", timeout=GAME_TIMEOUT_MS)
    you: int = page.evaluate("globalThis.__cuarenta.model.you")
    page.goto(f"{web_url}/me?lang=es")
    replay = page.locator(".me-game .me-replay").first
    replay.wait_for(timeout=STEP_TIMEOUT_MS)
    record = unquote((replay.get_attribute("href") or "").split("record=")[1])
    review = page.evaluate(WAIT_REVIEW, [record.replace("/record/", "/review/"), REVIEW_WAIT_MS])
    assert review is not None, "the game's review was ready in time"
    accuracy = review["seats"][you]["accuracy"]
    page.reload()
    mark = page.locator(".me-game .me-accuracy").first
    shown = math.floor(accuracy + 0.5)  # as a person rounds, and the page (half up, not even)
    expect(mark).to_have_text(f"Nota del entrenador a tu juego: {shown} de 100")
    shot(page, "me-1366x768.png")
    replay_url = page.locator(".me-game .me-replay").first.get_attribute("href")
    phone = new_context(viewport=PHONE, locale="es-EC", storage_state=context.storage_state())
    me = phone.new_page()
    me.goto(f"{web_url}/me?lang=es")
    expect(me.locator(".me-game .me-accuracy").first).to_be_visible()
    box = me.locator(".me-game").first.bounding_box()
    assert box is not None
    assert 0 <= box["x"] <= PHONE["width"] - box["width"]  # no sideways scroll
    shot(me, "me-390x844.png")
    assert_accessible(me, "/me with the coach's marks on a phone")
    judged = [step for step in review["steps"] if step["grade"] not in ("forced", "good")]
    at = (judged[0] if judged else review["steps"][0])["index"] + 1
    for where, viewer in (("1366x768", page), ("390x844", me)):
        viewer.goto(f"{web_url}{replay_url}")
        viewer.wait_for_selector(".replay-accuracy", timeout=STEP_TIMEOUT_MS)
        expect(viewer.locator(".replay-accuracy")).to_contain_text(
            re.compile(r"Nota del entrenador a cada jugador, de 100: Sur \d+ · Norte \d+")
        )
        viewer.goto(viewer.url.split("#")[0] + f"#step={at}")
        viewer.wait_for_selector("#replay-mark", timeout=STEP_TIMEOUT_MS)
        shot(viewer, f"replay-{where}.png")
    assert_accessible(me, "the replay with the coach's marks on a phone")
