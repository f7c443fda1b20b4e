"""Rebuild the engine's `View` of one seat from the wire's `GameView`, for ``engine.bots``.

The server builds the wire view from ``engine.views.view_of`` through ``protocol.convert``;
this is the exact inverse (card codes back to ints, lists back to tuples, the rules resolved
from the profile and options), so a wire bot decides from precisely what the server's own
bot seat would see — its seat's view and nothing more (invariant 1).

The one public fact the wire view does not carry yet, this hand's announced rondas (R6; the
engine view's ``rondas``), is read from the events the seat received: `rondas_seen`.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import Action
from engine.cards import parse_card
from engine.phase import Phase
from engine.rules import resolve_rules
from engine.views import SeenPlay, View
from protocol import client_messages as c
from protocol.convert import action_from_wire
from protocol.server_messages import Event, GameView


def _cards(codes: list[str]) -> tuple[int, ...]:
    return tuple(parse_card(code) for code in codes)


def rondas_seen(events: Iterable[Event]) -> tuple[tuple[int, int], ...]:
    """(packet, seat) of every ronda announced in the latest hand, from the event log (R6)."""
    rondas: list[tuple[int, int]] = []
    packet = 0
    for event in events:
        body = event.event
        if not isinstance(body, dict):
            continue
        kind = body.get("type")
        if kind == "hand_started":
            rondas, packet = [], 0
        elif kind == "packet_dealt" and isinstance(body.get("packet"), int):
            packet = int(body["packet"])  # type: ignore[arg-type]
        elif kind == "announced" and body.get("call") == "ronda":
            rondas.append((packet, int(body["seat"])))  # type: ignore[arg-type]
    return tuple(rondas)


def view_from_wire(wire: GameView,
                   rondas: tuple[tuple[int, int], ...] | None = None) -> View:
    """The engine `View` the wire view was made from (``rondas``: see `rondas_seen`)."""
    wired = getattr(wire, "rondas", None)  # once the wire view carries them, they win
    if wired is not None:
        rondas = tuple((int(packet), int(seat)) for packet, seat in wired)
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
            SeenPlay(entry.packet, entry.seat,
                     -1 if entry.card is None else parse_card(entry.card),
                     _cards(entry.take), entry.caida)
            for entry in wire.history
        ),
        announced=tuple((seat, call) for seat, call in wire.announced),
        rondas=rondas or (),
        cuarenta=None if wire.cuarenta is None else (wire.cuarenta[0], _cards(wire.cuarenta[1])),
        claims_open=wire.claims_open,
        claims_ended=(wire.claims_ended[0], wire.claims_ended[1]),
        claims=tuple((seat, rank, valid) for seat, rank, valid in wire.claims),
        draw_start=wire.draw_start,
        draw_cards=_cards(wire.draw_cards),
        winner=wire.winner,
    )


def legal_from_wire(legal: list[c.GameAction], seat: int) -> tuple[Action, ...]:
    """The snapshot's legal messages as engine actions of ``seat``, in the same order."""
    return tuple(action_from_wire(message, seat) for message in legal)
