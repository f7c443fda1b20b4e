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
from engine.memo import keep
from engine.phase import Phase
from engine.rules import resolve_rules
from engine.views import SeenPlay as EngineSeenPlay
from engine.views import View
from protocol.client_messages import Announce, Claim, GameAction, Play, TakeMissed
from protocol.server_messages import GameView


def card_codes(cards: Any) -> list[str]:
    """Cards as their R2 codes."""
    return [card_code(card) for card in cards]


#: Wire form of each history entry seen lately. The history is public and grows by one play
#: at a time, yet every snapshot carries all of it: building each entry once (a pure function of
#: the entry) keeps snapshots cheap. Bounded like a cache; the dicts are never mutated.
_SEEN: dict[tuple[int, int, int, tuple[int, ...], bool], dict[str, Any]] = {}
_SEEN_LIMIT = 8192


def seen_play_fields(entry: EngineSeenPlay) -> dict[str, Any]:
    """One history entry's ``SeenPlay`` JSON form, built once (never mutate it)."""
    key = (entry.packet, entry.seat, entry.card, entry.take, entry.caida)  # hashed in C
    wire = _SEEN.get(key)
    if wire is None:
        fields = {
            "packet": entry.packet,
            "seat": entry.seat,
            "card": card_code(entry.card) if entry.card >= 0 else None,
            "take": card_codes(entry.take),
            "caida": entry.caida,
        }
        wire = keep(_SEEN, key, fields, _SEEN_LIMIT)
    return wire


def view_fields(view: View, options: dict[str, Any], with_history: bool = True) -> dict[str, Any]:
    """An engine ``View`` (already this viewer's) as ``GameView``'s JSON form, without building
    the model: a server sends one after every change, so this is its hot path. The keys are
    GameView's fields; ``view_to_wire`` validates the same dict. ``with_history=False`` leaves
    the history out, for a caller that encodes it entry by entry (``seen_play_fields``)."""
    fields = {
        "profile": view.rules.profile,
        "options": options,
        "seats": view.rules.seats,
        "phase": view.phase.value,
        "viewer": view.viewer,
        "hand_number": view.hand_number,
        "packet": view.packet,
        "dealer": view.dealer,
        "turn": view.turn,
        "to_act": list(view.to_act),
        "scores": list(view.scores),
        "piles": list(view.pile_sizes),
        "table": card_codes(view.table),
        "hand": None if view.hand is None else card_codes(view.hand),
        "hand_sizes": list(view.hand_sizes),
        "undealt": view.undealt,
        "caida_target": None if view.caida_target is None else card_code(view.caida_target),
        "missed": card_codes(view.missed),
        "missed_takers": list(view.missed_takers),
        "announced": [[seat, call] for seat, call in view.announced],
        "rondas": [[packet, seat] for packet, seat in view.rondas],
        "cuarenta": None
        if view.cuarenta is None
        else [view.cuarenta[0], card_codes(view.cuarenta[1])],
        "claims_open": view.claims_open,
        "claims_ended": list(view.claims_ended),
        "claims": [[seat, rank, valid] for seat, rank, valid in view.claims],
        "draw_start": view.draw_start,
        "draw_cards": card_codes(view.draw_cards),
        "winner": view.winner,
    }
    if with_history:
        fields["history"] = [seen_play_fields(entry) for entry in view.history]
    return fields


def view_to_wire(view: View, options: dict[str, Any]) -> GameView:
    """Reshape an engine ``View`` (already this viewer's) for the wire, as a validated model."""
    return GameView.model_validate(view_fields(view, options))


def _cards(codes: list[str]) -> tuple[int, ...]:
    return tuple(parse_card(code) for code in codes)


def view_from_wire(wire: GameView) -> View:
    """The engine ``View`` a wire view was made from: the exact inverse of ``view_to_wire``,
    so a client-side bot decides from precisely what the server's own bot seat would see."""
    return View(
        viewer=wire.viewer,
        rules=resolve_rules(wire.profile, wire.options),
        phase=Phase(wire.phase),
        hand_number=wire.hand_number,
        packet=wire.packet,
        dealer=wire.dealer,
        turn=wire.turn,
        to_act=tuple(wire.to_act),
        scores=(wire.scores[0], wire.scores[1]),
        pile_sizes=(wire.piles[0], wire.piles[1]),
        table=_cards(wire.table),
        hand=None if wire.hand is None else _cards(wire.hand),
        hand_sizes=tuple(wire.hand_sizes),
        undealt=wire.undealt,
        caida_target=None if wire.caida_target is None else parse_card(wire.caida_target),
        missed=_cards(wire.missed),
        missed_takers=tuple(wire.missed_takers),
        history=tuple(
            EngineSeenPlay(
                entry.packet,
                entry.seat,
                -1 if entry.card is None else parse_card(entry.card),
                _cards(entry.take),
                entry.caida,
            )
            for entry in wire.history
        ),
        announced=tuple((seat, call) for seat, call in wire.announced),
        rondas=tuple((packet, seat) for packet, seat in wire.rondas),
        cuarenta=None if wire.cuarenta is None else (wire.cuarenta[0], _cards(wire.cuarenta[1])),
        claims_open=wire.claims_open,
        claims_ended=(wire.claims_ended[0], wire.claims_ended[1]),
        claims=tuple((seat, rank, valid) for seat, rank, valid in wire.claims),
        draw_start=wire.draw_start,
        draw_cards=_cards(wire.draw_cards),
        winner=wire.winner,
    )


#: Each offered action's wire form, built once: a decision's legal list is sent after every
#: change, and engine actions are small immutable values. Bounded like a cache.
_ACTIONS: dict[EngineAction, dict[str, Any]] = {}
_ACTIONS_LIMIT = 8192


def action_fields(action: EngineAction) -> dict[str, Any]:
    """``action_to_wire(action)``'s JSON form, built once per action (never mutate it)."""
    wire = _ACTIONS.get(action)
    if wire is None:
        fields = action_to_wire(action).model_dump(mode="json")
        wire = keep(_ACTIONS, action, fields, _ACTIONS_LIMIT)
    return wire


def action_to_wire(action: EngineAction) -> GameAction:
    """A player's engine action as the message that would request it."""
    if isinstance(action, EnginePlay):
        return Play(card=card_code(action.card), take=card_codes(sorted(action.take)))
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


def legal_from_wire(legal: list[GameAction], seat: int) -> tuple[EngineAction, ...]:
    """A snapshot's legal messages as engine actions of ``seat``, in the same order."""
    return tuple(action_from_wire(message, seat) for message in legal)
