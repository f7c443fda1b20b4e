"""R14 libre-2p, "38 que no juega": a hand counted at 38 says on screen why its cards scored +0.

The engine plays free games until a hand is counted with a player on 38 whose cards would have
scored (R11) but scored nothing (at 38 only a caída scores); the browser client's own module
(clients/web/js/free-game.js, run under node) must name that player's voided count and the rule,
in Spanish, English and Portuguese — and say nothing for the streak game, whose count at 38 does
score.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.events import HandCounted
from engine.game import Game
from engine.scoring import count_points
from tests.strategies import play_randomly

WEB = Path(__file__).resolve().parents[3] / "clients" / "web"
SCRIPT = """
globalThis.document = { documentElement: {} };
const { voidedAt38 } = await import('./js/free-game.js');
const { setLanguage, t } = await import('./i18n/index.js');
const [profile, summary, scores] = JSON.parse(process.argv[1]);
const out = {};
for (const lang of ['es', 'en', 'pt']) {
  setLanguage(lang);
  const voided = voidedAt38(profile, summary, scores);
  out[lang] = { voided, text: voided.map((v) => t('free.at38', { team: 'Norte', points: v.would })),
                rule: t('free.rule38') };
}
console.log(JSON.stringify(out));
"""


Found = tuple[dict[str, Any], tuple[int, int], int, int]


def a_count_voided_at_38() -> Found:
    """A real libre-2p hand count: (the event, the scores after it, the seat at 38, its worth)."""
    found: list[Found] = []

    def on_step(game: Game, _action: object, events: tuple[object, ...]) -> None:
        for event in events:
            if found or not isinstance(event, HandCounted):
                continue
            would = count_points(event.piles, event.dealer % 2)
            for team in (0, 1):
                if game.scores[team] == 38 and event.points[team] == 0 and would[team] > 0:
                    found.append((event.to_json(), game.scores, team, would[team]))

    for seed in range(3000):
        play_randomly(Game.new("libre-2p", {}, seed), random.Random(seed), on_step, misdeals=False)
        if found:
            return found[0]
    raise AssertionError("no free game counted a hand at 38 in 3,000 seeds")


def run_module(profile: str, summary: dict[str, Any], scores: tuple[int, int]) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, json.dumps([profile, summary, scores])],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)


def test_r14_libre_2p_a_hand_counted_at_38_explains_its_plus_0() -> None:
    summary, scores, team, worth = a_count_voided_at_38()
    assert summary["points"][team] == 0
    shown = run_module("libre-2p", summary, scores)
    for lang in ("es", "en", "pt"):
        assert shown[lang]["voided"] == [{"team": team, "would": worth}]
        (text,) = shown[lang]["text"]
        assert "38" in text
        assert f"+{worth}" in text
        assert "caída" in text  # the one thing that still scores at 38
    assert "«38 que no juega»" in shown["es"]["text"][0]
    assert "cartones" in shown["es"]["text"][0]
    # The streak game counts at 38 (R14 heads-up): nothing to explain there.
    assert run_module("heads-up", summary, scores)["es"]["voided"] == []
