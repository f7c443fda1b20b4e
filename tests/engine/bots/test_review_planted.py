"""Planted errors the review must mark, and how sure it says it is (R7 captures, R9 points).

Each case is found, not written by hand: level-2 games are played from fixed seeds until, early
in the first hand (the scores still far from 40, so points still move the chance of winning),
a seat to play faces the case; the review then judges the planted play there, made instead of
the capture the case names, at what that seat knew, and the better play it shows.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from engine import Game, Phase, Play, card_code
from engine.bots.review import (
    INACCURACY,
    MISTAKE,
    REVIEW_BUDGET,
    Step,
    certainty,
    judge,
    straddles,
)
from engine.cards import rank_of
from tests.engine.helpers import bot_step

#: a case: for the seat to play, the planted error and the play it stands for, or None.
Case = Callable[[Game, int], tuple[Play, Play] | None]


def plays(game: Game, seat: int) -> list[Play]:
    return [action for action in game.legal_actions(seat) if isinstance(action, Play)]


def a_trail(game: Game, seat: int, avoid: int | None = None) -> Play | None:
    """A trail of a card that could take nothing, other than ``avoid``'s rank."""
    takers = {play.card for play in plays(game, seat) if play.take}
    for play in plays(game, seat):
        if not play.take and play.card not in takers and rank_of(play.card) != avoid:
            return play
    return None


def caidas(game: Game, seat: int, target: int) -> list[Play]:
    """R9: the plays that catch ``target`` by match."""
    return [p for p in plays(game, seat) if target in p.take and rank_of(p.card) == rank_of(target)]


def declined_caida(game: Game, seat: int) -> tuple[Play, Play] | None:
    """R9: the card the previous player just trailed can be caught by match; a trail instead."""
    target = game.view(seat).caida_target
    if target is None:
        return None
    caida = caidas(game, seat, target)
    trail = a_trail(game, seat, rank_of(target))
    return (trail, caida[0]) if caida and trail else None


def capture_leaving_caida(game: Game, seat: int) -> tuple[Play, Play] | None:
    """R9: a caída is there, but another capture is made that leaves the caught card."""
    target = game.view(seat).caida_target
    if target is None:
        return None
    caida = caidas(game, seat, target)
    other = [p for p in plays(game, seat) if p.take and target not in p.take]
    return (other[0], caida[0]) if caida and other else None


def missed_limpia(game: Game, seat: int) -> tuple[Play, Play] | None:
    """R9: a capture would clear a table of two or more cards (limpia); a trail instead."""
    table = game.view(seat).table
    if len(table) < 2 or game.view(seat).caida_target is not None:
        return None
    limpia = [p for p in plays(game, seat) if len(p.take) == len(table)]
    trail = a_trail(game, seat)
    return (trail, limpia[0]) if limpia and trail else None


def trail_past_three(game: Game, seat: int) -> tuple[Play, Play] | None:
    """R7: a capture of three table cards or more (basis and sequence); a trail instead."""
    view = game.view(seat)
    if view.caida_target is not None:
        return None
    big = [p for p in plays(game, seat) if len(p.take) >= 3 and len(p.take) < len(view.table)]
    trail = a_trail(game, seat)
    return (trail, big[0]) if big and trail else None


def positions(case: Case, wanted: int) -> Iterator[tuple[Game, int, Play, Play]]:
    """The first ``wanted`` positions of ``case`` in level-2 games from seeds 0, 1, ..."""
    found = 0
    for seed in range(400):
        game = Game.new("pagat-4p", seed=seed)
        rng = random.Random(seed)
        while game.phase is not Phase.FINISHED and game.hand_number == 0:
            seat = game.turn
            if game.phase is Phase.PLAY and seat is not None and max(game.scores) < 20:
                planted = case(game, seat)
                if planted is not None:
                    yield game, seat, *planted
                    found += 1
                    if found == wanted:
                        return
                    break  # one position a game
            bot_step(game, (2, 2, 2, 2), rng)
    raise AssertionError(f"only {found} positions of {case.__name__} in 400 games")


def judged(game: Game, seat: int, play: Play) -> Step:
    return judge(game.view(seat), game.legal_actions(seat), play, REVIEW_BUDGET, 0)


@pytest.mark.parametrize(
    ("case", "at_least"),
    [
        (declined_caida, MISTAKE),  # two points and the cards handed back
        (capture_leaving_caida, INACCURACY),  # the cards of one capture for those of another
        (missed_limpia, INACCURACY),
        (trail_past_three, INACCURACY),
    ],
)
def test_a_planted_error_is_marked_and_the_play_it_replaced_is_not(
    case: Case, at_least: float
) -> None:
    for game, seat, error, better in positions(case, 2):
        where = f"{case.__name__}: {card_code(error.card)} for {card_code(better.card)}"
        step = judged(game, seat, error)
        assert step.grade != "good", where
        assert step.charged >= at_least, where
        assert step.sure >= 0.84, where
        assert step.error < step.loss / 2, where  # the estimate's error is small beside the loss
        assert step.best.play.take, where  # the better play shown captures
        assert judged(game, seat, step.best.play).grade == "good", where


def test_a_mark_says_how_sure_it_is() -> None:
    """The chance the play lost at least its mark's threshold: one error above it is 0.84."""
    assert certainty(MISTAKE + 0.4, 0.4, "mistake") == pytest.approx(0.841, abs=1e-3)
    assert certainty(MISTAKE + 0.8, 0.4, "mistake") == pytest.approx(0.977, abs=1e-3)
    assert certainty(0.2, 0.3, "good") == pytest.approx(0.841, abs=1e-3)
    assert certainty(2.0, 0.0, "mistake") == 1.0


@pytest.mark.parametrize(
    ("loss", "error", "again"),
    [
        (1.6, 0.2, True),  # a mistake or an inaccuracy, within two errors
        (2.2, 0.2, False),  # a mistake either way
        (0.1, 0.1, False),  # good either way
        (3.5, 0.3, True),
    ],
)
def test_a_loss_near_a_threshold_is_searched_again(loss: float, error: float, again: bool) -> None:
    assert straddles(loss, error) is again
