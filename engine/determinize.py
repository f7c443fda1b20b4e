"""Build a complete game from one seat's view plus a guess of the hidden cards (for bots).

A bot that samples ("determinizes") the unknown cards gets a real `Game` it can copy and
play out. Everything but the guessed cards comes from the view: the public history of the
hand gives the piles, the R10 ronda-caída events and the packet hands played so far.
"""

from __future__ import annotations

from typing import TypeVar

from engine.cards import RANKS
from engine.errors import EngineError
from engine.phase import Phase
from engine.state import GameState, Hidden
from engine.views import View

G = TypeVar("G", bound=GameState)


def rank_with(count: int, cards: list[int]) -> int:
    counts = [0] * 10
    for card in cards:
        counts[card >> 2] += 1
    return counts.index(count) if count in counts else -1


def _ronda_rank(cards: list[int], four_of_a_kind: str) -> int:
    """The rank a seat announced as ronda: its three of a kind (or R14 libre-2p's four)."""
    rank = rank_with(3, cards)
    return rank_with(4, cards) if rank < 0 and four_of_a_kind == "ronda" else rank


def _check(view: View, hands: list[list[int]], stock: tuple[int, ...]) -> None:
    for seat, hand in enumerate(hands):
        if len(hand) != view.hand_sizes[seat]:
            raise EngineError(
                "R4", f"seat {seat} holds {view.hand_sizes[seat]} cards, not {len(hand)}"
            )
    if len(stock) != view.undealt:
        raise EngineError("R4", f"{view.undealt} cards are still to be dealt, not {len(stock)}")
    if view.phase in (Phase.ANNOUNCE, Phase.PLAY, Phase.CLAIMS):
        everything = sorted([c for hand in hands for c in hand] + list(stock) + list(view.seen))
        if everything != list(range(40)):
            raise EngineError("R2", "the hands, stock and seen cards are not the 40 cards")


def game_from_view(cls: type[G], view: View, hidden: Hidden) -> G:
    """Return a game consistent with ``view`` in which the hidden cards are ``hidden``."""
    rules = view.rules
    seats = rules.seats
    hands = [
        sorted(view.hand if seat == view.viewer and view.hand is not None else hidden.hands[seat])
        for seat in range(seats)
    ]
    _check(view, hands, hidden.stock)
    game = cls.__new__(cls)
    game._init_state(rules, {}, None, [], view.dealer, view.draw_start, view.draw_cards)
    game.hand_number, game.packet, game.dealer = view.hand_number, view.packet, view.dealer
    game._pack = [-1] * (40 - len(hidden.stock)) + list(hidden.stock)
    game._deal_pos = 40 - len(hidden.stock)
    game._hands = hands
    game._table = list(view.table)
    for card in view.table:
        game._by_rank[card >> 2].append(card)
    game._scores = list(view.scores)
    game._turn, game._phase, game._winner = view.turn, view.phase, view.winner
    game._last_trail = -1 if view.caida_target is None else view.caida_target
    game._missed = list(view.missed)
    game._missed_team = view.missed_takers[0] & 1 if view.missed_takers else -1
    game._history = [(e.packet, e.seat, e.card, e.take, e.caida) for e in view.history]
    game._announced = list(view.announced)
    game._cuarenta = view.cuarenta
    game._claims_ended = list(view.claims_ended)
    game._claims_made = list(view.claims)
    game._played_in_packet = sum(1 for e in view.history if e.packet == view.packet and e.card >= 0)
    # packet hands: what each seat played in a packet, plus (this packet) what it still holds
    dealt = played_cards(view)
    for entry in view.history:
        if entry.card >= 0:
            game._piles[entry.seat & 1] += [entry.card, *entry.take] if entry.take else []
        else:
            game._piles[entry.seat & 1] += entry.take
    for seat in range(seats):
        dealt.setdefault((view.packet, seat), []).extend(hands[seat])
        current = dealt[(view.packet, seat)]
        game._packet_hands[seat] = tuple(sorted(current))
        game._ronda[seat] = rank_with(3, current)
        game._four[seat] = rank_with(4, current)
    _rebuild_r10(game, view, dealt)
    order = [(view.dealer + offset) % seats for offset in range(1, seats + 1)]
    if view.phase is Phase.ANNOUNCE:
        done = {seat for seat, _ in view.announced}
        game._announce_queue = [seat for seat in order if seat not in done]
    game._hand_rondas = [
        (packet, seat, _ronda_rank(dealt.get((packet, seat), []), rules.four_of_a_kind))
        for packet, seat in view.rondas
    ]
    return game


def played_cards(view: View) -> dict[tuple[int, int], list[int]]:
    """Return the cards each seat played in each packet of the hand: (packet, seat) -> cards."""
    played: dict[tuple[int, int], list[int]] = {}
    for entry in view.history:
        if entry.card >= 0:
            played.setdefault((entry.packet, entry.seat), []).append(entry.card)
    return played


def ronda_caida_events(
    view: View, packet_hands: dict[tuple[int, int], list[int]]
) -> tuple[list[tuple[int, int]], set[tuple[int, int]]]:
    """Return the hand's unclaimed R10 events (team, rank) and the rondas caught (packet, seat).

    An event is a caída whose caught card is of the rank the trailer (the seat before the
    capturer, R1) held three of in that packet's hand, at most one per ronda (R10). The one
    reading of the rule for every caller: ``packet_hands`` holds each seat's packet hand,
    which is the cards it played once the hand is over (claims, `engine.bots.claims`) or,
    for the current packet, also the cards it holds (a sampled deal, `game_from_view`).
    Events already claimed validly are left out.
    """
    events: list[tuple[int, int]] = []
    caught: set[tuple[int, int]] = set()
    if not view.rules.awards_r10:
        return events, caught
    seats = view.rules.seats
    for entry in view.history:
        if entry.card < 0 or not entry.caida:
            continue
        trailer = (entry.packet, (entry.seat - 1) % seats)
        rank = entry.card >> 2
        if trailer in caught or rank_with(3, packet_hands.get(trailer, [])) != rank:
            continue
        caught.add(trailer)
        events.append((entry.seat & 1, rank))
    for seat, letter, valid in view.claims:
        event = (seat & 1, RANKS.index(letter))
        if valid and event in events:
            events.remove(event)
    return events, caught


def _rebuild_r10(game: GameState, view: View, dealt: dict[tuple[int, int], list[int]]) -> None:
    """Recompute the R10 events of the hand from its caídas and the packet hands."""
    events, caught = ronda_caida_events(view, dealt)
    game._r10.extend(events)
    for seat in range(view.rules.seats):
        game._ronda_caught[seat] = (view.packet, seat) in caught
