"""R2: cards, codes and ranks."""

from __future__ import annotations

import pytest

from engine import IllegalAction, card_code, parse_card, rank_of, suit_of, value_of
from engine.cards import DECK, RANKS, parse_rank


def test_the_pack_is_40_cards_of_ten_ranks_in_four_suits_R2() -> None:
    assert len(DECK) == 40
    assert {card_code(card) for card in DECK} == {r + s for r in RANKS for s in "CDHS"}


def test_codes_parse_either_case_and_are_written_upper_case_R2() -> None:
    assert parse_card("6s") == parse_card("6S")
    assert card_code(parse_card("jd")) == "JD"
    assert all(parse_card(card_code(card)) == card for card in DECK)


def test_sequence_order_puts_j_after_7_and_k_last_R2() -> None:
    order = sorted(DECK, key=rank_of)
    assert [card_code(c)[0] for c in order[::4]] == list("A234567JQK")
    assert rank_of(parse_card("JC")) == rank_of(parse_card("7C")) + 1


def test_figures_have_no_numeric_value_R2() -> None:
    assert [value_of(rank) for rank in range(10)] == [1, 2, 3, 4, 5, 6, 7, None, None, None]


def test_suits_follow_the_contract_numbering_R2() -> None:
    assert [suit_of(parse_card(code)) for code in ("AC", "AD", "AH", "AS")] == [0, 1, 2, 3]


@pytest.mark.parametrize("text", ["8C", "1C", "AX", "", "10H", "K"])
def test_unknown_codes_are_refused_naming_R2(text: str) -> None:
    with pytest.raises(IllegalAction, match="R2"):
        parse_card(text)


def test_ranks_parse_either_case_R2() -> None:
    assert parse_rank("j") == 7
    with pytest.raises(IllegalAction, match="R2"):
        parse_rank("8")
