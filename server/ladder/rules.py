"""The streak ladder of the ``heads-up`` profile (R14), as pure values and transitions.

A single person plays chica after chica against a bot that starts at level 1 and rises one level
with each chica the person wins, up to level 4 from the fourth chica on. The score is the number
of chicas won in a row; a loss, a draw or "New" ends the streak. The saved score is
``streak × 10,000 + the sum of the winning margins``, that sum capped at 9,999 (R14).

Everything here is a frozen value: the service (``server.ladder.service``) loads a
:class:`LadderRun`, computes the next one with these functions and stores it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

FIRST_LEVEL = 1
TOP_LEVEL = 4
STREAK_WEIGHT = 10_000
MARGIN_CAP = 9_999

Result = Literal["won", "lost", "draw", "abandoned", "void"]
"""How a chica left the ladder: ``void`` is a win a stand-in bot helped to (it does not count)."""


def level_for(streak: int) -> int:
    """R14: the bot's level for the next chica after ``streak`` wins in a row (1, 2, 3, 4, 4 …)."""
    if streak < 0:
        raise ValueError(f"R14: a streak counts wins and cannot be negative, not {streak}")
    return min(FIRST_LEVEL + streak, TOP_LEVEL)


def saved_score(streak: int, margins: int) -> int:
    """R14: streak × 10,000 + the sum of the winning margins, the sum capped at 9,999."""
    if streak < 0 or margins < 0:
        raise ValueError("R14: a streak and its winning margins are never negative")
    return streak * STREAK_WEIGHT + min(margins, MARGIN_CAP)


@dataclass(frozen=True, slots=True)
class Chica:
    """The chica being played: its table, the person's seat and seat token, the bot's level."""

    table: str
    join_key: str
    seat: int
    seat_token: str
    level: int

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "join_key": self.join_key,
            "seat": self.seat,
            "seat_token": self.seat_token,
            "level": self.level,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chica:
        return cls(
            str(data["table"]),
            str(data["join_key"]),
            int(data["seat"]),
            str(data["seat_token"]),
            int(data["level"]),
        )


@dataclass(frozen=True, slots=True)
class Settled:
    """How the last finished chica counted, for the screen: result, margin and the streak after."""

    result: Result
    margin: int
    level: int
    streak: int
    score: int

    def to_json(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "margin": self.margin,
            "level": self.level,
            "streak": self.streak,
            "score": self.score,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settled:
        return cls(
            data["result"],
            int(data["margin"]),
            int(data["level"]),
            int(data["streak"]),
            int(data["score"]),
        )


@dataclass(frozen=True, slots=True)
class LadderRun:
    """One browser's ladder: the current streak, its margins, the best saved score, the chica.

    ``version`` counts stores of this run (compare-and-set: two tabs never both deal a chica).
    The pocket tally counts chicas played offline (issue 42) and handed in by record: played,
    won, and the digests of the records counted, so that none is counted twice.
    """

    token: str
    streak: int = 0
    margins: int = 0
    best: int = 0
    name: str | None = None
    chica: Chica | None = None
    last: Settled | None = None
    version: int = 0
    pocket_played: int = 0
    pocket_won: int = 0
    pocket_seen: tuple[str, ...] = ()

    @property
    def level(self) -> int:
        """The level of the bot the next (or current) chica is played against."""
        return self.chica.level if self.chica is not None else level_for(self.streak)

    @property
    def score(self) -> int:
        """The saved score of the streak so far (R14)."""
        return saved_score(self.streak, self.margins)

    def dealt(self, chica: Chica) -> LadderRun:
        """A new chica is on the table."""
        return replace(self, chica=chica)

    def won(self, margin: int) -> LadderRun:
        """R14: a win raises the streak and the next bot's level; the best score may rise.

        ``margin`` is the winner's lead, 0 for a cuarenta won from behind (R6: at any score).
        """
        if margin < 0:
            raise ValueError(f"R14: a winning margin is never negative, not {margin}")
        level = self.level
        streak, margins = self.streak + 1, self.margins + margin
        score = saved_score(streak, margins)
        return replace(
            self,
            streak=streak,
            margins=margins,
            best=max(self.best, score),
            chica=None,
            last=Settled("won", margin, level, streak, score),
        )

    def ended(self, result: Result, margin: int = 0) -> LadderRun:
        """R14: a loss, a draw or "New" (``abandoned``) ends the streak; the best score stays."""
        if result not in ("lost", "draw", "abandoned"):
            raise ValueError(f"R14: only a loss, a draw or New ends a streak, not {result!r}")
        return replace(
            self,
            streak=0,
            margins=0,
            chica=None,
            last=Settled(result, margin, self.level, 0, self.score),
        )

    def voided(self) -> LadderRun:
        """A chica that does not count (won with a stand-in's help): same streak, same level."""
        return replace(
            self, chica=None, last=Settled("void", 0, self.level, self.streak, self.score)
        )

    def renamed(self, name: str | None) -> LadderRun:
        return replace(self, name=name)

    def pocketed(self, digest: str, won: bool) -> LadderRun:
        """Count an offline chica (its record's digest) once; the streak is not touched."""
        if digest in self.pocket_seen:
            return self
        return replace(
            self,
            pocket_played=self.pocket_played + 1,
            pocket_won=self.pocket_won + int(won),
            pocket_seen=(*self.pocket_seen, digest),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "token": self.token,
            "streak": self.streak,
            "margins": self.margins,
            "best": self.best,
            "name": self.name,
            "chica": None if self.chica is None else self.chica.to_json(),
            "last": None if self.last is None else self.last.to_json(),
        }
        if self.pocket_seen:  # only once there is one: older runs keep their stored form
            data["pocket"] = {
                "played": self.pocket_played,
                "won": self.pocket_won,
                "seen": list(self.pocket_seen),
            }
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], version: int = 0) -> LadderRun:
        chica, last = data.get("chica"), data.get("last")
        pocket = data.get("pocket") or {}
        return cls(
            token=str(data["token"]),
            streak=int(data["streak"]),
            margins=int(data["margins"]),
            best=int(data["best"]),
            name=data.get("name"),
            chica=None if chica is None else Chica.from_json(chica),
            last=None if last is None else Settled.from_json(last),
            version=version,
            pocket_played=int(pocket.get("played", 0)),
            pocket_won=int(pocket.get("won", 0)),
            pocket_seen=tuple(str(digest) for digest in pocket.get("seen", ())),
        )
