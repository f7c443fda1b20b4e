"""The end of the game reads one way, and the log tells only what a player needs.

The game-over box's big score is in its headline's order (the winner's number first), each number
over its team's name; a reload is not told as a stand-in that never played (server events
``stand_in`` / ``returned``); the R10 claim window is in the log only around a claim or when the
viewer's team could claim (clients/web/js/event-text.js quietEvents).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_table_fits import VIEWPORTS, open_started_table

pytestmark = pytest.mark.browser

FINISH = """([winner, scores]) => {
  // The end of the game as the server's last snapshot has it, drawn by the page's own code: the
  // language picker's change redraws the whole table (main.js).
  const g = globalThis.__cuarenta.model.game;
  Object.assign(g, { phase: "finished", winner, scores });
}"""

FINAL = """() => {
  const box = document.querySelector(".game-over").getBoundingClientRect();
  const teams = [...document.querySelectorAll(".game-over [data-final]")].map((points) => {
    const r = points.getBoundingClientRect();
    const name = points.closest(".final-team")?.querySelector(".final-name");
    const n = name?.getBoundingClientRect();
    return { team: Number(points.dataset.final), points: Number(points.textContent), left: r.left,
      name: name ? name.innerText.trim() : "", center: (r.left + r.right) / 2,
      dot: Boolean(name?.querySelector(`.dot-${points.dataset.final}`)),
      nameLeft: n?.left, nameRight: n?.right,
      nameCut: Boolean(name) && name.scrollWidth > name.clientWidth };
  });
  return { title: document.querySelector("#end-title").textContent, teams,
    inside: box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight };
}"""


def final_score(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(FINAL)
    return seen


def assert_reads_like_its_headline(seen: dict[str, Any], first: str, second: str) -> None:
    """Left to right the winner's number then the loser's, each centred over its team's name."""
    teams = sorted(seen["teams"], key=lambda team: team["left"])
    assert [(team["name"], team["points"]) for team in teams] == [(first, 44), (second, 8)], seen
    for team in teams:
        assert team["dot"], f"{team['name']} has its colour dot"
        assert team["nameLeft"] <= team["center"] <= team["nameRight"], f"number over name: {team}"
        assert not team["nameCut"], f"the name is whole: {team}"
    assert seen["inside"], "the game-over box is on screen"


@pytest.mark.timeout(120)
def test_the_final_score_reads_in_the_headlines_order_with_each_team_named(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)  # Lucía (seat 0) and Norte against Oeste and Este
    page.evaluate(FINISH, [1, [8, 44]])
    page.select_option("#lang", "en")
    page.wait_for_selector(".game-over")
    seen = final_score(page)
    assert seen["title"] == "West and East win 44–8"
    assert_reads_like_its_headline(seen, "West and East", "Lucía and North")
    page.screenshot(path=artifacts / "game-over-en-1366x768.png")
    page.select_option("#lang", "es")
    seen = final_score(page)
    assert seen["title"] == "Oeste y Este ganan 44–8"
    assert_reads_like_its_headline(seen, "Oeste y Este", "Lucía y Norte")
    page.screenshot(path=artifacts / "game-over-es-1366x768.png")
    page.set_viewport_size(VIEWPORTS["phone-390x844"])
    page.wait_for_function(
        "document.querySelector('.game-over').getBoundingClientRect().width < 390"
    )
    assert_reads_like_its_headline(final_score(page), "Oeste y Este", "Lucía y Norte")
    page.screenshot(path=artifacts / "game-over-es-phone.png")
    page.select_option("#lang", "en")
    assert_reads_like_its_headline(final_score(page), "West and East", "Lucía and North")
    page.screenshot(path=artifacts / "game-over-en-phone.png")


DRAWN = """async () => {
  // R14 heads-up can end in a draw: no winner to put first, so the seats' order.
  const { gameOverPanel } = await import('/js/panels.js');
  const model = { you: 0, table: { seats: 2, rematchAsked: [], occupants: [] },
    game: { phase: "finished", winner: "draw", scores: [38, 38] } };
  const names = { teamOf: (team) => (team === 0 ? "Ana" : "Luis") };
  const panel = gameOverPanel(model, names, { rematch: () => {}, record: null });
  return [panel.querySelector('#end-title').textContent,
    [...panel.querySelectorAll('.final-team')].map((e) =>
      [e.querySelector('[data-final]').textContent, e.querySelector('.final-name').textContent])];
}"""


@pytest.mark.timeout(60)
def test_a_drawn_game_shows_both_scores_in_seat_order_r14(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#create-title")
    assert page.evaluate(DRAWN) == ["Empate", [["38", "Ana"], ["38", "Luis"]]]


def log_text(page: Page) -> str:
    return page.inner_text(".log-panel")


NOTICES = """globalThis.__notices = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes)
    if (node.classList?.contains("toast")) globalThis.__notices.push(node.textContent);
}).observe(document, { childList: true, subtree: true });"""
"""Every notice the page shows, kept (a notice leaves the strip after a few seconds)."""


@pytest.mark.timeout(120)
def test_a_reload_back_at_once_is_not_told_as_a_stand_in(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    """The server tells the table a stand-in when the reload drops the socket and its end when the
    page is back; no card was played meanwhile, so neither is worth a line, reload after reload."""
    context = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC")
    context.add_init_script(NOTICES)
    page = context.new_page()
    open_started_table(page, web_url)
    for reload in (1, 2):
        page.reload()
        page.wait_for_selector(".hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
        # The server's own words for the absence have reached this page: the stand-in and its end.
        page.wait_for_function(
            """(count) => [...globalThis.__cuarenta.model.events.values()].filter(
              (e) => e.type === "stand_in" && e.seat === 0 && !e.active).length >= count""",
            arg=reload,
        )
        page.wait_for_selector(".log-panel li")
        text = log_text(page)
        assert "vuelve a la mesa" not in text, text
        assert "Un bot juega por" not in text, text
        # Nor told to Lucía herself, back already: "a bot plays for you until you are back".
        assert not [n for n in page.evaluate("globalThis.__notices") if "juega por ti" in n]
    page.screenshot(path=artifacts / "log-after-reloads.png")


LOG = """async ([you, events]) => {
  const { logPanel } = await import('/js/panels.js');
  const model = { you, role: you === null ? "spectator" : "player",
    table: { seats: 4, options: {} }, events: new Map(events.map((e, i) => [i + 1, e])) };
  const names = { nameOf: (seat) => ["Lucía", "Oeste", "Norte", "Este"][seat],
    teamOf: (team) => (team === 0 ? "Lucía y Norte" : "Oeste y Este") };
  return [...logPanel(model, names).querySelectorAll("li")].map((li) => li.textContent).reverse();
}"""


def played(seat: int, card: str, take: list[str], caida: bool = False) -> dict[str, Any]:
    return {
        "type": "played",
        "seat": seat,
        "card": card,
        "take": take,
        "caida": caida,
        "limpia": False,
        "points": 2 if caida else 0,
        "missed": [],
    }


HAND = [
    {"type": "game_started", "game": 1, "names": ["Lucía", "", "", ""]},
    {"type": "hand_started", "hand": 0, "dealer": 3},
    played(0, "5D", []),
    {"type": "stand_in", "seat": 0, "active": True, "reason": "disconnected"},
    {"type": "stand_in", "seat": 0, "active": False, "reason": "returned"},
    played(1, "5C", ["5D"], caida=True),  # the other team's caída
]
WINDOW = [{"type": "claims_opened", "hand": 0}, {"type": "claims_closed"}]
OPENS, CLOSES = "Se abre la ventana de reclamos", "Se cierra la ventana de reclamos"


@pytest.mark.timeout(60)
def test_the_log_leaves_out_a_stand_in_that_never_played_and_an_idle_claim_window_r10(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#create-title")
    told = page.evaluate(LOG, [0, HAND + WINDOW])
    assert not [line for line in told if "Un bot" in line or "vuelve" in line or "reclamos" in line]
    assert "Oeste hace caída: +2" in told  # the plays stay
    # A stand-in that played a card for Lucía changed the game: both lines, where they happened.
    away = [*HAND[:4], played(0, "7H", []), HAND[4], *HAND[5:]]
    told = page.evaluate(LOG, [0, away])
    assert told[told.index("Un bot juega por Lucía") + 2] == "Lucía vuelve a la mesa"

    # Oeste's team could claim: their players see the window, Lucía's team and a spectator not.
    def window_lines(you: int | None) -> list[str]:
        return [line for line in page.evaluate(LOG, [you, HAND + WINDOW]) if "reclamos" in line]

    assert window_lines(1) == [OPENS, CLOSES]
    assert window_lines(None) == []
    # A claim made: the window is told around it, to everyone.
    claim = {"type": "claimed", "seat": 3, "rank": "5", "valid": True, "points": 10}
    told = page.evaluate(LOG, [0, [*HAND, WINDOW[0], claim, WINDOW[1]]])
    assert told[-3:] == [OPENS, "Este reclama la ronda de Cinco: +10", CLOSES]
