"""The night as a value (``server.clubs.night``): who sits where, who may enter, the season."""

from __future__ import annotations

import pytest

from server.clubs import night as nights
from server.clubs.tournament import HOUSE, TournamentError


def registered(*pairs: list[str]) -> nights.Doc:
    doc = nights.new_night(1, 0.0)
    for members in pairs:
        doc = nights.register(doc, members, 2)
    return doc


def test_a_pair_sits_in_the_first_and_third_chairs_and_its_bot_takes_the_free_place() -> None:
    doc = nights.start(registered(["Ana"], ["Beto", "Carla"]), "swiss", 1)
    places = nights.places(nights.tournament_of(doc), "p1", "p2")
    assert [(p.seat, p.name, p.level) for p in places] == [
        (0, "Ana", None),
        (1, "Beto", None),
        (2, None, 2),
        (3, "Carla", None),
    ]
    house = nights.places(nights.tournament_of(doc), "p1", HOUSE)
    assert [(p.name, p.level) for p in house if p.seat in (1, 3)] == [(None, 3), (None, 3)]


def test_a_person_plays_in_one_pair_a_night_whatever_the_case_of_the_name() -> None:
    doc = registered(["Ana", "Beto"])
    with pytest.raises(TournamentError, match="ana already plays in a pair tonight"):
        nights.register(doc, ["ana", "Zoe"], None)
    with pytest.raises(TournamentError, match="a bot level"):
        nights.register(doc, ["Zoe"], None)


def test_groups_take_nobody_after_the_draw_and_swiss_takes_a_late_pair_next_round() -> None:
    groups = nights.start(
        registered(["A1", "A2"], ["B1", "B2"], ["C1", "C2"], ["D1", "D2"]), "groups", 1
    )
    with pytest.raises(TournamentError, match="nobody enters"):
        nights.register(groups, ["Late", "Comer"], None)
    swiss = nights.start(registered(["A1", "A2"], ["B1", "B2"]), "swiss", 2)
    swiss = {**swiss, "tournament": nights.pair_next(nights.tournament_of(swiss)).to_dict()}
    late = nights.register(swiss, ["Late", "Comer"], None)
    assert nights.pairs_of(late)[-1].joined == 2


def test_the_season_counts_games_wins_and_points_per_member_across_nights() -> None:
    first = nights.start(registered(["Ana", "Beto"], ["Carla"]), "swiss", 1)
    tournament = nights.pair_next(nights.tournament_of(first))
    first = {**first, "tournament": nights.record(tournament, 1, 41, 30).to_dict()}
    second = nights.start(registered(["Carla", "Ana"], ["Beto"]), "swiss", 1)
    tournament = nights.pair_next(nights.tournament_of(second))
    second = {**second, "tournament": nights.record(tournament, 1, 20, 40).to_dict()}
    rows = {row["name"]: row for row in nights.season([first, second])}
    assert rows["Ana"] == {"name": "Ana", "games": 2, "wins": 1, "points": 61}
    assert rows["Beto"] == {"name": "Beto", "games": 2, "wins": 2, "points": 81}
    assert rows["Carla"] == {"name": "Carla", "games": 2, "wins": 0, "points": 50}
    assert [row["name"] for row in nights.season([first, second])] == ["Beto", "Ana", "Carla"]


def test_each_round_keeps_its_pace_and_a_night_stored_without_paces_reads_live() -> None:
    doc = nights.start(registered(["Ana", "Beto"], ["Carla", "Dani"]), "swiss", 2, 86400)
    doc = nights.next_round(doc, 1)  # the night's pace
    assert nights.round_pace(doc, 1)["move_deadline"] == 86400
    old = {k: v for k, v in doc.items() if k not in ("pace", "paces")}
    assert nights.round_pace(old, 1) == nights.night_pace(old) == nights.LIVE
    assert nights.public(old)["paces"] == [nights.LIVE]


def test_an_unknown_deadline_or_a_started_rounds_pace_is_refused() -> None:
    night = registered(["Ana", "Beto"], ["Carla", "Dani"])
    with pytest.raises(TournamentError, match="7200 s is not offered"):
        nights.start(night, "swiss", 2, 7200)
    doc = nights.next_round(nights.start(night, "swiss", 2), 1, 3600)
    with pytest.raises(TournamentError, match="round 1 has already started"):
        nights.next_round(doc, 1, 86400)
    with pytest.raises(TournamentError, match="not offered"):
        nights.next_round(doc, 2, 60)
    assert nights.round_pace(doc, 1)["move_deadline"] == 3600
