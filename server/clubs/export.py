"""A club's results as a file to download: CSV for a spreadsheet, JSON for a program.

Every name in the export was typed by a player, so a CSV cell must never become a formula when a
spreadsheet opens it (OWASP, "CSV Injection"): a text cell that begins with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return gets a leading ``'`` (the spreadsheet shows the text as typed),
and every text cell is quoted; numbers (scores, game numbers, hands) are written as numbers, so a
negative one stays a number. The JSON form carries the same rows unescaped: JSON is data, never
evaluated.

A team is named by its players as the table names them (``clients/web/js/seats.js``
``teamPlayers``): a person by name, a bot by its seat's compass and level ("North bot (level 3)"),
since several bots share one generic name and "Bot 3 & Bot 3" says nothing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
COMPASS_4 = ("South", "West", "North", "East")  # seat 0..3, as the web client's seats.js
COMPASS_2 = ("South", "North")

CSV_COLUMNS = [
    "date",
    "table",
    "game",
    "profile",
    "seat_0",
    "seat_1",
    "seat_2",
    "seat_3",
    "team_0",
    "team_1",
    "score_0",
    "score_1",
    "winner",
    "hands",
]


def safe_cell(value: object) -> object:
    """A CSV cell that a spreadsheet shows as written: numbers as they are, text defused.

    >>> safe_cell('=HYPERLINK("http://e.x","y")'), safe_cell(-3), safe_cell("Ana")
    ('\\'=HYPERLINK("http://e.x","y")', -3, 'Ana')
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def compass(seat: int, seats: int) -> str:
    return (COMPASS_2 if seats == 2 else COMPASS_4)[seat]


def player_label(player: Mapping[str, Any], seats: int) -> str:
    """A person by name (the compass if nameless), a bot by compass and level."""
    where = compass(player["seat"], seats)
    if player.get("bot_level") is not None:
        return f"{where} bot (level {player['bot_level']})"
    return str(player.get("name") or where)


def team_label(players: Sequence[Mapping[str, Any]], team: int, seats: int) -> str:
    """ "Ana and North bot (level 3)": the team's players, in seat order."""
    return " and ".join(player_label(p, seats) for p in players if p["team"] == team)


def worded(result: Mapping[str, Any]) -> dict[str, Any]:
    """The result with its seats and teams named for people (``seat_names``, ``teams``)."""
    seats = int(result.get("seats") or len(result["players"]))
    players = result["players"]
    return {
        **result,
        "seat_names": [player_label(p, seats) for p in players],
        "teams": [team_label(players, team, seats) for team in (0, 1)],
    }


def csv_row(result: Mapping[str, Any]) -> list[object]:
    named = worded(result)
    seat_names = [*named["seat_names"], "", "", "", ""][:4]
    winner = result["winner"]
    row = [
        result["ended"],
        result["table"],
        result["game"],
        result["profile"],
        *seat_names,
        *named["teams"],
        *result["scores"],
        "" if winner is None else winner,
        len(result["hands"]),
    ]
    return [safe_cell(cell) for cell in row]


def results_csv(results: Sequence[Mapping[str, Any]]) -> str:
    """One row per finished game under ``CSV_COLUMNS``; text quoted, formulas defused."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_row(result) for result in results)
    return out.getvalue()


def results_json(club: str, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The same rows for a program: the stored result plus its worded seats and teams."""
    return {"club": club, "columns": CSV_COLUMNS, "results": [worded(r) for r in results]}
