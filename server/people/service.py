"""``Players``: what the server calls about people: on ``hello`` and when a game finishes.

``record_game`` turns a finished game into each person's history line and, at a rated table,
their new rating (``server.people.rating``), then hands the lot to the store in one
``settle``: the first settling of a game stands, so a finish that is retried (a process that
died after the game ended, a commit settled twice) never counts twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.players import DEFAULT_LANGUAGE, Language
from server.people.model import (
    PROFILE_CLASSES,
    TEAM_SIZE,
    UNNAMED,
    GameSummary,
    Outcome,
    Player,
    Rating,
    Result,
    Seat,
    SettledGame,
    clean_name,
    game_id,
    key_digest,
)
from server.people.rating import NEWCOMER, bot_rating, rate
from server.people.store import PlayerStore


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game as the table saw it: its two teams' seats (team ``i`` holds the seats
    of R1's team ``i``; one seat each in R14), their final scores, and ``winner`` (a team, or
    None for a draw, R14). ``casual``: the table was not rated; nobody's rating changes.
    ``forfeit``: the losing side forfeited (two missed deadlines in a row), which each
    person's history says beside the score."""

    table_id: str
    game: int
    profile: str
    finished_at: float
    casual: bool
    teams: tuple[tuple[Seat, ...], tuple[Seat, ...]]
    scores: tuple[int, int]
    winner: int | None
    forfeit: bool = False

    def __post_init__(self) -> None:
        size = TEAM_SIZE[PROFILE_CLASSES[self.profile]]
        if any(len(team) != size for team in self.teams):
            raise ValueError(f"{self.profile}: two teams of {size} seat(s) each")
        people = [seat.player_id for team in self.teams for seat in team if seat.player_id]
        if len(set(people)) != len(people):
            raise ValueError("a person holds two seats of one game")


class Players:
    """People who come back, over a ``PlayerStore``."""

    def __init__(self, store: PlayerStore) -> None:
        self.store = store

    async def enter(
        self, player_key: str, name: str, language: Language = DEFAULT_LANGUAGE
    ) -> Player:
        """The person ``player_key`` names (made now if new), their visit counted. A person
        still called ``guest`` (their first page said no name) takes the first name a hello
        gives: the club page, for one, says the name only once a member joins."""
        given = clean_name(name)
        player = await self.store.enter(key_digest(player_key), given, language)
        if player.name == UNNAMED and given != UNNAMED:
            player = await self.store.rename(player.id, given)
        return player

    async def record_game(self, game: FinishedGame) -> dict[str, int | None]:
        """Settle a finished game: each person's change of shown rating (None: casual)."""
        people = [seat.player_id for team in game.teams for seat in team if seat.player_id]
        if not people:
            return {}
        cls = PROFILE_CLASSES[game.profile]
        held = await self.store.ratings(people, cls)
        before = [[_strength(seat, held) for seat in team] for team in game.teams]
        after = None if game.casual else rate(before, game.winner)
        outcomes = []
        for t, team in enumerate(game.teams):
            for s, seat in enumerate(team):
                if seat.player_id is None or seat.player_id not in held:
                    continue  # a guest, a bot, or a person forgotten since
                old, new = before[t][s], (None if after is None else after[t][s])
                summary = _summary(game, t, seat, None if new is None else new.shown - old.shown)
                mu, sigma = (0.0, 0.0) if new is None else (new.mu - old.mu, new.sigma - old.sigma)
                outcomes.append(Outcome(seat.player_id, summary, mu, sigma))
        settled = SettledGame(
            game_id(game.table_id, game.game), cls, not game.casual, tuple(outcomes)
        )
        stood = await self.store.settle(settled)
        return {outcome.player_id: outcome.summary.rating_change for outcome in stood.outcomes}


def _strength(seat: Seat, held: dict[str, Rating]) -> Rating:
    """What a seat weighs in its team: a person's rating, a bot's fixed one, a guest's as new."""
    if seat.bot_level is not None:
        return bot_rating(seat.bot_level)
    if seat.player_id is not None:
        return held.get(seat.player_id, NEWCOMER)
    return NEWCOMER


def _summary(game: FinishedGame, team: int, seat: Seat, change: int | None) -> GameSummary:
    result: Result = "draw" if game.winner is None else "won" if game.winner == team else "lost"
    return GameSummary(
        finished_at=game.finished_at,
        profile=game.profile,
        table_id=game.table_id,
        game=game.game,
        partners=tuple(other for other in game.teams[team] if other is not seat),
        opponents=game.teams[1 - team],
        score=(game.scores[team], game.scores[1 - team]),
        result=result,
        rating_change=change,
        casual=game.casual,
        forfeit=game.forfeit,
    )
