"""The follow-up term (`engine.bots.partner`): what the seat after the next opponent makes of
a play, the partner's (pagat-4p) or the player's own next card (heads-up)."""

from __future__ import annotations

import random
from dataclasses import replace

from engine import Play, parse_card
from engine.bots import Budget, choose
from engine.bots.belief import LEVEL6, candidates_of
from engine.bots.counting import position_of, ranked_plays
from engine.bots.deep import LEVEL5
from engine.bots.partner import follow_up, partner_ranked
from engine.bots.search import candidates_of as search_candidates
from tests.engine.helpers import deal


def _trails(game_view_plays: list[Play], codes: str) -> set[Play]:
    wanted = {parse_card(code) for code in codes.split()}
    return {play for play in game_view_plays if play.card in wanted and not play.take}


def test_heads_up_keeps_the_card_that_catches_the_reply_R9_R14() -> None:
    """Heads-up, leading onto an empty table with K♠ K♦ 4♣ 4♦ 6♣: level 3 rates the four
    trails of a K or a 4 alike (two of each rank unseen: the same caída-and-limpia risk).
    After a 4 the player keeps 6♣, which cleans the table when the reply is an A or a 2
    (a sum with the 4, R7), and the other 4 and the Ks, which catch a trailed 4 or K: the
    follow-up prefers trailing a 4."""
    game = deal(1, {0: "KS KD 4C 4D 6C"}, profile="heads-up")
    view = game.view(0)
    plays = [a for a in game.legal_actions(0) if isinstance(a, Play)]
    level3 = ranked_plays(position_of(view), plays)
    tied = {play for worth, play in level3 if worth == level3[0][0]}
    assert tied == _trails(plays, "KS KD 4C 4D")
    ranked = partner_ranked(view, plays)
    assert ranked[0][1] in _trails(plays, "4C 4D")
    assert ranked[0][0] > max(w for w, p in ranked if p in _trails(plays, "KS KD")) + 0.3
    assert candidates_of(view, plays, LEVEL6)[0] in _trails(plays, "4C 4D")


def test_the_partner_is_left_a_limpia_more_often_after_the_4_R9() -> None:
    """The same hand leading in pagat-4p: after a trailed 4 the partner (two seats on) cleans
    the table of the 4 and the opponent's trail with a sum or a sequence more often than
    after a trailed K (nothing sums with a figure), so the follow-up is worth more."""
    game = deal(3, {0: "KS KD 4C 4D 6C"})
    view = game.view(0)
    pos = position_of(view)
    four, king = Play(0, parse_card("4C")), Play(0, parse_card("KS"))
    partner = view.hand_sizes[2]
    assert follow_up(pos, four, partner) > follow_up(pos, king, partner) + 0.2
    assert partner_ranked(view, [king, four])[0][1] == four


def test_no_follow_up_without_a_follower_in_the_packet_R4_R9() -> None:
    """No follow-up when the partner has no card left in the packet, nor when the play is
    the packet's last or the opponent's reply is (the next packet's first play is never a
    caída, R9)."""
    game = deal(3, {0: "KS KD 4C 4D 6C"})
    view = game.view(0)
    pos = position_of(view)
    four = Play(0, parse_card("4C"))
    assert follow_up(pos, four, 0) == 0.0
    assert follow_up(replace(pos, caida_next=False), four, 4) == 0.0
    assert follow_up(replace(pos, next_hand=0, caida_next=False), four, 4) == 0.0
    assert follow_up(pos, four, 4) > 0.0


def test_level_6_stops_at_its_deadline() -> None:
    """Under a deadline level 6 checks the clock between playouts, starts no deal the last
    one's time says would end past it, and stops at the first check past it: a clock that
    ticks once a call is read at most once past the deadline, and the time is used."""
    game = deal(1, {0: "KS KD 4C 4D 6C"}, profile="heads-up")
    ticks = [0.0]
    late = []

    def clock() -> float:
        ticks[0] += 1.0
        if ticks[0] >= 30.0:
            late.append(ticks[0])
        return ticks[0]

    budget = Budget(deadline=30.0, clock=clock)
    action = choose(6, game.view(0), game.legal_actions(0), random.Random(1), budget)
    assert isinstance(action, Play)
    assert len(late) <= 1
    assert ticks[0] >= 20.0


def test_in_pagat_4p_level_3s_best_stands_and_the_follow_up_adds_its_favourite() -> None:
    """In pagat-4p the follow-up does not rank level 6's plays (ranked first, it lost to level
    5 as served): level 3's best stands unless beaten clearly, level 5's candidates are all
    weighed, and the play the follow-up likes best is weighed too."""
    game = deal(3, {0: "KS KD 4C 4D 6C"})
    view = game.view(0)
    plays = [a for a in game.legal_actions(0) if isinstance(a, Play)]
    mine, level5 = candidates_of(view, plays, LEVEL6), search_candidates(view, plays, LEVEL5)
    favourite = partner_ranked(view, plays)[0][1]
    assert favourite in _trails(plays, "4C 4D")
    assert mine[0] == level5[0] == ranked_plays(position_of(view), plays)[0][1]
    assert set(level5) <= set(mine)
    assert favourite in mine
