"""Helpers for engine tests: stacked packs and games built through the public record API."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import Announce, Event, Game, Phase, Play, Record, parse_action
from engine.bots import choose
from engine.cards import codes, parse_card

#: Filler order: suit-major (AC 2C 3C … KC AD …), so filler hands rarely hold three of a rank.
_FILLER = [rank * 4 + suit for suit in range(4) for rank in range(10)]


def stacked_pack(dealer: int, packets: Sequence[Mapping[int, str]], seats: int = 4) -> list[str]:
    """Return a 40-card pack dealing ``packets[k][seat]`` (space-separated codes) in packet k.

    Seats or packets not given get filler cards; the cards are dealt as R4/R14 say.
    """
    wanted = {
        (k, seat): [parse_card(code) for code in text.split()]
        for k, packet in enumerate(packets)
        for seat, text in packet.items()
    }
    used = {card for cards in wanted.values() for card in cards}
    assert len(used) == sum(len(cards) for cards in wanted.values()), "a card is stacked twice"
    filler = [card for card in _FILLER if card not in used]
    pack: list[int] = []
    for k in range(40 // (5 * seats)):
        for offset in range(1, seats + 1):
            seat = (dealer + offset) % seats
            cards = wanted.get((k, seat), [])
            assert len(cards) <= 5
            while len(cards) < 5:
                cards = [*cards, filler.pop(0)]
            pack += cards
    return codes(pack)


def game_from(
    packs: Sequence[Sequence[str]],
    dealer: int = 0,
    profile: str = "pagat-4p",
    options: Mapping[str, object] | None = None,
) -> Game:
    """Return a game dealt from the given packs (it waits when they run out)."""
    record = Record(
        profile=profile,
        options=dict(options or {}),
        dealer=dealer,
        packs=tuple(tuple(pack) for pack in packs),
    )
    return Game.from_record(record)


def act(game: Game, *texts: str) -> list[Event]:
    """Apply actions given in their text form; return all their events."""
    events: list[Event] = []
    for text in texts:
        events += game.apply(parse_action(text))
    return events


def deal(
    dealer: int,
    *packets: Mapping[int, str],
    profile: str = "pagat-4p",
    options: Mapping[str, object] | None = None,
) -> Game:
    """Return a game whose first hand is stacked as given (one pack; it waits after it)."""
    seats = 4 if profile == "pagat-4p" else 2
    return game_from([stacked_pack(dealer, packets, seats)], dealer, profile, options)


def rescored(game: Game, scores: tuple[int, int]) -> Game:
    """Return the same position with other scores (built through `Game.from_view`)."""
    from engine import Hidden

    view = game.view(None)._replace(scores=scores)
    seats = game.rules.seats
    stock = tuple(game._pack[game._deal_pos :])
    return Game.from_view(view, Hidden(tuple(game.hand(s) for s in range(seats)), stock))


def cards(text: str) -> frozenset[int]:
    """Return the set of cards named by space-separated codes."""
    return frozenset(parse_card(code) for code in text.split())


def trail_until(game: Game, done: Callable[[Game], bool]) -> list[Event]:
    """Play (trailing when allowed, else the first capture; passing announcements) until
    ``done(game)``.

    Trails are tried directly rather than listed: after many trails the table is big and
    listing every capture would be slow.
    """
    events: list[Event] = []
    while not done(game):
        turn = game.turn
        if game.phase is Phase.ANNOUNCE and turn is not None:
            events += game.apply(Announce(turn, "pass"))
            continue
        assert game.phase is Phase.PLAY, f"stuck in {game.phase}"
        assert turn is not None
        for card in game.hand(turn):
            trail = Play(turn, card)
            if game.is_legal(trail):
                events += game.apply(trail)
                break
        else:
            events += game.apply(next(a for a in game.legal_actions(turn) if isinstance(a, Play)))
    return events


def bot_step(game: Game, levels: Sequence[int], rng: random.Random) -> None:
    """One action: the first seat to act whose bot (of ``levels``) acts, else the clock's."""
    for seat in game.to_act():
        action = choose(levels[seat], game.view(seat), game.legal_actions(seat), rng)
        if action is not None:
            game.apply(action)
            return
    game.apply(game.system_actions()[0])  # the claim window's clock


def bot_game(
    profile: str, options: Mapping[str, Any], seed: int, levels: Sequence[int] = (2, 2, 2, 2)
) -> Game:
    """A complete game between bots of ``levels`` (captures, claims and takes included)."""
    game = Game.new(profile, dict(options), seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.FINISHED:
        bot_step(game, levels, rng)
    return game
