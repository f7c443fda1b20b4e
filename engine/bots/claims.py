"""What a seat's team may claim (R10), worked out from public information only.

At the claim window every card of the hand has been played, so the public history tells
each seat's packet hands exactly; `engine.determinize.ronda_caida_events` (the one reading
of R10 that sampled games share) turns them into the hand's events.
"""

from __future__ import annotations

from engine.cards import RANKS
from engine.determinize import played_cards, ronda_caida_events
from engine.views import View


def entitled_claims(view: View) -> list[str]:
    """Return the ranks the viewer's team may still claim (R10), one entry per event."""
    if view.viewer is None:
        return []
    events, _ = ronda_caida_events(view, played_cards(view))
    return [RANKS[rank] for team, rank in events if team == view.viewer & 1]
