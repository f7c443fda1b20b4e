"""Game state plumbing: cheap independent copies, pickling for process pools, text form."""

from __future__ import annotations

import dataclasses
import pickle
import random

from engine import Game, Phase
from engine.events import HandStarted
from engine.flow import shuffled_pack
from engine.state import GameState


def played(seed: int, plays: int) -> Game:
    game = Game.new(seed=seed)
    for _ in range(plays):
        game.apply(game.legal_actions()[-1])
    return game


def test_a_copy_is_equal_and_independent() -> None:
    game = played(3, 12)
    twin = game.copy()
    assert twin.fingerprint() == game.fingerprint()
    twin.apply(twin.legal_actions()[0])
    assert twin.fingerprint() != game.fingerprint()
    assert game.fingerprint() == played(3, 12).fingerprint()


def test_a_copy_deals_the_same_future_hands() -> None:
    game = played(4, 0)
    twin = game.copy()
    hands = 0
    while game.phase is not Phase.FINISHED:
        closing = game.phase is Phase.CLAIMS
        action = game.system_actions()[0] if closing else game.legal_actions()[-1]
        events = game.apply(action)
        assert twin.apply(action) == events
        hands += sum(isinstance(event, HandStarted) for event in events)
    assert hands >= 1


def test_games_views_actions_and_events_pickle_for_process_pools() -> None:
    game = played(5, 10)
    assert pickle.loads(pickle.dumps(game)).fingerprint() == game.fingerprint()
    view = game.view(1)
    assert pickle.loads(pickle.dumps(view)) == view
    action = game.legal_actions()[-1]
    assert pickle.loads(pickle.dumps(action)) == action
    events = game.apply(action)
    assert pickle.loads(pickle.dumps(events)) == events


def test_the_one_line_text_form_names_phase_turn_scores_table_and_hands() -> None:
    text = str(played(6, 3))
    assert "\n" not in text
    assert text.startswith("pagat-4p play hand 0 packet 0")
    assert "table [" in text
    assert "hands [" in text


def test_a_seed_shuffles_as_random_shuffle_does_so_seeded_games_keep_their_packs() -> None:
    # R4/R15: stored tables and bots rebuild games from seeds; the engine's own shuffle
    # (faster) must leave every pack exactly where random.Random.shuffle would
    for seed in [*range(300), 2**63 + 5, "table-7"]:
        expected = list(range(40))
        random.Random(seed).shuffle(expected)
        rng = random.Random(seed)
        assert shuffled_pack(rng) == expected
        twin = random.Random(seed)
        twin.shuffle(list(range(40)))
        assert rng.getrandbits(64) == twin.getrandbits(64)  # the same draws, no more


def test_every_field_is_set_and_copied_and_no_copied_list_is_shared() -> None:
    # GameState's fields are declared once; the copy, the blank state and the fingerprint are
    # generated from them: a field added without saying how it copies fails at import
    game = played(7, 9)
    twin = game.copy()
    names = [each.name for each in dataclasses.fields(GameState)]
    assert sorted(names) == sorted(GameState.__slots__)
    for name in names:
        mine, theirs = getattr(game, name), getattr(twin, name)  # set on both
        how = next(each for each in dataclasses.fields(GameState) if each.name == name).metadata
        if how["copy"] == "cache":
            assert theirs == {}
        else:
            assert theirs == mine, name
        if how["copy"] in ("list", "lists"):
            assert theirs is not mine, name
        if how["copy"] == "lists":
            assert all(a is not b for a, b in zip(theirs, mine, strict=True)), name
    blank = GameState.__new__(GameState)
    blank._init_state(game.rules, {}, None, [], 0, None, ())
    assert all(hasattr(blank, name) for name in names)
