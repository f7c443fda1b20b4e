"""Snapshots built from real engine games through the server's own conversion (no fakes)."""

from __future__ import annotations

from engine.game import Game
from engine.views import view_of
from protocol import server_messages as s
from protocol.convert import action_to_wire, view_to_wire

NAMES = ("Ana", "Beto", "Caro", "Dani")


def table_info(
    stage: str = "playing",
    seats: int = 4,
    bots: tuple[int, ...] = (),
    names: tuple[str, ...] = NAMES,
) -> s.TableInfo:
    return s.TableInfo.model_validate(
        {
            "table": "T3st1d",
            "profile": "pagat-4p" if seats == 4 else "heads-up",
            "options": {},
            "turn_timer": 30,
            "locked": False,
            "stage": stage,
            "game": 1,
            "spectators": 0,
            "seats": [
                {
                    "seat": i,
                    "occupant": "bot" if i in bots else "person",
                    "name": names[i],
                    "bot_level": 2 if i in bots else None,
                    "connected": True,
                }
                for i in range(seats)
            ],
        }
    )


def snapshot_of(
    game: Game,
    seat: int | None,
    *,
    last_event: int = 7,
    host: bool = False,
    deadlines: tuple[s.Deadline, ...] = (),
    stage: str = "playing",
    bots: tuple[int, ...] = (),
) -> s.Snapshot:
    """What the server would send ``seat`` (None: a spectator) for ``game`` now."""
    legal = []
    if seat is not None and seat in game.to_act():
        legal = [action_to_wire(action) for action in game.legal_actions(seat)]
    return s.Snapshot(
        last_event=last_event,
        you=s.You(
            role="player" if seat is not None else "spectator",
            seat=seat,
            host=host,
            name=NAMES[seat] if seat is not None else "Eve",
        ),
        info=table_info(stage, game.rules.seats, bots),
        view=view_to_wire(view_of(game, seat), {}),
        legal=legal,
        deadlines=list(deadlines),
    )
