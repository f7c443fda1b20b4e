"""The fast core (`engine.core`) plays the very game `Game` plays: on random games of every
profile and house rule (R13, R14), after every action, the same legal lists (complete and by
rank, of every seat), the same state and scores; compiled and plain Python alike. Level 3's
playout on the core (`engine.bots.fastplay`) makes the same moves as on a `Game`."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Phase
from engine.bots import fastplay, playout
from engine.bots.sampling import evidence_of, sample_hidden
from engine.bridge import CORE_KIND, Deals, action_of, core_of, move_of, pure_core
from engine.core import Core
from engine.errors import InvalidOptions
from engine.rules import OPTION_VALUES, PROFILES, check_options


def _bits(mask: int) -> list[int]:
    return [card for card in range(40) if mask >> card & 1]


def game_state(game: Game) -> tuple[Any, ...]:
    """What the two must agree on, read from a `Game`."""
    return (
        game.hand_number,
        game.packet,
        game.dealer,
        game.scores,
        -1 if game.turn is None else game.turn,
        game.phase,
        game.winner,
        game.table,
        [sorted(hand) for hand in game._hands],
        [sorted(pile) for pile in game._piles],
        game._last_trail,
        game.missed,
        game._missed_team,
        tuple(game._r10),
        tuple(game._claims_ended),
        game._played_in_packet,
        game._next_pack,
        tuple(game.packs),
    )


def core_state(core: Core) -> tuple[Any, ...]:
    """The same, read from a core."""
    return (
        core.hand_number,
        core.packet,
        core.dealer,
        (core.scores[0], core.scores[1]),
        core.turn,
        core._phase,
        core._winner,
        tuple(core.table),
        [sorted(hand) for hand in core.hands],
        [_bits(pile) for pile in core.piles],
        core.last_trail,
        tuple(core.missed),
        core.missed_team,
        tuple(core.r10),
        tuple(core.claims_ended),
        core.played,
        core.next_pack,
        tuple(core.packs),
    )


@st.composite
def variants(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    """A profile and any options it allows (R13, R14)."""
    profile = draw(st.sampled_from(PROFILES))
    options: dict[str, object] = {}
    for name, values in OPTION_VALUES.items():
        value = draw(st.sampled_from(values))
        try:
            check_options(profile, {name: value})
        except InvalidOptions:
            continue
        options[name] = value
    return profile, options


def _check_legal(game: Game, cores: list[Core], rng: random.Random) -> None:
    seat = rng.choice([None, *range(game.rules.seats)])
    for by_rank in (False, True):
        listed = [move_of(action) for action in game.legal_actions(seat, by_rank=by_rank)]
        for core in cores:
            assert core.legal(-1 if seat is None else seat, by_rank) == listed


@settings(max_examples=40, deadline=None)
@given(variants(), st.integers(0, 2**32))
def test_the_core_plays_the_game_of_the_reference(
    variant: tuple[str, dict[str, object]], seed: int
) -> None:
    profile, options = variant
    game = Game.new(profile, options, seed=seed)
    pure: ModuleType = pure_core()
    cores = [Core.new(profile, options, seed), pure.Core.new(profile, options, seed)]
    rng = random.Random(seed)
    while game.phase is not Phase.FINISHED and game.phase is not Phase.WAITING:
        for core in cores:
            assert core_state(core) == game_state(game)
        _check_legal(game, cores, rng)
        legal = game.legal_actions()
        system = game.system_actions()
        if system and (not legal or rng.random() < 0.02):  # R5 referee, R10 clock
            action = rng.choice(system)
        else:
            action = rng.choice(legal)
        game.apply(action)
        for core in cores:
            core.apply(move_of(action))
    for core in cores:
        assert core_state(core) == game_state(game)
        assert core_state(core_of(game)) == core_state(core)


def test_moves_and_actions_convert_both_ways() -> None:
    game = Game.new("pagat-4p", {"sequence": "manual"}, seed=3)
    for action in game.legal_actions():
        assert action_of(move_of(action), game.turn or 0) == action


def test_the_running_core_is_named() -> None:
    assert CORE_KIND in ("compiled (mypyc)", "pure Python")


@settings(max_examples=25, deadline=None)
@given(variants(), st.integers(0, 2**32), st.integers(0, 60))
def test_level3_playouts_move_as_on_a_game(
    variant: tuple[str, dict[str, object]], seed: int, steps: int
) -> None:
    profile, options = variant
    game = Game.new(profile, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):  # somewhere into the game, by random actions
        legal = game.legal_actions()
        if (game.phase is not Phase.PLAY and game.phase is not Phase.ANNOUNCE) or not legal:
            return
        game.apply(rng.choice(legal))
    core = core_of(game)
    played = playout.Played()
    while game.phase is Phase.PLAY or game.phase is Phase.ANNOUNCE:
        expected = playout.level3_move(game, played)
        assert fastplay.level3_move(core) == move_of(expected)
        game.apply(expected)
        core.apply(move_of(expected))
    assert core_state(core) == game_state(game)


@settings(max_examples=20, deadline=None)
@given(variants(), st.integers(0, 2**32), st.integers(0, 30))
def test_a_sampled_deal_is_laid_as_a_game_built_from_the_view_would_be(
    variant: tuple[str, dict[str, object]], seed: int, steps: int
) -> None:
    profile, options = variant
    game = Game.new(profile, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = game.legal_actions()
        if game.phase is not Phase.PLAY or not legal:
            return
        game.apply(rng.choice(legal))
    if game.phase is not Phase.PLAY or game.turn is None:
        return
    view = game.view(game.turn)
    evidence = evidence_of(view, declined=True)
    deals = Deals(view)
    for _ in range(4):
        hidden = sample_hidden(view, evidence, rng)
        laid, built = deals.core(hidden), core_of(Game.from_view(view, hidden))
        assert core_state(laid) == core_state(built)
        assert (laid.ronda, laid.four, laid.ronda_caught) == (
            built.ronda,
            built.four,
            built.ronda_caught,
        )
        assert laid.pack[laid.deal_pos :] == built.pack[built.deal_pos :]
