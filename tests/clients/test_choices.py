"""Keys to actions (pure): a card, then one of its legal captures or a trail (R7); one key
for announcements (R6), missed cards (R8) and claims (R10)."""

from __future__ import annotations

from clients.terminal.choices import Menu
from clients.terminal.i18n import Translator
from engine.phase import Phase
from protocol import client_messages as c
from tests.clients.positions import worked_example
from tests.clients.snapshots import snapshot_of
from tests.engine.helpers import act, deal, trail_until
from tests.engine.test_play import WORKED

EN = Translator("en")


def test_choosing_a_card_lists_its_captures_biggest_first_and_trailing_last_r7_r9() -> None:
    menu = Menu(snapshot_of(worked_example(), 0))
    assert [(o.key, o.label) for o in menu.options(EN)] == [
        ("1", "3♥"),
        ("2", "5♦"),
        ("3", "6♠"),
        ("4", "J♠"),
    ]
    menu, action = menu.press("3", EN)
    assert action is None
    assert menu.card == "6S"
    assert [(o.key, o.label) for o in menu.options(EN)] == [
        ("1", "take 2♣ 4♦ 7♥ J♣ (limpia)"),
        ("2", "trail (leave it on the table)"),
    ]
    _, action = menu.press("1", EN)
    assert action == c.Play(card="6S", take=["2C", "4D", "7H", "JC"])


def test_the_match_of_the_card_just_trailed_is_shown_as_a_caida_r9() -> None:
    menu, _ = Menu(snapshot_of(worked_example(), 0)).press("4", EN)
    assert menu.options(EN)[0].label == "take J♣ (caída)"
    _, action = menu.press("enter", EN)  # Enter: the first option
    assert action == c.Play(card="JS", take=["JC"])


def test_escape_goes_back_and_unknown_keys_change_nothing() -> None:
    menu = Menu(snapshot_of(worked_example(), 0))
    chosen, _ = menu.press("2", EN)
    assert chosen.card == "5D"
    back, action = chosen.press("escape", EN)
    assert back.card is None
    assert action is None
    assert menu.press("x", EN) == (menu, None)
    assert menu.press("9", EN) == (menu, None)


def test_trailing_is_one_card_key_then_its_only_option() -> None:
    menu, _ = Menu(snapshot_of(worked_example(), 0)).press("1", EN)
    assert [o.label for o in menu.options(EN)] == ["trail (leave it on the table)"]
    assert menu.press("1", EN)[1] == c.Play(card="3H", take=[])


def test_nothing_to_choose_when_it_is_not_our_decision() -> None:
    menu = Menu(snapshot_of(worked_example(), 1))
    assert menu.options(EN) == []
    assert menu.press("1", EN) == (menu, None)


def test_manual_announcements_are_single_keys_r6() -> None:
    game = deal(3, {0: "5C 5D 5H 2S 3S"}, options={"announcements": "manual"})
    menu = Menu(snapshot_of(game, 0))
    assert [(o.key, o.label) for o in menu.options(EN)] == [("r", "announce ronda"), ("p", "pass")]
    assert menu.press("r", EN)[1] == c.Announce(call="ronda")


def test_missed_cards_are_one_key_for_the_other_team_while_it_is_not_their_turn_r8() -> None:
    game = deal(0, WORKED, options={"sequence": "manual"})
    act(game, "1 2C", "2 4D", "3 7H", "0 JC", "1 6S:2C,4D")  # 7H and JC missed
    menu = Menu(snapshot_of(game, 0))
    assert [(o.key, o.label) for o in menu.options(EN)] == [("m", "take the missed cards")]
    assert menu.press("m", EN)[1] == c.TakeMissed()
    assert ("m", "take the missed cards") in [
        (o.key, o.label) for o in Menu(snapshot_of(game, 2)).options(EN)
    ]


def test_claims_are_one_rank_key_each_in_the_claim_window_r10() -> None:
    game = deal(3, {0: "5C 5D 5H 2S 3S"})
    trail_until(game, lambda g: g.phase is Phase.CLAIMS)
    menu = Menu(snapshot_of(game, 1))
    keys = [o.key for o in menu.options(EN)]
    assert keys == ["a", "2", "3", "4", "5", "6", "7", "j", "q", "k"]
    assert menu.options(EN)[-1].label == "claim ronda-caída of K"
    assert menu.press("q", EN)[1] == c.Claim(rank="Q")
