"""A person at a ladder chica, played by the tests' own greedy policy over the protocol."""

from __future__ import annotations

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s

WAIT_S = 30.0


def greedy(legal: list[c.GameAction]) -> c.GameAction:
    """The legal move taking the most cards (figures count extra), else the lowest trail."""
    plays = [action for action in legal if isinstance(action, c.Play)]
    if not plays:
        return legal[0]

    def worth(play: c.Play) -> tuple[int, int]:
        return len(play.take), -"A234567JQK".index(play.card[0]) if not play.take else 0

    return max(plays, key=worth)


async def play_to_the_end(session: ClientSession) -> s.Snapshot:
    """Play every decision of ``session``'s seat greedily until the game is over."""
    while True:
        snap = await session.next_snapshot(wait_s=WAIT_S)
        if snap.view is not None and snap.view.phase == "finished":
            return snap
        if snap.legal and snap.last_event == session.last_event:
            await session.act(greedy(snap.legal))
