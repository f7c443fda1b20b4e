"""The table page as a player lives it: notices reach a phone player wherever the page is
scrolled (never over the hand), a flying card never passes over the score panel, the top bar
and the notice strip grow with the table on a big screen, a refusal says what to do instead,
and the replay tells the game as the live log did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from server.replay_positions import positions
from tests.web.conftest import ROOT, NewContext
from tests.web.test_table_fits import (
    SETTLED,
    VIEWPORTS,
    click_decision,
    open_started_table,
    overlaps,
)

pytestmark = pytest.mark.browser

BOX = "(e) => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top,"
BOX += " right: r.right, bottom: r.bottom}; }"

PHONE_WITH_BARS = {"width": 390, "height": 664}
NOTICE = """(text) => import('/js/toasts.js').then((m) => m.toast(text, 'score'))"""


def seen(page: Page, selector: str) -> dict[str, Any]:
    """Where `selector` lies in the window, whether it is whole (no ellipsis), and the window."""
    found: dict[str, Any] = page.evaluate(
        f"""(selector) => {{ const e = document.querySelector(selector); const box = {BOX};
          return {{...box(e), whole: e.scrollWidth <= e.clientWidth, text: e.innerText,
            view: innerHeight, hand: [...document.querySelectorAll('.hand .card, .action-bar')]
              .map(box)}}; }}""",
        selector,
    )
    return found


def in_window(box: dict[str, Any]) -> bool:
    """Shown (not a hidden, empty box), and wholly inside the window's height."""
    return 0 <= box["top"] < box["bottom"] <= box["view"]


def notice_after_scrolling(page: Page, scroll: str, text: str) -> dict[str, Any]:
    page.evaluate(scroll)
    page.evaluate(SETTLED)
    page.evaluate(NOTICE, text)
    selector = f".toast[title='{text}']"
    page.wait_for_selector(selector)
    return seen(page, selector)


@pytest.mark.timeout(120)
def test_a_phone_player_scrolled_away_still_sees_the_notices_and_never_over_the_hand(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    open_started_table(page, web_url)  # this player's turn: the hand is to be played
    # Down at the chat and the log, below the table: the caída is told in the window.
    bottom = "window.scrollTo(0, document.documentElement.scrollHeight)"
    notice = notice_after_scrolling(page, bottom, "Marta hace caída: +2")
    assert page.evaluate("scrollY") > 300
    assert in_window(notice), notice
    page.screenshot(path=artifacts / "polish-phone-scrolled-notice.png")
    # The hand up at the top of the window: the notice goes elsewhere than over its cards.
    to_hand = "window.scrollBy(0, document.querySelector('.mine').getBoundingClientRect().top - 4)"
    notice = notice_after_scrolling(page, to_hand, "Pepe hace limpia: +2")
    assert in_window(notice), notice
    assert not any(overlaps(notice, part) for part in notice["hand"]), notice
    page.screenshot(path=artifacts / "polish-phone-hand-at-top.png")


@pytest.mark.timeout(120)
def test_your_turn_out_of_sight_is_told_and_a_tap_brings_the_hand(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    """A phone whose browser bars leave 390x664 of page: scrolled down to the chat past her
    unfolded host panel, the hand is out of sight (at 390x844, or with the host panel folded as
    it is in the game, the whole side column is shorter than the window)."""
    page = new_context(viewport=PHONE_WITH_BARS, locale="es-EC").new_page()
    open_started_table(page, web_url)
    page.click(".host-panel > summary")
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_selector(".toast-turn", state="detached")  # the hand in sight: nothing to say
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_selector(".toast-turn")
    turn = seen(page, ".toast-turn")
    assert in_window(turn), turn
    assert turn["text"].startswith("Te toca jugar")
    page.screenshot(path=artifacts / "polish-phone-your-turn.png")
    page.click(".toast-turn")
    page.wait_for_function(
        """() => { const r = document.querySelector('.mine').getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight; }"""
    )
    page.wait_for_selector(".toast-turn", state="detached")


WATCH_OVER_SCORES = """() => {
  window.__flown = {kinds: [], over: []};
  const box = (e) => e.getBoundingClientRect();
  const cross = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const watch = () => {
    const teams = [...document.querySelectorAll('.scoreboard .team')].map(box);
    for (const card of document.querySelectorAll('.fly-card')) {
      const kind = [...card.classList].find((c) => c.startsWith('fly-') && c !== 'fly-card');
      if (!__flown.kinds.includes(kind)) __flown.kinds.push(kind);
      const r = box(card);
      if (teams.some((t) => cross(r, t))) __flown.over.push({kind, card: card.dataset.card,
        top: r.top, left: r.left, bottom: r.bottom});
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("size", ["1366x768", "phone-390x844"])
def test_a_flying_card_never_passes_over_the_score_panel(
    new_context: NewContext, web_url: str, artifacts: Path, size: str
) -> None:
    """Trails (chair to felt) and captures (chair to felt, then to the capturer's chair) are all
    watched frame by frame: no flying card ever lies over a team's score box."""
    page = new_context(
        viewport=VIEWPORTS[size], locale="es-EC", reduced_motion="no-preference"
    ).new_page()
    open_started_table(page, web_url)
    page.evaluate(WATCH_OVER_SCORES)
    for _ in range(30):
        kinds = page.evaluate("__flown.kinds")
        if {"fly-trail", "fly-capture", "fly-taken"} <= set(kinds) or not click_decision(page):
            break
    page.wait_for_function("!document.querySelector('.fly-card')")  # the last flights landed
    flown = page.evaluate("__flown")
    assert flown["over"] == [], flown["over"][:5]
    assert {"fly-trail", "fly-capture", "fly-taken"} <= set(flown["kinds"]), flown["kinds"]


TEXT_SIZES = """() => Object.fromEntries([
  ['table', '.table-page'], ['brand', '.brand-name'], ['rules', '.topbar-rules'],
  ['solo', '.topbar-solo'], ['language', '#lang'], ['notice', '.toast']].map(([part, selector]) =>
  [part, parseFloat(getComputedStyle(document.querySelector(selector)).fontSize)]).concat([
  ['bar', document.querySelector('.topbar').getBoundingClientRect().height],
  ['strip', document.querySelector('#toasts').getBoundingClientRect().height]]))"""


@pytest.mark.timeout(120)
def test_the_top_bar_and_the_notice_strip_grow_with_the_table_on_a_big_screen(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    sizes = {}
    for name in ("1366x768", "1920x1080"):
        page.set_viewport_size(VIEWPORTS[name])
        page.evaluate(SETTLED)
        page.evaluate(NOTICE, "Marta hace caída: +2")
        page.wait_for_selector(".toast")
        sizes[name] = page.evaluate(TEXT_SIZES)
        page.screenshot(path=artifacts / f"polish-top-{name}.png")
    laptop, big = sizes["1366x768"], sizes["1920x1080"]
    grown = big["table"] / laptop["table"]
    assert grown > 1.15, sizes  # the table's own text grows on the big screen (--text)
    # Every word above the table grows as much as the table's, and so does the room for them.
    for part in ("brand", "rules", "solo", "language", "notice", "strip"):
        assert big[part] / laptop[part] == pytest.approx(grown, rel=0.03), (part, sizes)
    assert big["bar"] / laptop["bar"] == pytest.approx(grown, rel=0.08), sizes


REFUSED = """(request) => globalThis.__cuarenta.send(request).then(() =>
  [...document.querySelectorAll('.toast-error')].map((e) => ({text: e.innerText,
    whole: e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight})))"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("locale", "rematch", "lobby"),
    [
        ("es-EC", "La revancha se pide al final de la partida", "Eso se cambia al terminar"),
        ("en-US", "Ask for a rematch once the game is over", "That changes once this game"),
    ],
)
def test_a_request_out_of_its_moment_says_what_to_do_instead(
    new_context: NewContext, web_url: str, locale: str, rematch: str, lobby: str
) -> None:
    """The server answers wrong_phase to a rematch mid-game and to a seat change during a game;
    the phone player reads, whole in the strip, when it will be possible (not a bare 'not now'),
    and a late 'nothing to claim' (R10) after the window closed is no news at all."""
    page = new_context(viewport=VIEWPORTS["phone-390x844"], locale=locale).new_page()
    open_started_table(page, web_url)
    told = page.evaluate(REFUSED, {"type": "rematch"})
    assert [t["text"] for t in told] == [rematch], told
    assert all(t["whole"] for t in told), told
    told = page.evaluate(REFUSED, {"type": "add_bot", "seat": 0, "level": 1})
    assert told, "the refusal is told"
    assert told[-1]["text"].startswith(lobby), told
    assert all(t["whole"] for t in told), told
    page.evaluate("document.querySelector('#toasts').replaceChildren()")
    assert page.evaluate(REFUSED, {"type": "no_claim"}) == []


@pytest.mark.timeout(60)
def test_the_replay_leaves_out_the_claim_windows_nobody_claimed_in(
    web_url: str, new_context: NewContext
) -> None:
    """R10: the live log tells a spectator a claim window only around a claim (event-text.js
    quietEvents); the replay reads the same: one window of the record's two had a claim."""
    path = ROOT / "tests" / "data" / "games" / "pagat-4p-claim.json"
    steps = positions(json.loads(path.read_text()))["steps"]  # as the server replays it
    windows = claim_windows(steps)
    assert sorted(windows) == [False, True], windows
    page = new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.goto(f"{web_url}/replay?lang=en")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-forward")
    lines = []
    for step in range(len(steps)):
        if step:
            page.click("#replay-forward")
        page.wait_for_function("n => globalThis.__replay.at === n", arg=step)
        lines += page.locator("#replay-explain li").all_inner_texts()
    assert lines.count("The claim window opens") == windows.count(True), lines
    assert lines.count("The claim window closes") == windows.count(True), lines
    assert any(" claims " in line for line in lines), lines  # the claim itself is told


def claim_windows(steps: list[dict[str, Any]]) -> list[bool]:
    """Each R10 claim window of the replayed game, in order: whether a claim was made in it."""
    windows: list[bool] = []
    for event in (e for step in steps for e in step["events"]):
        if event["type"] == "claims_opened":
            windows.append(False)
        elif event["type"] == "claimed":
            windows[-1] = True
    return windows
