"""Play a sampled game forward with the level-3 policy in every seat (levels 4 and 5).

The playout reads the `Game` directly instead of building a `View` per move (a view copies
the whole history): `position_in` computes the same `Position` a seat's view would give,
from the cards that seat could see, so the simulated players count cards exactly as the
real level 3 does and never peek at another hand. Ties go to the first listed play, so a
playout is a pure function of the sampled deal and the first action.
"""

from __future__ import annotations

from engine.actions import Action, Announce, Claim, Play, TakeMissed
from engine.bots.counting import Position, best_play
from engine.cards import RANKS
from engine.game import Game
from engine.phase import Phase
from engine.state import HistoryEntry


class Played:
    """The cards played so far this hand, per rank, read from a game's history as it grows.

    A playout asks every move for the cards a seat has seen; reading only the new history
    entries each time, instead of the whole hand's, gives the same counts for less.
    """

    __slots__ = ("counts", "history", "read")

    def __init__(self) -> None:
        self.counts = [0] * 10
        self.history: list[HistoryEntry] | None = None
        self.read = 0

    def of(self, game: Game) -> list[int]:
        """Return the counts of the cards played in ``game``'s hand (kept up to date)."""
        history = game._history
        if history is not self.history or len(history) < self.read:
            self.counts, self.history, self.read = [0] * 10, history, 0
        counts = self.counts
        for index in range(self.read, len(history)):
            card = history[index][2]
            if card >= 0:
                counts[card >> 2] += 1
        self.read = len(history)
        return counts


def position_in(game: Game, seat: int, played: Played | None = None) -> Position:
    """Return ``seat``'s `Position` in ``game`` using only what that seat can see.

    ``played`` keeps the played cards' counts from one call to the next (same game).
    """
    unseen = [4 - count for count in (played or Played()).of(game)]
    for card in game._hands[seat]:
        unseen[card >> 2] -= 1
    seats = game.rules.seats
    if sum(map(len, game._hands)) > 1:
        next_hand, caida_next = len(game._hands[(seat + 1) % seats]), True
    elif game._deal_pos < len(game._pack):
        next_hand, caida_next = 5, False  # R9: the dealer's last card is safe from caída
    else:
        next_hand, caida_next = 0, False
    team = seat & 1
    scores, piles = game._scores, game._piles
    return Position(
        rules=game.rules,
        by_rank=game._by_rank,
        table_size=len(game._table),
        caida_target=game._last_trail,
        unseen=unseen,
        unseen_total=sum(unseen),
        next_hand=next_hand,
        caida_next=caida_next,
        score=scores[team],
        other_score=scores[1 - team],
        pile=len(piles[team]),
        other_pile=len(piles[1 - team]),
        dealer_own=game.dealer & 1 == team,
    )


def _announcement(game: Game, seat: int, legal: tuple[Action, ...]) -> Action:
    calls = {action.call: action for action in legal if isinstance(action, Announce)}
    if "cuarenta" in calls:
        return calls["cuarenta"]
    if "ronda" in calls and game._scores[seat & 1] < game.rules.ronda_limit:
        return calls["ronda"]
    return calls["pass"]


def level3_move(game: Game, played: Played | None = None) -> Action:
    """Return the level-3 action of the seat to act in a playout (it must be a player's).

    ``played``: as for `position_in`, when moves of one game are asked for in turn.
    """
    if game._missed:  # R8: the other team always takes missed cards
        taker = next(s for s in range(game.rules.seats) if s & 1 == game._missed_team)
        return TakeMissed(taker)
    seat = game._turn
    assert seat is not None, "a playout only asks for moves while someone is to play"
    legal = game.legal_actions(seat, by_rank=True)  # R2: suits never matter
    if game._phase is Phase.ANNOUNCE:
        return _announcement(game, seat, legal)
    plays = [action for action in legal if isinstance(action, Play)]
    if len(plays) == 1:
        return plays[0]
    return best_play(position_in(game, seat, played), plays)


def play_out(game: Game, whole_hand: bool) -> None:
    """Play ``game`` on with level 3 everywhere until the packet (or the hand) is over.

    It stops when the game ends, when the claim window opens (R10) or the next hand would
    start, or, unless ``whole_hand``, when the next packet is dealt.
    """
    hand, packet = game.hand_number, game.packet
    played = Played()
    while game._phase is Phase.PLAY or game._phase is Phase.ANNOUNCE:
        if game.hand_number != hand or (not whole_hand and game.packet != packet):
            return
        game.apply(level3_move(game, played))


def claim_all(game: Game) -> None:
    """Every team claims each R10 award it holds, then the claim window closes."""
    for team, rank in list(game._r10):
        game.apply(Claim(team, RANKS[rank]))  # seat ``team`` is of team ``team``
    game.apply(game.system_actions()[0])
