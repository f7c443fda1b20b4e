"""What every bot from level 3 up does outside its plays: announce, claim, take missed cards.

These choices need no search: taking missed cards (R8) only adds to the team's pile, a valid
R10 claim only scores, and an announcement either scores, wins, or gives information away
for nothing. `routine` says whether the decision is of this kind and, if so, the action
(None: decline).
"""

from __future__ import annotations

from engine.actions import Action, Announce, Claim, TakeMissed
from engine.bots.claims import entitled_claims
from engine.phase import Phase
from engine.views import View


def _announcement(view: View, mine: list[Action]) -> Action | None:
    """Cuarenta wins at once (R6); a ronda is announced only while it scores (R6: below 30)."""
    calls = {action.call: action for action in mine if isinstance(action, Announce)}
    if "cuarenta" in calls:
        return calls["cuarenta"]
    score = view.scores[view.viewer & 1] if view.viewer is not None else 0
    if "ronda" in calls and score < view.rules.ronda_limit:
        return calls["ronda"]
    return calls.get("pass")


def routine(view: View, legal: tuple[Action, ...]) -> tuple[bool, Action | None]:
    """Return (True, action or None to decline) outside plays, (False, None) for a play."""
    mine = [action for action in legal if action.seat == view.viewer]
    for action in mine:
        if isinstance(action, TakeMissed):  # R8: the missed cards only add to our pile
            return True, action
    if view.phase is Phase.CLAIMS:  # R10: claim every event we are entitled to, nothing else
        for rank in entitled_claims(view):
            claim = Claim(view.viewer, rank)  # type: ignore[arg-type]
            if claim in mine:
                return True, claim
        return True, None
    if view.phase is Phase.ANNOUNCE:
        return True, _announcement(view, mine)
    if view.turn != view.viewer or not mine:
        return True, None
    return False, None
