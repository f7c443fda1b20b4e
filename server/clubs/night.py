"""A club night as a value: its pairs before the start, its tournament, the tables of its rounds.

The night is the plain JSON document the shell (``server.clubs``) keeps in the store; these
pure functions read and change it, so the rules of who sits where, what a finished game records
and what the season counts are tested without a server.

- **Seats.** At a round's table, pair ``a`` sits in seats 0 and 2 (team 0), pair ``b`` in seats
  1 and 3 (team 1). A pair's members take its seats in order; a place without a member is its
  bot's (the pair's level); the house pair is two bots of ``HOUSE_LEVEL``.
- **Results.** A table's first finished game is the match's result, team 0's final score for
  pair ``a``. A knock-out game needs a winner: a level game is played again at the same table.
- **The season** counts, per member, the games, wins and game points of every night's matches.
- **Pace** (issue 41). The host chooses at the start how the night's rounds are played — live
  (``move_deadline`` 0) or turn-based with a deadline per move (1 h, 12 h, 24 h, 3 days) — and
  may choose again for each round when starting it. The night keeps its pace (``pace``) and
  each started round's (``paces``, one a round in order); a night stored before paces existed
  has neither key and reads as live throughout (``round_pace``). At a deadline the stand-in
  plays that one turn (``on_deadline`` ``stand_in``: the only rule a club round uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.clubs import knockout, swiss
from server.clubs.standings import Standing
from server.clubs.tournament import HOUSE, Pair, TournamentError

Tournament = swiss.SwissNight | knockout.GroupsNight
Doc = dict[str, Any]
HOUSE_LEVEL = 3
SEATS_OF = {"a": (0, 2), "b": (1, 3)}
LIVE: Doc = {"move_deadline": 0, "on_deadline": "stand_in"}
DEADLINES = (0, 3600, 43200, 86400, 259200)  # protocol.base.MoveDeadline: live, 1 h … 3 days


@dataclass(frozen=True, slots=True)
class Place:
    """Who sits in one seat of a round's table: a member (``name``) or a bot (``level``)."""

    seat: int
    name: str | None
    level: int | None


def new_night(number: int, now: float) -> Doc:
    return {"number": number, "opened": now, "pairs": [], "tournament": None, "tables": {}}


def pairs_of(night: Doc) -> tuple[Pair, ...]:
    if night["tournament"] is not None:
        return tournament_of(night).pairs
    return tuple(Pair.from_dict(pair) for pair in night["pairs"])


def register(night: Doc, members: list[str], bot_level: int | None) -> Doc:
    """``night`` with a new pair; refused if one of its members already plays in a pair."""
    playing = {name.casefold() for pair in pairs_of(night) for name in pair.members}
    if len({m.casefold() for m in members}) != len(members):
        raise TournamentError("a pair is two different people")
    taken = [m for m in members if m.casefold() in playing]
    if taken:
        raise TournamentError(f"{', '.join(taken)} already plays in a pair tonight")
    level = bot_level if len(members) < 2 else None
    pair = Pair(f"p{len(pairs_of(night)) + 1}", tuple(members), level)
    if night["tournament"] is None:
        return {**night, "pairs": [*night["pairs"], pair.to_dict()]}
    tournament = tournament_of(night)
    if not isinstance(tournament, swiss.SwissNight):
        raise TournamentError("nobody enters once the groups are drawn")
    return {**night, "tournament": swiss.enter(tournament, pair).to_dict()}


def start(night: Doc, fmt: str, rounds: int, move_deadline: int = 0) -> Doc:
    """The night started: its tournament drawn, its rounds played at ``move_deadline``."""
    if night["tournament"] is not None:
        raise TournamentError("the night has already started")
    pace = _pace(move_deadline)
    pairs = pairs_of(night)
    begun = swiss.start(pairs, rounds) if fmt == "swiss" else knockout.start(pairs)
    return {**night, "tournament": begun.to_dict(), "pace": pace, "paces": []}


def next_round(night: Doc, number: int, move_deadline: int | None = None) -> Doc:
    """Round ``number`` (the next one) paired, played at ``move_deadline`` (None: the night's
    pace); refused for a round that started already or is not the next."""
    tournament = tournament_of(night)
    played = len(tournament.rounds)
    if number <= played:
        raise TournamentError(f"round {number} has already started: its pace stays as it is")
    if number != played + 1:
        raise TournamentError(f"the next round is round {played + 1}, not {number}")
    pace = night_pace(night) if move_deadline is None else _pace(move_deadline)
    paces = [round_pace(night, n) for n in range(1, played + 1)]
    paired = pair_next(tournament)
    return {**night, "tournament": paired.to_dict(), "paces": [*paces, pace]}


def night_pace(night: Doc) -> Doc:
    """The pace the host chose for the night (live for a night stored before paces)."""
    return dict(night.get("pace") or LIVE)


def round_pace(night: Doc, number: int) -> Doc:
    """How round ``number`` is played: as started; live for a round stored without a pace."""
    paces = night.get("paces") or []
    return dict(paces[number - 1]) if 0 < number <= len(paces) else dict(LIVE)


def _pace(move_deadline: int) -> Doc:
    if move_deadline not in DEADLINES:
        raise TournamentError(
            f"a move deadline of {move_deadline} s is not offered: 0 (live), 3600, 43200, "
            "86400 or 259200"
        )
    return {"move_deadline": move_deadline, "on_deadline": "stand_in"}


def tournament_of(night: Doc) -> Tournament:
    data = night["tournament"]
    if data is None:
        raise TournamentError("the night has not started: register the pairs, then start it")
    if data["format"] == "swiss":
        return swiss.SwissNight.from_dict(data)
    return knockout.GroupsNight.from_dict(data)


def finished(tournament: Tournament) -> bool:
    if isinstance(tournament, swiss.SwissNight):
        return tournament.finished
    return tournament.champion is not None


def standings(tournament: Tournament) -> tuple[Standing, ...]:
    from server.clubs.standings import standings as ranked

    return ranked([pair.id for pair in tournament.pairs], tournament.matches)


def places(tournament: Tournament, a: str, b: str) -> list[Place]:
    """The four seats of a table where pair ``a`` meets pair ``b`` (see the module's note)."""
    by_id = {pair.id: pair for pair in tournament.pairs}
    seats: list[Place] = []
    for side, pair_id in (("a", a), ("b", b)):
        pair = by_id.get(pair_id)
        for index, seat in enumerate(SEATS_OF[side]):
            if pair is None:  # the house pair
                seats.append(Place(seat, None, HOUSE_LEVEL))
            elif index < len(pair.members):
                seats.append(Place(seat, pair.members[index], None))
            else:
                seats.append(Place(seat, None, pair.bot_level or HOUSE_LEVEL))
    return sorted(seats, key=lambda place: place.seat)


def record(tournament: Tournament, table: int, score_a: int, score_b: int) -> Tournament:
    if isinstance(tournament, swiss.SwissNight):
        return swiss.record(tournament, table, score_a, score_b)
    return knockout.record(tournament, table, score_a, score_b)


def pair_next(tournament: Tournament) -> Tournament:
    if isinstance(tournament, swiss.SwissNight):
        return swiss.pair_next(tournament)
    return knockout.pair_next(tournament)


def withdraw(tournament: Tournament, pair: str) -> Tournament:
    if isinstance(tournament, swiss.SwissNight):
        return swiss.withdraw(tournament, pair)
    return knockout.withdraw(tournament, pair)


def season(nights: list[Doc]) -> list[dict[str, Any]]:
    """Per member across ``nights``: games, wins, game points; most wins, then points first."""
    rows: dict[str, dict[str, Any]] = {}
    for night in nights:
        if night.get("tournament") is None:
            continue
        tournament = tournament_of(night)
        by_id = {pair.id: pair for pair in tournament.pairs}
        for match in tournament.matches:
            if match.score_a is None or match.score_b is None:
                continue
            for pair_id, scored in ((match.a, match.score_a), (match.b, match.score_b)):
                if pair_id == HOUSE:
                    continue
                for name in by_id[pair_id].members:
                    row = rows.setdefault(name, {"name": name, "games": 0, "wins": 0, "points": 0})
                    row["games"] += 1
                    row["wins"] += int(match.winner == pair_id)
                    row["points"] += scored
    return sorted(rows.values(), key=lambda row: (-row["wins"], -row["points"], row["name"]))


def public(night: Doc) -> Doc:
    """What everyone may see of a night: its tables without their host keys, plus standings."""
    played = 0 if night["tournament"] is None else len(night["tournament"].get("rounds", []))
    view: Doc = {
        "number": night["number"],
        "pairs": [pair.to_dict() for pair in pairs_of(night)],
        "tournament": night["tournament"],
        "pace": night_pace(night),
        "paces": [round_pace(night, number) for number in range(1, played + 1)],
        "tables": {
            number: {key: value for key, value in table.items() if key != "host"}
            for number, table in night["tables"].items()
        },
        "standings": [],
        "finished": False,
        "champion": None,
    }
    if night["tournament"] is not None:
        tournament = tournament_of(night)
        view["standings"] = [
            {**_standing(row), "members": _members(tournament, row.pair)}
            for row in standings(tournament)
        ]
        view["finished"] = finished(tournament)
        if isinstance(tournament, knockout.GroupsNight):
            view["champion"] = tournament.champion
    return view


def _standing(row: Standing) -> dict[str, Any]:
    return {
        "pair": row.pair,
        "played": row.played,
        "won": row.won,
        "drawn": row.drawn,
        "lost": row.lost,
        "points": row.match_points,
        "difference": row.difference,
        "points_for": row.points_for,
    }


def _members(tournament: Tournament, pair_id: str) -> list[str]:
    for pair in tournament.pairs:
        if pair.id == pair_id:
            return list(pair.members)
    return []
