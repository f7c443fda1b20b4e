"""What a seat's team may claim (R10), worked out from public information only.

At the claim window every card of the hand has been played, so the public history tells
each seat's packet hands exactly: a caída whose caught card is one of three of its rank the
trailer played in that packet is a ronda-caída event (at most one per ronda).
"""

from __future__ import annotations

from engine.cards import RANKS
from engine.views import View


def entitled_claims(view: View) -> list[str]:
    """Return the ranks the viewer's team may still claim (R10), one entry per event."""
    if view.viewer is None:
        return []
    seats = view.rules.seats
    team = view.viewer & 1
    played: dict[tuple[int, int], list[int]] = {}
    for entry in view.history:
        if entry.card >= 0:
            played.setdefault((entry.packet, entry.seat), []).append(entry.card >> 2)
    events: list[str] = []
    caught: set[tuple[int, int]] = set()
    for entry in view.history:
        if entry.card < 0 or not entry.caida:
            continue
        trailer = (entry.seat - 1) % seats
        rank = entry.card >> 2
        ranks = played.get((entry.packet, trailer), [])
        if (entry.packet, trailer) in caught or ranks.count(rank) != 3:
            continue
        caught.add((entry.packet, trailer))
        if entry.seat & 1 == team:
            events.append(RANKS[rank])
    for seat, letter, valid in view.claims:
        if valid and seat & 1 == team and letter in events:
            events.remove(letter)
    return events
