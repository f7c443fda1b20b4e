"""R13 options and R14 profiles: defaults, every allowed value, and what is refused."""

from __future__ import annotations

import pytest

from engine import Game, InvalidOptions, resolve_rules
from engine.rules import OPTION_VALUES


def test_pagat_4p_is_the_default_with_every_option_at_its_first_value_R13() -> None:
    rules = resolve_rules()
    assert rules.profile == "pagat-4p"
    assert rules.seats == 4
    for name, values in OPTION_VALUES.items():
        assert getattr(rules, name) == values[0]


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, value) for name, values in OPTION_VALUES.items() for value in values],
)
def test_every_r13_value_is_accepted_in_pagat_4p_R13(name: str, value: object) -> None:
    assert getattr(resolve_rules("pagat-4p", {name: value}), name) == value


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"ronda_points": 3},
        {"ronda_points": True},
        {"capture_mandatory": 1},
        {"target": 30},
        {"sequence": "AUTO"},
        {"special_claims": None},
    ],
)
def test_unknown_options_and_out_of_range_values_are_refused_R13(
    options: dict[str, object],
) -> None:
    with pytest.raises(InvalidOptions, match="R13"):
        Game.new("pagat-4p", options)


def test_unknown_profiles_are_refused_R14() -> None:
    with pytest.raises(InvalidOptions, match="R14"):
        resolve_rules("pagat-6p")


def test_heads_up_fixes_its_rules_R14() -> None:
    rules = resolve_rules("heads-up")
    assert (rules.seats, rules.capture_mandatory, rules.sequence, rules.ronda_points) == (
        2,
        True,
        "auto",
        2,
    )
    assert rules.special_claims == "off"
    assert rules.four_of_a_kind == "wins"
    assert rules.double_four_draws
    assert rules.count_at_38


def test_libre_2p_fixes_its_rules_R14() -> None:
    rules = resolve_rules("libre-2p")
    assert (rules.seats, rules.capture_mandatory, rules.sequence, rules.ronda_points) == (
        2,
        False,
        "manual",
        4,
    )
    assert not rules.forfeiture
    assert rules.four_of_a_kind == "ronda"
    assert rules.ronda_limit == 38
    assert not rules.count_at_38


@pytest.mark.parametrize("profile", ["heads-up", "libre-2p"])
@pytest.mark.parametrize(
    ("name", "value"),
    [("direction", "counterclockwise"), ("misdeal_penalty", "ten"), ("misdeal_penalty", "two")],
)
def test_two_player_profiles_take_direction_and_misdeal_penalty_R14(
    profile: str, name: str, value: object
) -> None:
    assert getattr(resolve_rules(profile, {name: value}), name) == value


@pytest.mark.parametrize(
    ("profile", "options"),
    [
        ("heads-up", {"capture_mandatory": False}),
        ("heads-up", {"sequence": "manual"}),
        ("heads-up", {"ronda_points": 4}),
        ("heads-up", {"special_claims": "claim"}),
        ("libre-2p", {"sequence": "auto"}),
        ("libre-2p", {"announcements": "manual"}),
        ("libre-2p", {"capture_mandatory": True}),
    ],
)
def test_r14_fixed_rules_cannot_be_changed_R14(profile: str, options: dict[str, object]) -> None:
    with pytest.raises(InvalidOptions, match="R14"):
        resolve_rules(profile, options)


def test_a_fixed_rule_given_its_own_value_is_accepted_R14() -> None:
    assert resolve_rules("heads-up", {"capture_mandatory": True}).capture_mandatory
