"""Ratings: openskill's Plackett-Luce model (Weng-Lin), for teams of one or two.

Why Plackett-Luce: it is openskill's documented default, rates teams of any size (a partnership
game of R1 is two teams of two; the two-player profiles of R14 one against one) and takes ties
(a heads-up draw). A team's strength is the sum of its members' μ, its uncertainty the sum of
their σ², so a level-1 bot partner weighs on the team as a weak person would: a win beside it
earns more than a win beside a strong partner.

**Bots** have a fixed rating per level (``BOT_RATINGS``): they take part in the computation as
any member of their team, and their own update is thrown away. The μ per level is set by hand
from the levels' order (a newcomer, μ 25, stands between levels 2 and 3) with a small σ: a bot
plays the same way every game, so its strength is known far better than a newcomer's.

**The shown rating** is one number: ``round(40 × μ)``, 1000 for a newcomer. A win always
raises it and a loss always lowers it, which the conservative ordinal (μ − 3σ) does not do
early on (σ shrinking outweighs a loss); the change people see after a game is the change of
this number. The leaderboard lists only people with ``BOARD_MIN_GAMES`` rated games, so a
lucky first game does not top it.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce, PlackettLuceRating

from server.people.model import Rating

MODEL = PlackettLuce()
"""Openskill's defaults: μ 25, σ 25/3, β 25/6, τ 25/300."""

NEWCOMER = Rating(MODEL.mu, MODEL.sigma, 0)

BOT_SIGMA = 1.0
BOT_RATINGS: dict[int, Rating] = {
    level: Rating(mu, BOT_SIGMA)
    for level, mu in {1: 15.0, 2: 20.0, 3: 25.5, 4: 28.0, 5: 30.0, 6: 32.0}.items()
}
"""μ per bot level (shown: 600, 800, 1020, 1120, 1200, 1280); never updated."""

BOARD_MIN_GAMES = 5


def bot_rating(level: int) -> Rating:
    """A bot's fixed rating; a level outside the table rates as the nearest one."""
    nearest = min(BOT_RATINGS, key=lambda known: abs(known - level))
    return BOT_RATINGS[nearest]


def rate(teams: Sequence[Sequence[Rating]], winner: int | None) -> list[list[Rating]]:
    """Every member's rating after the game: ``winner`` the winning team's index, None a draw.

    Each returned rating counts one more game; the caller keeps those of people only.
    """
    ranks = [0.0, 0.0] if winner is None else [0.0 if i == winner else 1.0 for i in range(2)]
    before = [[MODEL.rating(mu=member.mu, sigma=member.sigma) for member in team] for team in teams]
    after: list[list[PlackettLuceRating]] = MODEL.rate(before, ranks=ranks)
    return [
        [Rating(new.mu, new.sigma, old.games + 1) for new, old in zip(team, olds, strict=True)]
        for team, olds in zip(after, teams, strict=True)
    ]
