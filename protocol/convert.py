"""The engine <-> wire mapping: the only module that knows both shapes.

Views and events arrive here already redacted by ``engine.views`` (``view_of``/``redact``);
this module only changes their shape (card ints to R2 codes), never what they reveal.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action as EngineAction
from engine.actions import Announce as EngineAnnounce
from engine.actions import Claim as EngineClaim
from engine.actions import Play as EnginePlay
from engine.actions import TakeMissed as EngineTakeMissed
from engine.cards import card_code, parse_card
from engine.errors import IllegalAction
from engine.events import Event as EngineEvent
from engine.views import SeenPlay as EngineSeenPlay
from engine.views import View
from protocol.client_messages import Announce, Claim, GameAction, Play, TakeMissed
from protocol.server_messages import GameView, SeenPlay


def _codes(cards: Any) -> list[str]:
    return [card_code(card) for card in cards]


#: Wire form of each history entry seen lately. The history is public and grows by one play
#: at a time, yet every viewer's snapshot carries all of it: building each entry once (a pure
#: function of the entry) made snapshots several times cheaper. Bounded like a cache.
_SEEN: dict[tuple[int, int, int, tuple[int, ...], bool], SeenPlay] = {}
_SEEN_LIMIT = 8192


def _seen_play(entry: EngineSeenPlay) -> SeenPlay:
    key = (entry.packet, entry.seat, entry.card, entry.take, entry.caida)  # hashed in C
    wire = _SEEN.get(key)
    if wire is None:
        if len(_SEEN) >= _SEEN_LIMIT:
            _SEEN.clear()
        wire = _SEEN[key] = SeenPlay(
            packet=entry.packet,
            seat=entry.seat,
            card=card_code(entry.card) if entry.card >= 0 else None,
            take=_codes(entry.take),
            caida=entry.caida,
        )
    return wire


def view_to_wire(view: View, options: dict[str, Any]) -> GameView:
    """Reshape an engine ``View`` (already this viewer's) for the wire."""
    return GameView(
        profile=view.rules.profile,
        options=options,
        seats=view.rules.seats,
        phase=view.phase.value,
        viewer=view.viewer,
        hand_number=view.hand_number,
        packet=view.packet,
        dealer=view.dealer,
        turn=view.turn,
        to_act=list(view.to_act),
        scores=list(view.scores),
        piles=list(view.pile_sizes),
        table=_codes(view.table),
        hand=None if view.hand is None else _codes(view.hand),
        hand_sizes=list(view.hand_sizes),
        undealt=view.undealt,
        caida_target=None if view.caida_target is None else card_code(view.caida_target),
        missed=_codes(view.missed),
        missed_takers=list(view.missed_takers),
        history=[_seen_play(entry) for entry in view.history],
        announced=[(seat, call) for seat, call in view.announced],
        cuarenta=None if view.cuarenta is None else (view.cuarenta[0], _codes(view.cuarenta[1])),
        claims_open=view.claims_open,
        claims_ended=list(view.claims_ended),
        claims=[(seat, rank, valid) for seat, rank, valid in view.claims],
        draw_start=view.draw_start,
        draw_cards=_codes(view.draw_cards),
        winner=view.winner,  # type: ignore[arg-type]
    )


def action_to_wire(action: EngineAction) -> GameAction:
    """A player's engine action as the message that would request it."""
    if isinstance(action, EnginePlay):
        return Play(card=card_code(action.card), take=_codes(sorted(action.take)))
    if isinstance(action, EngineTakeMissed):
        return TakeMissed()
    if isinstance(action, EngineAnnounce):
        return Announce(call=action.call)  # type: ignore[arg-type]
    if isinstance(action, EngineClaim):
        return Claim(rank=action.rank)
    raise TypeError(f"{action!r} is a system action, never sent by a client")


def action_from_wire(message: GameAction, seat: int) -> EngineAction:
    """The engine action ``seat`` requests; card codes were checked by the models (R2)."""
    if isinstance(message, Play):
        take = [parse_card(code) for code in message.take]
        if len(set(take)) != len(take):
            raise IllegalAction("R7", "take names a card twice")
        return EnginePlay(seat, parse_card(message.card), frozenset(take))
    if isinstance(message, TakeMissed):
        return EngineTakeMissed(seat)
    if isinstance(message, Announce):
        return EngineAnnounce(seat, message.call)
    return EngineClaim(seat, message.rank)


def event_to_wire(event: EngineEvent) -> dict[str, Any]:
    """An engine event (already redacted for its viewer) as a JSON-ready dict with ``type``."""
    return event.to_json()
