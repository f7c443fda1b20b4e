"""The coach's review in the replay: once the server's review of the game is ready, each
judged play is marked (good, inaccuracy, mistake, blunder) and each player's accuracy shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.conftest import NewContext
from tests.web.test_replay import Player, replay_url

pytestmark = pytest.mark.browser
REVIEW_WAIT_MS = 150_000


@pytest.mark.timeout(240)
def test_the_replay_marks_a_play_and_tells_the_accuracy(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    ana = Player(web_url, profile="heads-up")
    try:
        created = ana.open()
        ana.finish()
    finally:
        ana.close()
    page = new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(replay_url(web_url, created, 1, ["Ana"]).replace("lang=en", "lang=es"))
    page.wait_for_selector(".replay-accuracy", timeout=REVIEW_WAIT_MS)  # 202 until ready
    expect(page.locator(".replay-accuracy")).to_contain_text("Nota del entrenador")
    review = page.evaluate(
        "async (u) => (await fetch(u)).json()",
        f"/review/{created.table}/1?key={created.host_key}",
    )
    judged = [step for step in review["steps"] if step["grade"] != "forced"]
    assert judged
    step = judged[0]
    page.goto(page.url.split("#")[0] + f"#step={step['index'] + 1}")
    mark = page.locator("#replay-mark")
    expect(mark).to_have_attribute("data-grade", step["grade"])
    if step["grade"] != "good":
        expect(mark).to_contain_text("mejor: Juega el")
    marked = [step for step in judged if step["grade"] != "good"]
    assert marked, "a whole game of random plays holds a mark"
    page.goto(page.url.split("#")[0] + f"#step={marked[0]['index'] + 1}")  # how sure, in words
    expect(mark).to_contain_text(f"(seguro al {int(100 * marked[0]['sure'])} %)")
    page.screenshot(path=str(artifacts / "replay-review-mark-1280x720.png"))
