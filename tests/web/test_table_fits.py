"""The table fits the screen: at four common viewports every seat, the felt, both scores and piles,
the hand and the prompt are on screen at once, and the notice strip covers none of them; a whole
game is played by clicking at 1366x768 without the page ever scrolling, watched by a spectator
and reloaded once. What the felt
shows, its cards and its lines of text (the last play, the caída warning), lies wholly inside the
felt, uncut, at every viewport and however many cards are on it; no part of the table lies on
another and no name or prompt is cut short. A big screen's room goes to larger cards: at
1920x1080 the hand's cards are at least 1.3 times as wide as at 1366x768.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import SHOTS, NewContext
from tests.web.test_browser import (
    DECISION,
    MAX_DECISIONS,
    STEP_TIMEOUT_MS,
    assert_spectator_sees_no_hand,
    create_table,
    missing_strings,
    model,
    seat_state,
    server_result,
    show_choices,
)

pytestmark = pytest.mark.browser

VIEWPORTS = {
    "1280x720": {"width": 1280, "height": 720},
    "1366x768": {"width": 1366, "height": 768},
    "1920x1080": {"width": 1920, "height": 1080},
    "phone-390x844": {"width": 390, "height": 844},
}
#: The README's pictures (into SHOTS: docs/screenshots/ under make screenshots).
README_SHOTS = {"1366x768": "table-desktop.png", "phone-390x844": "table-phone.png"}
#: What a player must see without scrolling: every seat, the felt, each team's score box (with its
#: card pile), the hand and the action prompt.
MUST_SEE = ".seat, .felt, .scoreboard .team, .hand, .action-bar"
#: The table's words that an ellipsis or a clamp would cut: names, scores' labels, the prompt and
#: its buttons (the felt's own lines are FELT's).
WORDS = (
    ".team-label, .team-pile, .seat-name, .badge, .seat-turn, .prompt, .action-bar .hint,"
    " .action-bar .btn"
)

BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; };
  return {
    parts: [...document.querySelectorAll(MUST_SEE)].map((e) => ({
      what: e.className.split(" ")[0] + (e.dataset.seat ?? e.dataset.team ?? ""), ...box(e)})),
    notices: [...document.querySelectorAll(".toast")].filter(shown).map(box),
    cut: [...document.querySelectorAll(WORDS)].filter((e) => shown(e) && (
      e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight)).map((e) => ({
        what: e.className, text: e.innerText, scrollWidth: e.scrollWidth,
        clientWidth: e.clientWidth, scrollHeight: e.scrollHeight, clientHeight: e.clientHeight})),
    view: {width: innerWidth, height: innerHeight},
    scrollY: window.scrollY,
    docHeight: document.documentElement.scrollHeight,
  };
}""".replace("MUST_SEE", repr(MUST_SEE)).replace("WORDS", repr(WORDS))


FELT = """() => {
  const felt = document.querySelector(".felt");
  if (!felt) return null;
  const f = felt.getBoundingClientRect();
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const sizes = (e) => ({scrollHeight: e.scrollHeight, clientHeight: e.clientHeight,
    scrollWidth: e.scrollWidth, clientWidth: e.clientWidth});
  return {
    // The felt a player sees: inside its wooden rim (the border), where overflow is cut.
    inside: {left: f.left + felt.clientLeft, top: f.top + felt.clientTop,
      right: f.left + felt.clientLeft + felt.clientWidth,
      bottom: f.top + felt.clientTop + felt.clientHeight},
    overflow: sizes(felt),
    texts: [...felt.querySelectorAll("p")].map((e) => ({
      what: e.className, text: e.innerText, ...box(e), ...sizes(e)})),
    cards: [...felt.querySelectorAll(".card")].map((e) => ({what: e.dataset.card, ...box(e)})),
  };
}"""


def felt_problems(page: Page) -> list[str]:
    """What the felt shows that a player cannot read whole: a line or a card cut by its rim."""
    seen: dict[str, Any] | None = page.evaluate(FELT)
    if seen is None:
        return ["no felt"]
    inside = seen["inside"]
    problems = []
    for part in seen["texts"] + seen["cards"]:
        name = f"{part['what']} {part.get('text', '')!r}"
        for edge in ("left", "top"):
            if part[edge] < inside[edge] - 0.5:
                problems.append(
                    f"{name}: {edge} {part[edge]:.0f} outside the felt's {inside[edge]:.0f}"
                )
        for edge in ("right", "bottom"):
            if part[edge] > inside[edge] + 0.5:
                problems.append(
                    f"{name}: {edge} {part[edge]:.0f} outside the felt's {inside[edge]:.0f}"
                )
    for text in seen["texts"]:
        if text["scrollHeight"] > text["clientHeight"] or text["scrollWidth"] > text["clientWidth"]:
            problems.append(f"{text['what']} {text['text']!r} is cut inside itself: {text}")
    for a, b in pairs(seen["texts"] + seen["cards"]):
        if overlaps(a, b):
            problems.append(f"{a['what']} overlaps {b['what']}")
    over = seen["overflow"]
    if over["scrollHeight"] > over["clientHeight"] or over["scrollWidth"] > over["clientWidth"]:
        problems.append(f"the felt cuts what it holds: {over}")
    return problems


def pairs(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


def layout_problems(page: Page, seen: dict[str, Any] | None = None) -> list[str]:
    """What of the table a player cannot read whole: parts on top of each other, words cut short,
    and the felt's cards and lines cut by its rim."""
    if seen is None:
        seen = page.evaluate(BOXES)
    problems = [
        f"{a['what']} overlaps {b['what']}" for a, b in pairs(seen["parts"]) if overlaps(a, b)
    ]
    problems += [f"{cut['what']} {cut['text']!r} is cut: {cut}" for cut in seen["cut"]]
    return problems + felt_problems(page)


def assert_table_fits(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(BOXES)
    names = sorted(part["what"] for part in seen["parts"])
    assert [n for n in names if n.startswith("seat")] == ["seat0", "seat1", "seat2", "seat3"]
    assert {"felt", "hand", "action-bar", "team0", "team1"} <= set(names), names
    view = seen["view"]
    for part in seen["parts"]:
        assert part["w"] > 0, part
        assert part["h"] > 0, part
        assert part["left"] >= 0, part
        assert part["top"] >= 0, part
        assert part["right"] <= view["width"] + 0.5, part
        assert part["bottom"] <= view["height"] + 0.5, part
        for notice in seen["notices"]:
            assert not overlaps(part, notice), (part, notice)
    assert seen["scrollY"] == 0
    problems = layout_problems(page, seen)
    assert not problems, "\n".join(problems)
    return seen


CARD_WIDTHS = """() => Object.fromEntries([["hand", ".hand .card"], ["felt", ".felt .card"]].map(
  ([part, cards]) => [part, [...document.querySelectorAll(cards)].map(
    (e) => e.getBoundingClientRect().width)]))"""
"""The rendered width of each card in the hand and on the felt."""


def open_started_table(page: Page, base: str) -> dict[str, str]:
    """The host's table started, her hand dealt; the table's join and watch links."""
    links = create_table(page, base)
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    for _ in range(5):  # a cuarenta dealt at once ends a game before any card (R6): play again
        page.wait_for_selector(".hand button.card.is-playable, .game-over", timeout=STEP_TIMEOUT_MS)
        if not page.locator(".game-over").count():
            return links
        page.click("#rematch")
        page.wait_for_selector(".game-over", state="detached")
    pytest.fail("five games in a row ended at their first deal")


@pytest.mark.timeout(120)
def test_the_whole_table_is_on_screen_and_notices_cover_none_of_it(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    widths: dict[str, dict[str, list[float]]] = {}
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.reload()  # laid out afresh at this size: the seat token brings the player back
        page.wait_for_selector(".hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
        if name in README_SHOTS:  # the README's pictures: a card chosen, its captures offered
            show_choices(page)
            page.wait_for_timeout(250)  # the chosen card's lift settles (a CSS transition)
            page.screenshot(path=SHOTS / README_SHOTS[name])
            page.locator(".hand button.card[aria-pressed='true']").press("Enter")  # unselect
        # A notice in its strip, as after every caída or limpia: it must cover nothing.
        page.evaluate("import('/js/toasts.js').then((m) => m.toast('Marta hace caída: +2'))")
        page.wait_for_selector(".toast")
        seen = assert_table_fits(page)
        assert seen["notices"], "the notice is on screen"
        if viewport["width"] >= 1000:  # the side panel scrolls inside itself, never the page
            assert seen["docHeight"] <= viewport["height"]
        page.screenshot(path=artifacts / f"fits-{name}.png")
        widths[name] = page.evaluate(CARD_WIDTHS)
    # The same turn at every size: a big screen's room goes to larger cards, not to empty felt.
    big, laptop = min(widths["1920x1080"]["hand"]), max(widths["1366x768"]["hand"])
    assert big >= 1.3 * laptop, f"the hand's cards at 1920x1080 and 1366x768: {widths}"


def answered_window(page: Page) -> bool:
    """Answer an open window (missed cards, claims, announcements) by its first button."""
    windows = page.locator(
        "[data-action='take-missed'], [data-action='claim-none'], [data-action^='claim-'],"
        " [data-action^='announce-']"
    )
    if not windows.count():
        return False
    windows.first.click()
    return True


def click_decision(page: Page) -> bool:
    """Make this seat's next decision by mouse clicks; False once the game is over."""
    page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
    if page.locator(".game-over").count():
        return False
    seen = model(page, "m.lastEvent")
    if not answered_window(page):
        page.locator(".hand button.card.is-playable").first.click()
        page.locator("[data-action='capture'], [data-action='trail']").first.click()
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
    return True


SCROLLS = "window.__scrolled = 0; addEventListener('scroll', () => { __scrolled += 1; });"
"""Counts the page's scrolls from its first moment (an init script: it survives a reload)."""


@pytest.mark.timeout(300)  # one whole game; about a minute on two busy cores
def test_a_whole_game_by_clicking_at_1366x768_with_a_spectator_and_a_reload_never_scrolls(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    """The suite's whole game by mouse (test_access_keyboard has the one by keys): at every
    decision the table fits 1366x768 unscrolled, a spectator on the watch link is told each move
    and shown no hand (invariant 1); a reload mid-game brings the seat back as it was; at the end
    the page's score is the server's R15 record's and the score sheet adds up to it."""
    context = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC")
    context.add_init_script(SCROLLS)
    page = context.new_page()
    links = open_started_table(page, web_url)
    page.screenshot(path=artifacts / "table-started.png")
    watcher = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    watcher.goto(links["watch"])
    watcher.wait_for_selector(".felt")
    decisions, reloaded = 0, False
    while click_decision(page):
        decisions += 1
        assert decisions < MAX_DECISIONS
        mine = model(page, "({hand: m.game.hand, last: m.lastEvent})")
        watcher.wait_for_function(
            "n => globalThis.__cuarenta.model.lastEvent >= n", arg=mine["last"]
        )
        assert_spectator_sees_no_hand(watcher, mine["hand"])
        if page.locator(".hand button.card.is-playable").count():
            assert_table_fits(page)
        assert page.evaluate("document.documentElement.scrollHeight") <= 768
        if decisions in (2, 3):
            page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
            if page.locator(".game-over").count():
                break
        if decisions == 2:
            show_choices(page)
            page.screenshot(path=artifacts / "table-desktop.png")
            page.set_viewport_size(VIEWPORTS["phone-390x844"])
            page.screenshot(path=artifacts / "table-phone.png", full_page=True)
            page.set_viewport_size(VIEWPORTS["1366x768"])
            page.evaluate("window.__scrolled = 0")  # the phone's own scrolls are not counted
            page.locator(".hand button.card[aria-pressed='true']").press("Enter")  # unselect
            watcher.click("#screen-mode")
            watcher.screenshot(path=artifacts / "spectator-table-screen.png")
            watcher.click("#screen-mode")  # back to the spectator's table
            watcher.wait_for_selector(".felt")
        if decisions == 3:
            before = seat_state(page)  # our turn: the bots wait for us, so nothing moves
            page.reload()
            page.wait_for_function("globalThis.__cuarenta.model.legal.length > 0")
            after = seat_state(page)
            # Only table events (the stand-in that covered the absence) may have happened.
            assert after.pop("last") >= before.pop("last")
            assert after == before
            reloaded = True
    page.wait_for_selector(".game-over")
    if not reloaded:  # a cuarenta (R6) ended the game early: the reload comes back to the end
        before = model(page, "[m.you, m.game.scores, m.game.winner]")
        page.reload()
        page.wait_for_selector(".game-over")
        assert model(page, "[m.you, m.game.scores, m.game.winner]") == before
    assert page.evaluate("[window.scrollY, window.__scrolled]") == [0, 0]
    shown = [int(page.inner_text(f".game-over [data-final='{team}']")) for team in (0, 1)]
    result = server_result(page, web_url)
    assert result["status"] == "finished"
    assert shown == result["scores"]
    # R12: the game ends only with a winner (at 40, or at once by a cuarenta of R6).
    assert result["winner"] in (0, 1)
    winner_text = page.inner_text("#end-title")
    # The winners by name, partners together (R1: seats 0 and 2 are team 0), with the score.
    assert ("Lucía y Norte" if result["winner"] == 0 else "Oeste y Este") in winner_text
    assert f"{max(shown)}–{min(shown)}" in winner_text
    # The score sheet at the end: its running totals end at the final score, hand by hand.
    totals = page.evaluate(
        """() => [0, 1].map((team) => [...document.querySelectorAll(
          `.end-sheet tr[data-team='${team}'] [data-total]`)]
          .map((td) => Number(td.dataset.total)))"""
    )
    if totals[0]:  # a cuarenta at the first deal (R6) ends the game before any hand
        assert [totals[0][-1], totals[1][-1]] == shown
        assert all(a <= b for a, b in zip(totals[0], totals[0][1:], strict=False))
    watcher.wait_for_selector(".game-over")
    assert [int(watcher.inner_text(f".game-over [data-final='{t}']")) for t in (0, 1)] == shown
    assert missing_strings(page) == []
    assert missing_strings(watcher) == []
    page.screenshot(path=artifacts / "fits-game-over-1366x768.png")
    page.screenshot(path=SHOTS / "game-over.png")
    page.locator(".game-over").screenshot(path=SHOTS / "score-sheet.png")


#: A crowded felt: the most cards a test waits for before it stops laying more (trailing first).
CROWDED = 8

SETTLED = """() => new Promise((done) => {
  const boxes = () => JSON.stringify([".topbar", ".scoreboard", ".felt", ".hand", ".felt .card"]
    .map((selector) => document.querySelector(selector)?.getBoundingClientRect()));
  let last = null;
  let frames = 0;
  const look = () => {
    const now = boxes();
    frames += 1;
    if ((now === last && frames >= 2) || frames > 60) done(frames);
    else { last = now; requestAnimationFrame(look); }
  };
  requestAnimationFrame(look);
})"""
"""Until the page has laid itself out for the window: the resize handler (table-page.js fit)
has run and the table's parts lie where they lay a frame before (under load a resize's fit
and the layout after it can take more than two frames; at most 60)."""


def problems_at_every_viewport(page: Page, artifacts: Path, shoot: bool) -> list[str]:
    """The table's problems at each viewport (laid out by the resize, as a player's window is)."""
    problems = []
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.evaluate(SETTLED)
        cards = page.locator(".felt .card").count()
        problems += [f"{name}, {cards} cards on the felt: {p}" for p in layout_problems(page)]
        if shoot:
            page.screenshot(path=artifacts / f"felt-{name}.png")
    return problems


@pytest.mark.timeout(240)
def test_the_felt_shows_its_cards_and_lines_whole_mid_game_at_every_viewport(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    """Trail first so the felt fills up; at each of this seat's turns (the last play and the caída
    warning on the felt), and with a card chosen (the choices make the prompt taller), every
    line of the felt and every card on it are whole at all four viewports."""
    page = new_context(viewport=VIEWPORTS["1280x720"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    problems: list[str] = []
    most = 0
    decisions = 0
    while decisions < MAX_DECISIONS:
        page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
        if page.locator(".game-over").count():
            break
        seen = model(page, "m.lastEvent")
        if not answered_window(page):
            cards = page.locator(".felt .card").count()
            shoot = cards > most and page.locator(".felt .last-play").count() > 0
            most = max(most, cards)
            problems += problems_at_every_viewport(page, artifacts, shoot)
            show_choices(page)
            problems += problems_at_every_viewport(page, artifacts, False)
            page.set_viewport_size(VIEWPORTS["1280x720"])
            trail = page.locator("[data-action='trail']")
            (trail if trail.count() else page.locator("[data-action='capture']")).first.click()
        page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
        decisions += 1
        if most >= CROWDED:
            break
    assert most >= 4, "the felt held a few cards at one of this seat's turns"
    assert not problems, "\n".join(problems)
