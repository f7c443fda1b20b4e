"""Chat that stays: the last 50 lines each audience may read come with a whole snapshot (a reload,
a second tab, a newcomer), kept with the table's stored state; players never get the spectators'
lines, and spectators read the table's lines as they do live."""

from __future__ import annotations

import dataclasses
import itertools

from protocol import client_messages as c
from protocol import server_messages as s
from server.config import Settings
from server.core.referee import Referee
from server.core.table import CHAT_KEPT
from tests.server.core.drive import attach, handle

T0 = 1_000_000.0
CHATTY = dataclasses.replace(
    Settings(bot_delay_s=0.0, chat_per_min=60_000).referee_config(), chat_burst=1_000
)


def new_table() -> Referee:
    seeds = itertools.count(7)
    return Referee.create("pagat-4p", {}, 0, CHATTY, seeds=lambda: next(seeds))


def whole_snapshot(ref: Referee, conn: str, join: bool) -> s.Snapshot:
    """``conn`` comes in (seated, or watching); the whole snapshot its reload would get."""
    key = ref.table.keys["join" if join else "watch"]
    message = c.Join(key=key) if join else c.Watch(key=key)
    attach(ref, conn, conn.title(), message, "join" if join else "watch", T0)
    return ref.snapshot(ref.table.viewers[conn])


def texts(snapshot: s.Snapshot) -> list[str]:
    return [line.text for line in snapshot.chat]


def test_a_newcomer_reads_the_lines_said_before_and_only_those_of_its_audience() -> None:
    ref = new_table()
    whole_snapshot(ref, "ana", join=True)
    whole_snapshot(ref, "eva", join=False)
    handle(ref, "ana", c.Chat(text="¡hola, mesa!"), T0)
    handle(ref, "eva", c.Chat(text="qué partida"), T0)
    handle(ref, "ana", c.Chat(text="vamos"), T0)
    player = whole_snapshot(ref, "beto", join=True)
    assert texts(player) == ["¡hola, mesa!", "vamos"], "a player never reads the spectators"
    assert [(line.channel, line.name, line.seat) for line in player.chat] == [
        ("players", "Ana", 0),
        ("players", "Ana", 0),
    ]
    watcher = whole_snapshot(ref, "zoe", join=False)
    assert texts(watcher) == ["¡hola, mesa!", "qué partida", "vamos"]
    # The updates that follow leave the kept lines out: each new line comes as its own message.
    out = handle(ref, "beto", c.Chat(text="buenas"), T0)
    assert {to for to, m in out.sent() if isinstance(m, s.ChatLine)} == {
        "ana",
        "beto",
        "eva",
        "zoe",
    }
    assert out.dirty, "the line is stored with the table"


def test_each_audience_keeps_its_last_fifty_lines_through_a_restart() -> None:
    ref = new_table()
    whole_snapshot(ref, "ana", join=True)
    whole_snapshot(ref, "eva", join=False)
    for n in range(CHAT_KEPT + 10):
        handle(ref, "ana", c.Chat(text=f"línea {n}"), T0)
    handle(ref, "eva", c.Chat(text="psst"), T0)
    rebuilt = Referee.from_state(ref.to_state(), list(ref.table.log), CHATTY, T0 + 5)
    player = whole_snapshot(rebuilt, "beto", join=True)
    assert texts(player) == [f"línea {n}" for n in range(10, CHAT_KEPT + 10)]
    watcher = whole_snapshot(rebuilt, "zoe", join=False)
    assert texts(watcher) == [f"línea {n}" for n in range(11, CHAT_KEPT + 10)] + ["psst"]
