"""Between `Game` and the fast core (`engine.core.Core`): moves and actions, a core from a game.

`CORE_KIND` says whether the core runs compiled (mypyc) or as plain Python; `pure_core` loads
the plain-Python modules beside a compiled build (the benchmarks and tests compare the two).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from engine import core as _core
from engine.actions import Action, Announce, Claim, CloseClaims, Misdeal, Play, TakeMissed
from engine.cards import RANKS
from engine.compiled import COMPILED, source_of
from engine.coredeals import Layer
from engine.corestate import (
    ANNOUNCE_MOVE,
    CALLS,
    CLAIM,
    CLOSE_CLAIMS,
    MISDEAL,
    PHASES,
    TAG,
    TAKE_MISSED,
    other_move,
)
from engine.determinize import played_cards, rank_with, ronda_caida_events
from engine.game import Game
from engine.state import Hidden
from engine.views import View

Core = _core.Core

#: "compiled (mypyc)" or "pure Python": which fast core this process runs.
CORE_KIND = "pure Python" if _core.__file__.endswith(".py") else "compiled (mypyc)"


def pure_core() -> ModuleType:
    """Return `engine.core` loaded from its source as ``engine.core_pure`` (with its compiled
    siblings loaded from source too), whatever this process runs."""
    loaded = sys.modules.get("engine.core_pure")
    if loaded is not None:
        return loaded
    saved = {name: sys.modules.get(name) for name in COMPILED}
    try:
        for name in COMPILED[:3]:
            spec = importlib.util.spec_from_file_location(name, source_of(name))
            assert spec is not None
            assert spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        sys.modules["engine.core_pure"] = module
        return module
    finally:
        for name, each in saved.items():
            if each is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = each


def move_of(action: Action) -> int:
    """Return the core's move for ``action``."""
    if type(action) is Play:
        return action.card | action.mask << 6
    if isinstance(action, TakeMissed):
        return other_move(TAKE_MISSED, action.seat)
    if isinstance(action, Announce):
        return other_move(ANNOUNCE_MOVE, action.seat, CALLS.index(action.call))
    if isinstance(action, Claim):
        return other_move(CLAIM, action.seat, RANKS.index(action.rank))
    return other_move(CLOSE_CLAIMS if isinstance(action, CloseClaims) else MISDEAL)


def action_of(move: int, turn: int) -> Action:
    """Return the action of a core move (``turn``: the seat that plays, for a play)."""
    if move < TAG:
        cards = frozenset(card for card in range(40) if move >> 6 >> card & 1)
        return Play(turn, move & 63, cards)
    tag, seat, detail = move // TAG, move >> 4 & 3, move & 15
    if tag == TAKE_MISSED:
        return TakeMissed(seat)
    if tag == ANNOUNCE_MOVE:
        return Announce(seat, CALLS[detail])
    if tag == CLAIM:
        return Claim(seat, RANKS[detail])
    return CloseClaims() if tag == CLOSE_CLAIMS else Misdeal()


def _mask(cards: list[int] | tuple[int, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def core_of(game: Game, module: ModuleType | None = None) -> _core.Core:
    """Return a core in the state of ``game`` (``module``: another `engine.core`, as
    `pure_core`'s)."""
    rules = game.rules
    cls = Core if module is None else module.Core
    seed = game._pack_seed
    core: _core.Core = cls(rules, game.dealer, -1 if seed is None else seed, list(game.packs))
    core.next_pack, core.hand_number, core.packet = game._next_pack, game.hand_number, game.packet
    core.pack, core.deal_pos = game._pack, game._deal_pos
    core.hands = [hand[:] for hand in game._hands]
    core.table = list(game._table)
    core.by_rank = [cards[:] for cards in game._by_rank]
    core.low = game._low
    core.piles = [_mask(pile) for pile in game._piles]
    core.pile_counts = [len(pile) for pile in game._piles]
    core.scores = list(game._scores)
    core.turn = -1 if game._turn is None else game._turn
    core.phase = PHASES.index(game._phase)
    core.last_trail = game._last_trail
    core.missed, core.missed_team = list(game._missed), game._missed_team
    core.r10, core.claims_ended = list(game._r10), list(game._claims_ended)
    core.ronda, core.four = list(game._ronda), list(game._four)
    core.ronda_caught, core.queue = list(game._ronda_caught), list(game._announce_queue)
    core.played = game._played_in_packet
    for entry in game._history:
        if entry[2] >= 0:
            core.played_ranks[entry[2] >> 2] += 1
    winner = game._winner
    core.winner = -1 if winner is None else 2 if winner == "draw" else int(winner)
    return core


class Deals:
    """The cores of one view's sampled deals (a search's playouts start from each).

    Everything a deal does not change is read from the view once, into a first core built
    as `Game.from_view` builds a game; each deal then copies it and lays its own hands and
    stock, and what they decide: this packet's rondas and fours (R6), the R10 events of
    this packet's caídas (`determinize.ronda_caida_events`). A test holds each to
    ``core_of(Game.from_view(view, hidden))``.
    """

    def __init__(self, view: View) -> None:
        self.view = view
        self.first: _core.Core | None = None
        self.played = played_cards(view)
        self.layer: Layer | None = None

    def lay(self, dealt: list[list[int]]) -> _core.Core:
        """Return `core` of the deal ``dealt`` (`coredeals.Sampler.deal`: every seat's hand,
        then the stock), laid by `coredeals.Layer`, compiled with the core."""
        layer = self.layer
        if layer is None:
            seats = self.view.rules.seats
            hidden = Hidden(tuple(tuple(hand) for hand in dealt[:seats]), tuple(dealt[seats]))
            layer = self.layer = self.layer_of(core_of(Game.from_view(self.view, hidden)))
            return layer.first.copy()
        return layer.core(dealt)

    def layer_of(self, first: _core.Core) -> Layer:
        """Return the `coredeals.Layer` of this view on its first core."""
        view = self.view
        seats = view.rules.seats
        before = [
            [rank_with(3, self.played.get((packet, seat), [])) for seat in range(seats)]
            for packet in range(view.packet)
        ]
        caidas = [
            (entry.packet, (entry.seat - 1) % seats, entry.seat & 1, entry.card >> 2)
            for entry in view.history
            if entry.card >= 0 and entry.caida
        ]
        claimed = [(seat & 1, RANKS.index(rank)) for seat, rank, valid in view.claims if valid]
        played = [list(self.played.get((view.packet, seat), [])) for seat in range(seats)]
        return Layer(first, view.packet, played, before, caidas, claimed)

    def core(self, hidden: Hidden) -> _core.Core:
        """Return the core of ``view`` with the hidden cards ``hidden``."""
        if self.first is None:
            self.first = core_of(Game.from_view(self.view, hidden))
            return self.first.copy()
        view = self.view
        core = self.first.copy()
        seats = view.rules.seats
        dealt = {key: cards[:] for key, cards in self.played.items()}
        for seat in range(seats):
            own = seat == view.viewer and view.hand is not None
            hand = sorted(view.hand if own and view.hand is not None else hidden.hands[seat])
            core.hands[seat] = hand
            current = dealt.setdefault((view.packet, seat), [])
            current.extend(hand)
            counts = [0] * 10
            for card in current:
                counts[card >> 2] += 1
            core.ronda[seat] = counts.index(3) if 3 in counts else -1
            core.four[seat] = counts.index(4) if 4 in counts else -1
        core.pack = [-1] * (40 - len(hidden.stock)) + list(hidden.stock)
        events, caught = ronda_caida_events(view, dealt)
        core.r10 = events
        core.ronda_caught = [(view.packet, seat) in caught for seat in range(seats)]
        return core
