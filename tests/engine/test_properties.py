"""Invariants of random legal games, for every profile and option set (OpenSpiel style)."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Announce,
    Claim,
    Event,
    Game,
    Hidden,
    IllegalAction,
    Phase,
    Play,
    TakeMissed,
    redact,
    replay,
)
from engine.events import Announced, GameOver, HandStarted, PacketDealt
from engine.views import View, redacts
from tests.strategies import play_randomly, random_games, random_step

EXAMPLES = settings(max_examples=25, deadline=None)


@EXAMPLES
@given(random_games())
def test_cards_are_conserved_and_scores_are_even_and_never_fall_R4_R12(
    drawn: tuple[Game, random.Random],
) -> None:
    game, rng = drawn
    scores = [game.scores]
    endings = [event for event in game.start_events if isinstance(event, GameOver)]

    def check(game: Game, action: Action, events: tuple[Event, ...]) -> None:
        game.check_invariants()  # hands + table + piles + undealt + discarded = the 40 cards
        assert all(now >= before for now, before in zip(game.scores, scores[-1], strict=True))
        scores.append(game.scores)
        endings.extend(event for event in events if isinstance(event, GameOver))

    play_randomly(game, rng, check)
    assert game.phase is Phase.FINISHED
    (ending,) = endings
    # A game ends only at 40 (R9, R12), by a cuarenta at any score (R6), by the misdeal penalty
    # `game` (R5) or, heads-up only, by a draw (R14).
    assert (
        max(game.scores) >= 40
        or ending.reason in {"cuarenta", "both players hold four of a kind"}
        or ending.reason.startswith("misdeal")
    )
    assert (ending.winner == "draw") == (ending.reason == "both players hold four of a kind")


def random_action(game: Game, rng: random.Random) -> Action:
    """Any action at all, mostly illegal: a random seat, card, take, call or rank."""
    seat = rng.randrange(-1, game.rules.seats + 1)
    kind = rng.randrange(4)
    if kind == 0:
        pool = list(game.table) + [rng.randrange(40) for _ in range(2)]
        take = frozenset(rng.sample(pool, rng.randrange(min(len(pool), 4) + 1)))
        return Play(seat, rng.randrange(40), take)
    if kind == 1:
        return TakeMissed(seat)
    if kind == 2:
        return Announce(seat, rng.choice(["ronda", "cuarenta", "pass", "tres"]))
    return Claim(seat, rng.choice("A234567JQKX"))


@settings(max_examples=12, deadline=None)
@given(random_games())
def test_listed_actions_apply_and_others_are_refused_leaving_the_state_untouched_R7(
    drawn: tuple[Game, random.Random],
) -> None:
    game, rng = drawn

    def check(game: Game, action: Action, events: tuple[Event, ...]) -> None:
        if game.phase is Phase.FINISHED:
            return
        listed = set(game.legal_actions()) | set(game.system_actions())
        for legal in rng.sample(sorted(listed, key=str), min(3, len(listed))):
            game.copy().apply(legal)  # every listed action applies
        for _ in range(5):
            attempt = random_action(game, rng)
            if attempt in listed:
                continue
            before = game.fingerprint()
            with pytest.raises(IllegalAction, match=r"^R\d+: "):
                game.apply(attempt)  # not listed, so refused, naming the rule
            assert game.fingerprint() == before

    play_randomly(game, rng, check)


@EXAMPLES
@given(random_games())
def test_record_then_replay_is_identical_R15(drawn: tuple[Game, random.Random]) -> None:
    game, rng = drawn
    play_randomly(game, rng)
    again = Game.from_record(game.record())
    assert again.fingerprint()[3:] == game.fingerprint()[3:]  # all but the pack seed
    result = replay(game.record())
    assert result["status"] == "finished"
    assert result["scores"] == list(game.scores)
    assert result["winner"] == game.winner


def assert_private(view: View, game: Game) -> None:
    for seat in range(game.rules.seats):
        if seat == view.viewer:
            assert view.hand == game.hand(seat)
            continue
        secret = set(game.hand(seat))
        shown = set(view.table) | set(view.missed) | view.seen
        shown |= {c for entry in view.history for c in entry.take}
        assert not secret & shown
    if view.viewer is None:
        assert view.hand is None


def assert_redacted(event: Event, viewer: int | None) -> None:
    seen = redact(event, viewer)
    if not redacts(event):  # the server skips redacting these: nothing in them is hidden
        assert seen is event
    if isinstance(seen, PacketDealt):
        assert all(hand is None for seat, hand in enumerate(seen.hands) if seat != viewer)
    if isinstance(seen, Announced) and seen.call == "ronda" and seen.seat != viewer:
        assert seen.rank is None


@settings(max_examples=12, deadline=None)
@given(random_games())
def test_no_view_or_redacted_event_holds_another_seats_hand_R6(
    drawn: tuple[Game, random.Random],
) -> None:
    game, rng = drawn
    viewers: list[int | None] = [*range(game.rules.seats), None]
    for event in game.start_events:
        for viewer in viewers:
            assert_redacted(event, viewer)

    def check(game: Game, action: Action, events: tuple[Event, ...]) -> None:
        for viewer in viewers:
            assert_private(game.view(viewer), game)
            for event in events:
                assert_redacted(event, viewer)

    play_randomly(game, rng, check)


LIVE = (Phase.PLAY, Phase.ANNOUNCE, Phase.CLAIMS)


@settings(max_examples=20, deadline=None)
@given(random_games(), st.integers(min_value=0, max_value=120))
def test_a_game_from_a_view_and_the_true_hidden_cards_plays_the_hand_out_identically(
    drawn: tuple[Game, random.Random], steps: int
) -> None:
    game, rng = drawn
    play_randomly(game, rng, max_steps=steps, misdeals=False)
    assume(game.phase in LIVE)
    seats = game.rules.seats
    stock = tuple(game._pack[game._deal_pos :])
    hidden = Hidden(tuple(game.hand(seat) for seat in range(seats)), stock)
    twin = Game.from_view(game.view(game.to_act()[0]), hidden)
    twin.check_invariants()
    hand = game.hand_number
    while True:
        assert twin.legal_actions() == game.legal_actions()
        assert twin.system_actions() == game.system_actions()
        assert (twin.scores, twin.table, twin.pile_sizes) == (
            game.scores,
            game.table,
            game.pile_sizes,
        )
        action = random_step(game, rng, misdeals=False)
        events = game.apply(action)
        twin_events = twin.apply(action)
        if game.hand_number != hand or game.phase not in LIVE:
            # the hand is over: the twin has no next pack, so compare up to the count
            end = next((i for i, e in enumerate(events) if isinstance(e, HandStarted)), None)
            assert twin_events == events[:end]
            return
        assert twin_events == events
