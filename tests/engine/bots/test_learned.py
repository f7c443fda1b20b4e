"""The learned policy (`engine.bots.learned`), its features and `cuarenta train --model policy`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import Game, Phase, Play
from engine.bots import Budget, choose, learned, levels, stand_ins
from engine.bots.counting import position_of, ranked_plays, without_gifts
from engine.bots.features import NAMES, features
from engine.bots.learn import decisions, train, write
from engine.bots.learned import (
    CHEAP_LEVEL,
    CHECKED_LEVEL,
    POLICY_PATH,
    SETTLE_DEALS,
    SETTLED_LEVEL,
    Model,
    choose_play,
    weights,
)
from engine.bots.sampling import evidence_of, sample_hidden
from engine.bots.search import search
from tests.engine.bots.conftest import play_hand


def _model(weight: float) -> Model:
    """A network that weighs every feature (``weight`` 0: worth 0 for every play)."""
    width = len(NAMES)
    ones = (1.0,) * width
    unit = tuple(weight * (1.0 + i / 10) for i in range(width))
    return Model((0.0,) * width, ones, (unit, unit[::-1]), (0.0, 0.1), (weight, -weight), unit, 0.0)


def _mid_packet(seed: str, plays: int = 7) -> Game:
    """A level-3 game ``plays`` plays into its first packet."""
    game = Game.new("pagat-4p", seed=seed)
    rng = random.Random(2)
    done = 0
    while done < plays:
        for mover in game.to_act():
            action = choose(3, game.view(mover), game.legal_actions(mover), rng)
            if action is None:
                continue
            done += isinstance(action, Play)
            game.apply(action)
            break
    return game


@pytest.mark.parametrize("seed", ["learned/no-peeking", "learned/no-peeking/2", "learned/check/0"])
@pytest.mark.parametrize("level", [CHEAP_LEVEL, CHECKED_LEVEL, SETTLED_LEVEL])
def test_redealing_the_cards_the_seat_cannot_see_never_changes_the_learned_policy_R1(
    seed: str, level: int
) -> None:
    """The invariance test for the new paths: any deal of the unseen cards consistent with
    the view gives the same feature rows, model scores and play (the committed weights and
    a model that weighs every feature); at ``learned/check/0`` the committed model leaves
    level 3's play, so 51's and 52's checks search there."""
    game = _mid_packet(seed)
    seat = game.turn
    assert seat is not None
    view = game.view(seat)
    legal = [a for a in game.legal_actions(seat) if isinstance(a, Play)]
    if seed == "learned/check/0":
        pos = position_of(view)
        first = ranked_plays(pos, without_gifts(pos, legal))[0][1]
        assert choose_play(view, legal, weights()["pagat-4p"]) != first, "a check is searched"
    everything = _model(1.0)
    expected = (features(view, legal), choose_play(view, legal, everything))
    expected_move = choose(level, view, game.legal_actions(seat), random.Random(5))
    evidence = evidence_of(view, declined=True)
    for redeal in range(3):
        other = Game.from_view(view, sample_hidden(view, evidence, random.Random(redeal)))
        assert any(other.hand(s) != game.hand(s) for s in range(4) if s != seat)
        assert other.view(seat) == view
        again = [a for a in other.legal_actions(seat) if isinstance(a, Play)]
        assert (features(other.view(seat), again), choose_play(view, again, everything)) == (
            expected
        )
        move = choose(level, other.view(seat), other.legal_actions(seat), random.Random(5))
        assert move == expected_move


def test_the_settled_check_stops_once_settled_and_never_past_its_deals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """52's check plays at least 8 deals, stops on the first settled count (8, 12, ...) and
    never plays more than `SETTLE_DEALS`; 51's plays all of its `CHECK_DEALS`."""
    played: list[int] = []

    def counted(*args: object, **kwargs: object) -> list[list[float]]:
        values = search(*args, **kwargs)  # type: ignore[arg-type]
        played.append(len(values[0]))
        return values

    monkeypatch.setattr(learned, "search", counted)
    for k in range(24):
        game = _mid_packet(f"learned/check/{k}")
        seat = game.turn
        assert seat is not None
        for level in (CHECKED_LEVEL, SETTLED_LEVEL):
            choose(level, game.view(seat), game.legal_actions(seat), random.Random(k))
    checked, settled = played[0::2], played[1::2]
    assert checked, "some checks were searched"
    assert set(checked) == {learned.CHECK_DEALS}
    assert all(8 <= deals <= SETTLE_DEALS and deals % 4 == 0 for deals in settled)
    assert sum(settled) < sum(checked)


def test_the_learned_policies_stand_in_but_are_no_rungs_of_the_ladder() -> None:
    assert {CHEAP_LEVEL, CHECKED_LEVEL, SETTLED_LEVEL} <= set(stand_ins())
    assert not {CHEAP_LEVEL, CHECKED_LEVEL, SETTLED_LEVEL} & set(levels())


@pytest.mark.parametrize("profile", ["pagat-4p", "heads-up", "libre-2p"])
@pytest.mark.parametrize("level", [CHEAP_LEVEL, CHECKED_LEVEL, SETTLED_LEVEL])
def test_every_action_the_learned_policy_takes_is_legal_R6_R7_R8_R10(
    profile: str, level: int
) -> None:
    game = Game.new(profile, seed=f"learned/legal/{profile}")
    assert play_hand(game, level, random.Random(1), Budget(samples=2))


def test_without_weights_the_learned_policy_plays_level_3s_choice() -> None:
    game = _mid_packet("learned/level-3")
    seat = game.turn
    assert seat is not None
    view = game.view(seat)
    plays = [a for a in game.legal_actions(seat) if isinstance(a, Play)]
    level3 = choose(3, view, game.legal_actions(seat), random.Random(0))
    assert choose_play(view, plays, None) == level3
    assert choose_play(view, plays, _model(0.0)) == level3  # nothing clearly better: level 3 stands


def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    """The same seed, games and deals write the same bytes, on one process or two."""
    one = train("same", 2, 2, 4, 1, ("heads-up",))
    two = train("same", 2, 2, 4, 2, ("heads-up",))
    assert one == two
    assert train("other", 2, 2, 4, 1, ("heads-up",)) != one
    path = tmp_path / "policy.json"
    write(one, str(path))
    entry = one["profiles"]["heads-up"]  # type: ignore[index]
    assert learned.parse(json.loads(path.read_text()))["heads-up"].linear == tuple(entry["linear"])


def test_training_sees_only_play_decisions_with_a_choice() -> None:
    found = list(decisions("heads-up", "learned/decisions", 1))
    assert found
    for view, plays in found:
        assert view.phase is Phase.PLAY
        assert view.turn == view.viewer
        assert len(plays) > 1


def test_the_committed_weights_are_the_trainers_and_small() -> None:
    """``policy.json`` was written by `cuarenta train --model policy` for today's features."""
    raw = json.loads(POLICY_PATH.read_text(encoding="utf-8"))
    assert raw["names"] == list(NAMES)
    assert POLICY_PATH.stat().st_size < 300_000
    assert "pagat-4p" in weights()
