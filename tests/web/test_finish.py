"""What a family notices on the table page, finished.

- A phone host who presses "Empezar el juego" below the table is brought back to the table and
  her hand as the first cards are dealt (she was left at the host panel and the log); a reader who
  scrolls down later is never pulled back up.
- The side column keeps the chat's input and its last lines in view at 1920x1080 and 1366x768:
  the log takes the room that is left and scrolls inside itself.
- The host panel names each chair as the felt does (a person by name and compass, a bot by its
  compass) with its team's colour dot, not "Silla 2 · Oeste".
- The lobby of public tables words a team as the table page does ("Ana y Norte", not "Ana & Norte").
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import ARTIFACTS, NewContext
from tests.web.test_browser import DECISION, STEP_TIMEOUT_MS, decide, guest_sits, host_at_table
from tests.web.test_seating_phone import public_table
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser


IN_WINDOW = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
  const r = e.getBoundingClientRect();
  return {what: selector, top: r.top, bottom: r.bottom, height: innerHeight,
    inside: r.height > 0 && r.top >= -0.5 && r.bottom <= innerHeight + 0.5};
})"""
"""Each element matching the selector, and whether it lies wholly inside the window."""


def shot(page: Page, name: str) -> None:
    """A picture for whoever judges the page, among the suite's other artifacts."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"finish-{name}.png"))


def in_window(page: Page, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(IN_WINDOW, selector)
    return found


@pytest.mark.timeout(120)
def test_a_phone_host_who_starts_the_game_is_brought_to_the_table_and_her_hand(
    new_context: NewContext, web_url: str
) -> None:
    host, _ = host_at_table(new_context, web_url, VIEWPORTS["phone-390x844"])
    host.click("#start-game")  # the click scrolls the page down to the button, below the table
    host.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    shot(host, "phone-after-start")
    for part in (".ring .seat", ".felt", ".hand"):
        away = [box for box in in_window(host, part) if not box["inside"]]
        assert not away, f"after the start {part} is out of the window: {away}"
    # A reader of the log later is not pulled back to the table while the game goes on (the
    # browser's scroll anchoring may shift her by a line as the log grows above her).
    panel = "document.querySelector('.log-panel').getBoundingClientRect()"
    host.evaluate("document.querySelector('.log-panel').scrollIntoView()")
    before = host.evaluate("window.scrollY")
    assert before > 200
    seen = host.evaluate("globalThis.__cuarenta.model.lastEvent")
    # Her move, sent as the page's buttons send it (a click would focus, and scroll to, the hand).
    host.wait_for_selector(".hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
    host.evaluate("""() => { const m = globalThis.__cuarenta.model;
      globalThis.__cuarenta.send({ ...m.legal[0], at: m.lastEvent }); }""")
    host.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n + 1", arg=seen)
    shot(host, "phone-reading-the-log")
    after = {"scrollY": host.evaluate("window.scrollY"), "log": host.evaluate(panel)}
    assert after["scrollY"] > before - 100, f"pulled back up from {before}: {after}"
    assert 0 <= after["log"]["top"] < 844, f"the log left the window: {after}"


CHAT_IN_VIEW = """() => {
  const box = (e) => e.getBoundingClientRect();
  const side = box(document.querySelector(".table-side"));
  const seen = (e) => { const r = box(e);
    return r.height > 0 && r.top >= Math.max(0, side.top) - 0.5
      && r.bottom <= Math.min(innerHeight, side.bottom) + 0.5; };
  const lines = [...document.querySelectorAll("#chat .chat-line")];
  return {input: seen(document.querySelector("#chat-input")),
    send: seen(document.querySelector("#chat-send")),
    lastLines: lines.slice(-2).map(seen),
    sideScrolled: document.querySelector(".table-side").scrollTop,
    newestLog: seen(document.querySelector(".log li")),
    pageScrolls: document.documentElement.scrollHeight > innerHeight};
}"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("size", ["1920x1080", "1366x768"])
def test_the_chat_input_and_its_last_lines_are_in_view_beside_a_long_log(
    new_context: NewContext, web_url: str, size: str
) -> None:
    host, links = host_at_table(new_context, web_url, VIEWPORTS[size])
    guest = guest_sits(new_context, host, links["join"], "Pepe")
    host.click("#start-game")
    host.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    guest.click("#chat summary")
    for line in ("¡Buena suerte, abuela!", "Ahora sí", "Esa era mía"):
        guest.fill("#chat-input", line)
        guest.click("#chat-send")
        host.wait_for_selector(f"#chat .chat-text >> text={line}")
    # A log longer than the column (as after a few hands): thirty more copies of its newest line.
    host.evaluate("""() => { const log = document.querySelector('.log');
      for (let i = 0; i < 30; i += 1) log.append(log.firstElementChild.cloneNode(true)); }""")
    seen = host.evaluate(CHAT_IN_VIEW)
    shot(host, f"side-column-{size}")
    assert seen["input"], f"the chat's input is out of view at {size}: {seen}"
    assert seen["send"], seen
    assert seen["lastLines"] == [True, True], f"the chat's last lines are out of view: {seen}"
    assert seen["sideScrolled"] == 0, seen
    assert not seen["pageScrolls"], seen
    assert seen["newestLog"], f"the log's newest line is out of view: {seen}"
    # The host's controls are one click away: the panel unfolds, and stays so over the game's draws.
    host.click(".host-panel > summary")
    host.wait_for_selector("[data-focus='misdeal']")
    guest.close()  # the table changes (Pepe is away): the page draws again
    host.wait_for_selector(".seat .badge-away")
    assert host.locator("[data-focus='misdeal']").is_visible()


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("lang", "rows"),
    [
        ("es", ["Lucía · Sur", "Oeste", "Norte", "Este"]),
        ("en", ["Lucía · South", "West", "North", "East"]),
        ("pt", ["Lucía · Sul", "Oeste", "Norte", "Leste"]),
    ],
)
def test_the_host_panel_names_chairs_as_the_felt_does_with_their_team(
    new_context: NewContext, web_url: str, lang: str, rows: list[str]
) -> None:
    host, _ = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    host.select_option("#lang", lang)
    for seat in (1, 2, 3):
        host.locator(f".host-seat[data-seat='{seat}'] [data-action='add-bot']").click()
        host.wait_for_selector(f".host-seat[data-seat='{seat}'] .badge-bot")
    shot(host, f"host-panel-{lang}")
    names = host.eval_on_selector_all(".host-seat-name", "es => es.map((e) => e.innerText.trim())")
    assert [" ".join(name.split()) for name in names] == rows
    felt = host.eval_on_selector_all(
        ".ring .seat",
        "es => Object.fromEntries(es.map((e) => [e.dataset.seat, "
        "[...e.classList].find((c) => c.startsWith('team-'))]))",
    )
    dots = host.eval_on_selector_all(
        ".host-seat",
        "es => Object.fromEntries(es.map((e) => [e.dataset.seat, "
        "e.querySelector('.sheet-dot')?.classList.contains('dot-1') ? 'team-1' : 'team-0']))",
    )
    assert host.locator(".host-seat .sheet-dot").count() == 4
    assert dots == felt, "each chair's dot is its team's, as on the felt"
    # The team is said in words too, for a reader who cannot tell the colours apart.
    team = host.inner_text(".host-seat[data-seat='1'] .host-seat-team")
    assert team == host.inner_text(".team-1 .team-label")
    moves = host.locator(".host-seat[data-seat='0'] select[data-action='move-0'] option")
    assert moves.nth(1).inner_text() == rows[1]


@pytest.mark.timeout(120)
def test_the_lobby_words_a_team_as_the_table_page_does(
    new_context: NewContext, web_url: str
) -> None:
    host, _ = public_table(new_context, web_url)
    host.wait_for_selector(".team-0 .team-label >> text=Abuela Rosa")
    teams = [host.inner_text(f".team-{team} .team-label") for team in (0, 1)]
    assert teams == ["Abuela Rosa y Norte", "Oeste y Este"]
    lobby = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    for lang, pair in (("es", " y "), ("en", " and "), ("pt", " e ")):
        lobby.goto(f"{web_url}/tables?lang={lang}")
        row = lobby.locator(".lobby-table").filter(has_text="Abuela Rosa")
        row.wait_for()
        names = row.locator(".lobby-names").all_inner_texts()
        if lang == "es":
            assert names == teams
            shot(lobby, "lobby-es")
        assert all(pair in name and "&" not in name for name in names), names


@pytest.mark.timeout(120)
def test_the_score_sheet_a_player_unfolds_stays_open_as_the_game_goes_on(
    new_context: NewContext, web_url: str
) -> None:
    """A grandmother opens the Planilla mid-hand to see the points: the next card played must not
    fold it again (every event redraws the side column)."""
    host, _ = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    host.click("#start-game")
    host.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    host.click(".sheet-panel > summary")
    host.wait_for_function("document.querySelector('.sheet-panel').open")
    seen = host.evaluate("globalThis.__cuarenta.model.lastEvent")
    assert decide(host)
    host.wait_for_function(f"globalThis.__cuarenta.model.lastEvent > {seen}")
    host.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)  # the bots played on: many redraws
    assert host.evaluate("document.querySelector('.sheet-panel').open")
    host.click(".sheet-panel > summary")  # and folded, it stays folded
    seen = host.evaluate("globalThis.__cuarenta.model.lastEvent")
    assert decide(host)
    host.wait_for_function(f"globalThis.__cuarenta.model.lastEvent > {seen}")
    host.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
    assert not host.evaluate("document.querySelector('.sheet-panel').open")
