"""A person who comes back: values for the player, their games and their friends.

A browser makes a **player key** (a long random secret) on its first visit and sends it in
``hello``. The server never stores the key itself, only its digest (as the table store does for
the credentials a kept record names), and gives the person a **public id**: a random token that
others may see (in a history, a friend list, a leaderboard) and that says nothing of the key.

Every value here is frozen. Names are cleaned as chat is (``protocol.text``), since a person's
name is shown to strangers on a leaderboard and in other people's histories.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from protocol.base import MAX_NAME_CHARS
from protocol.errors import ErrorCode
from protocol.players import Language, ProfileClass
from protocol.text import clean_text
from server.errors import Refused
from server.store.base import credential_digest

PROFILE_CLASSES: Mapping[str, ProfileClass] = {
    "pagat-4p": "pairs",
    "heads-up": "duel",
    "libre-2p": "duel",
}
"""Which rating a profile's games count for: partnerships (R1) and the two-player games (R14)."""

SHOWN_SCALE = 40
"""The shown rating is ``round(SHOWN_SCALE × μ)`` (``server.people.rating`` says why)."""

TEAM_SIZE: Mapping[ProfileClass, int] = {"pairs": 2, "duel": 1}

Result = Literal["won", "lost", "draw"]

key_digest = credential_digest
"""What the store keeps of a player key: its SHA-256 (the key itself is never stored)."""


class PlayerError(Refused):
    """A request about players that is refused; nothing was changed."""


class UnknownPlayer(PlayerError):
    def __init__(self) -> None:
        super().__init__(ErrorCode.NOT_FOUND, "no such player")


class RequestsLimited(PlayerError):
    def __init__(self, reason: str) -> None:
        super().__init__(ErrorCode.RATE_LIMITED, f"friend requests: {reason}")


def new_public_id() -> str:
    """A fresh public id: 12 URL-safe characters, unrelated to the player key."""
    return secrets.token_urlsafe(9)


UNNAMED = "guest"  # a hello's name when the page knows none (``protocol.client_messages.Hello``)


def clean_name(raw: str) -> str:
    """The name as others see it: cleaned and shortened like chat; empty is refused."""
    name = cast(str, clean_text(raw, MAX_NAME_CHARS))
    if not name:
        raise PlayerError(ErrorCode.BAD_NAME, "a name needs at least one visible character")
    return name


def checked_language(language: str) -> Language:
    if language not in get_args(Language):
        raise PlayerError(ErrorCode.INVALID_MESSAGE, f"unknown language {language!r}")
    return cast(Language, language)


@dataclass(frozen=True, slots=True)
class Rating:
    """A person's skill in one profile class: openskill's μ and σ, and the rated games counted."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def shown(self) -> int:
        """The one number people see: ``round(40 × μ)``, 1000 for a newcomer."""
        return round(SHOWN_SCALE * self.mu)

    def text(self) -> str:
        return f"{self.mu!r} {self.sigma!r} {self.games}"

    @classmethod
    def parse(cls, text: str) -> Rating:
        mu, sigma, games = text.split()
        return cls(float(mu), float(sigma), int(games))


@dataclass(frozen=True, slots=True)
class Player:
    """A person as the server keeps them; ``ratings`` holds only the classes they were rated in."""

    id: str
    key_digest: str
    name: str
    language: Language
    first_seen: float
    last_seen: float
    ratings: Mapping[ProfileClass, Rating] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Seat:
    """Someone at a finished game, as their name was then: a person (``player_id``: None for a
    guest without a player key) or a bot (``bot_level``)."""

    name: str
    player_id: str | None = None
    bot_level: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.player_id is not None:
            out["id"] = self.player_id
        if self.bot_level is not None:
            out["bot"] = self.bot_level
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seat:
        return cls(data["name"], data.get("id"), data.get("bot"))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of a person's history: a finished game seen from their seat.

    ``score`` is (theirs, the other side's); ``rating_change`` the change of their shown rating
    (None for a casual game). Names are those the game was played under, kept even after a
    person renames or is forgotten. ``accuracy`` is the coach's figure for their play (0-100,
    ``engine.bots.review``), None until the game's review is done. ``forfeit``: the game
    ended by a turn-based side's missed deadlines (``server.core.forfeit``), not by R12; a line
    kept before this field existed reads as a game ended by the rules.
    """

    finished_at: float
    profile: str
    table_id: str
    game: int
    partners: tuple[Seat, ...]
    opponents: tuple[Seat, ...]
    score: tuple[int, int]
    result: Result
    rating_change: int | None
    casual: bool
    accuracy: float | None = None
    forfeit: bool = False

    @property
    def game_id(self) -> str:
        return game_id(self.table_id, self.game)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.finished_at,
            "profile": self.profile,
            "table": self.table_id,
            "game": self.game,
            "partners": [seat.to_json() for seat in self.partners],
            "opponents": [seat.to_json() for seat in self.opponents],
            "score": list(self.score),
            "result": self.result,
            "change": self.rating_change,
            "casual": self.casual,
            **({"by": "forfeit"} if self.forfeit else {}),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameSummary:
        return cls(
            finished_at=float(data["at"]),
            profile=data["profile"],
            table_id=data["table"],
            game=int(data["game"]),
            partners=tuple(Seat.from_json(seat) for seat in data["partners"]),
            opponents=tuple(Seat.from_json(seat) for seat in data["opponents"]),
            score=(int(data["score"][0]), int(data["score"][1])),
            result=data["result"],
            rating_change=data["change"],
            casual=bool(data["casual"]),
            forfeit=data.get("by") == "forfeit",
        )


def game_id(table_id: str, game: int) -> str:
    """The one name of a finished game: its table and its number there."""
    return f"{table_id}#{game}"


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """Another person as a list shows them: the public id and their current name."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Relations:
    """A person's friends, the requests to and from them, and whom they blocked (newest first
    for requests)."""

    friends: tuple[PlayerRef, ...] = ()
    incoming: tuple[PlayerRef, ...] = ()
    outgoing: tuple[PlayerRef, ...] = ()
    blocked: tuple[PlayerRef, ...] = ()


@dataclass(frozen=True, slots=True)
class BoardEntry:
    player: PlayerRef
    rating: Rating


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one finished game does to one person: a line in their history and, for a rated
    game, the change of their rating (added to the rating they hold when it is applied)."""

    player_id: str
    summary: GameSummary
    mu_change: float = 0.0
    sigma_change: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.player_id,
            "summary": self.summary.to_json(),
            "mu": self.mu_change,
            "sigma": self.sigma_change,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        summary = GameSummary.from_json(data["summary"])
        return cls(data["id"], summary, float(data["mu"]), float(data["sigma"]))


@dataclass(frozen=True, slots=True)
class SettledGame:
    """A finished game's outcomes for every person at it, computed once (the first settling of
    a game stands: a retried finish applies the stored outcomes, never new ones)."""

    game_id: str
    profile_class: ProfileClass
    rated: bool
    outcomes: tuple[Outcome, ...]

    def dumps(self) -> str:
        data = {
            "game": self.game_id,
            "class": self.profile_class,
            "rated": self.rated,
            "outcomes": [outcome.to_json() for outcome in self.outcomes],
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def loads(cls, text: str | bytes) -> SettledGame:
        data = json.loads(text)
        outcomes = tuple(Outcome.from_json(item) for item in data["outcomes"])
        return cls(data["game"], data["class"], bool(data["rated"]), outcomes)
