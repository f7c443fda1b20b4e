"""Every deadline is computed once (``server.core.clocks``): the deadlines a viewer is shown are
the ones the server acts on — nothing happens before them, and their action happens at them."""

from __future__ import annotations

import itertools

from engine.phase import Phase
from protocol import client_messages as c
from protocol import server_messages as s
from server.bots import decide
from server.config import Settings
from server.core.referee import Outcome, Referee
from tests.server.core.drive import attach, bot_act, detach, handle, tick

T0 = 1_000_000.0
EARLY = 1e-3
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.5, away_turn_s=5).referee_config()


def shown_to(out: Outcome, conn: str, before: list[s.Deadline]) -> list[s.Deadline]:
    """The deadlines ``conn`` is shown after ``out``: its last snapshot's or deadlines message's."""
    shown = before
    for to, message in out.sent():
        if to == conn and isinstance(message, s.Snapshot | s.Deadlines):
            shown = message.deadlines
    return shown


def test_published_deadlines_are_the_ones_acted_on_turn_grace_and_claims_r10() -> None:
    """Over games (until a claim window that can score is left to its clock, R10)."""
    acted: set[str] = set()
    for seed in range(11, 71):
        acted |= play_on_the_clocks(seed)
        if acted >= {"turn", "grace", "claims"}:
            break
    assert acted >= {"turn", "grace", "claims"}, f"the games showed only {sorted(acted)}"


def caida_of(ref: Referee) -> c.Play | None:
    """Ana's caída (R9) if she has one now: it gives her team a claim that can score (R10)."""
    game = ref.table.game
    assert game is not None
    target = game.caida_target
    if game.phase is not Phase.PLAY or game.turn != 0 or target is None:
        return None
    code = "A234567JQK"[target >> 2] + "CDHS"[target & 3]
    for action in ref.snapshot(ref.table.viewers["ana"]).legal:
        if isinstance(action, c.Play) and action.take[:1] == [code] and action.card[0] == code[0]:
            return action
    return None


def play_on_the_clocks(seed: int) -> set[str]:
    """A game where ana makes only her caídas (else her turn clock runs out), never claims, and
    beto is away: every deadline, as shown to ana, is checked against what happens just before
    it and at it; the kinds acted on."""
    seeds = itertools.count(seed)
    ref = Referee.create("pagat-4p", {}, 15, CONFIG, seeds=lambda: next(seeds))
    attach(ref, "host", "Host", c.Watch(key=ref.table.keys["host"]), "host", T0)
    for conn, seat in (("ana", 0), ("beto", 2)):
        attach(ref, conn, conn.title(), c.Join(key=ref.table.keys["join"], seat=seat), "join", T0)
    for seat in (1, 3):
        handle(ref, "host", c.AddBot(level=1, seat=seat), T0)
    shown = shown_to(handle(ref, "host", c.Start(), T0), "ana", [])
    shown = shown_to(detach(ref, "beto", T0 + 1), "ana", shown)  # beto's grace starts
    acted: set[str] = set()
    now = T0 + 1
    for _ in range(5000):
        if ref.table.stage != "playing" or "claims" in acted:
            break
        caida = caida_of(ref)
        if caida is not None:
            shown = shown_to(handle(ref, "ana", caida, now), "ana", shown)
            continue
        # the deadlines still ahead (a passed one may stay on screen until the next change)
        published = sorted((d.kind, d.seat, d.at) for d in shown if d.at > now)
        assert published == sorted((d.kind, d.seat, d.at) for d in ref.deadlines(now))
        wake = ref.next_wakeup()
        assert wake is not None, "a game in progress always has something due"
        assert all(at >= wake for _, _, at in published), "the wake-up is never past a deadline"
        # just before the wake-up: nothing is due, so nothing happens
        early = tick(ref, wake - EARLY)
        assert not early.dirty
        assert not early.entries
        assert early.bots == []
        now = wake
        out = tick(ref, now)
        requests = out.bots
        for kind, seat, at in published:
            if at != now:
                continue
            if kind in ("turn", "announce"):  # the stand-in decides for the person, now
                assert seat in [request.seat for request in requests]
            elif kind == "claims":
                assert ref.table.game is not None
                assert ref.table.game.phase is not Phase.CLAIMS
            elif kind == "grace":
                assert seat is not None
                assert ref.table.seats[seat].open, "the grace ended: the seat is open to newcomers"
            acted.add(kind)
        shown = shown_to(out, "ana", shown)
        for request in requests:
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            shown = shown_to(bot_act(ref, request, action, now), "ana", shown)
    return acted
