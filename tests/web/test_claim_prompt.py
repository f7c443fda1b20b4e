"""The R10 claim prompt: only the ranks the player's team caught by a caída this hand,
and a plain "nothing to claim"; once passed, it says it waits for the others. Drawn by the page's
own code in chromium for a claim window (a real one waits only for people, see
tests/server/test_claim_window.py).
"""

from __future__ import annotations

import pytest

from tests.web.conftest import NewContext
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser

DRAW = """async (passed) => {
  const { actionBar } = await import('/js/play.js');
  const model = { you: 0, table: { seats: 4 }, selection: { card: null, take: [] },
    claimPassed: passed ? 1 : null,
    legal: "A234567JQK".split("").map((rank) => ({ type: "claim", rank })),
    game: { phase: "claims", handNumber: 1, claims: [], hand: [], history: [
      { seat: 2, card: "7H", take: ["7C"], caida: true },   // partner's caída
      { seat: 1, card: "QS", take: ["QD"], caida: true },   // the other team's
      { seat: 0, card: "KC", take: ["KD", "AS"], caida: true },
    ] } };
  const names = { nameOf: () => 'Ana', teamOf: () => 'Ana y Beto', seats: 4 };
  const ctx = { act: () => {}, redraw: () => {}, passClaims: () => {}, names };
  const bar = actionBar(model, model.game, ctx);
  return { actions: [...bar.querySelectorAll('[data-action]')].map((b) => b.dataset.action),
    text: bar.textContent };
}"""


@pytest.mark.timeout(60)
def test_the_claim_prompt_offers_the_caught_ranks_and_nothing_to_claim_r10(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#create-title")
    offered = page.evaluate(DRAW, False)
    assert offered["actions"] == ["claim-7", "claim-K", "claim-none"]
    assert "Nada que reclamar" in offered["text"]
    assert "R10" not in offered["text"]
    waiting = page.evaluate(DRAW, True)
    assert waiting["actions"] == []
    assert "esperando a los demás" in waiting["text"]
