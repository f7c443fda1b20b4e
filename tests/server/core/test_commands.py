"""Commands are values (invariant 8): each survives its bytes, and the referee takes them."""

from __future__ import annotations

import msgpack
import pytest

from engine.actions import Play
from protocol import client_messages as c
from server.config import Settings
from server.core import commands
from server.core.commands import (
    Attach,
    BotAnswer,
    Command,
    DealChica,
    Detach,
    Reattach,
    Request,
    Resume,
    Tick,
    Ticket,
)
from server.core.referee import Referee

EXAMPLES: list[Command] = [
    Attach("c1", "Ana", c.Join(rid=3, key="k" * 22, seat=2), "join"),
    Attach("c2", "Bo", c.Watch(key="w" * 22), "watch"),
    Attach("c3", "Ana", c.Join(key="k" * 22), "join", None, "publicid123"),  # a person
    Resume("c1", "Ana", "tab.secret", 17, 4),
    Resume("c1", "Ana", "tab.secret", None, 0),
    Attach("c4", "Eva", c.Watch(key="w" * 22), "watch", 9, None, 4),  # protocol 4
    Resume("c1", "Ana", "tab.secret", 17, 4, 4),
    Detach("c1"),
    Request("c1", c.Chat(rid=9, text="hola")),
    Request("c1", c.Play(rid=1, card="7S", take=["7H"], at=12)),
    Tick(),
    BotAnswer(1, 40, Play(1, 27, frozenset({26}))),
    BotAnswer(3, 41, None),
    Reattach((Ticket("c1", "Ana", "k", "host", "t.s", 5), Ticket("c2", "Bo", None, "watch"))),
    Reattach((Ticket("c3", "Ana", "k", "join", None, 2, "publicid123"),)),
    Reattach((Ticket("c4", "Eva", "w", "watch", None, 3, None, 4),)),
    DealChica("Ana", 2),
]


@pytest.mark.parametrize("command", EXAMPLES, ids=lambda command: type(command).__name__)
def test_a_command_is_the_same_value_after_its_bytes(command: Command) -> None:
    assert commands.decode(commands.encode(command)) == command


def test_a_command_written_before_protocol_4_reads_as_protocol_3() -> None:
    """A process of the previous release forwards commands without the version: still read."""
    old = commands.encode(Resume("c1", "Ana", "tab.secret", 17, 4, 3))
    fields = msgpack.unpackb(old)
    assert commands.decode(msgpack.packb(fields[:-1])) == Resume("c1", "Ana", "tab.secret", 17, 4)


@pytest.mark.parametrize("data", [b"\x91\xa4nope", b"\x92\xa6detach\x01", b"\xc0"])
def test_bytes_that_are_no_command_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        commands.decode(data)


def test_the_referee_applies_a_decoded_command_as_the_value_itself() -> None:
    """A forwarded command (its bytes) and a local one take the same path: ``apply``."""
    tables = [
        Referee.create("pagat-4p", {}, 0, Settings().referee_config(), seeds=lambda: 7)
        for _ in "ab"
    ]
    local, remote = tables
    remote.table.table_id, remote.table.keys = local.table_id, local.table.keys
    join = Attach("c1", "Ana", c.Join(rid=1, key=local.table.keys["join"], seat=1), "join")
    sat = [
        local.apply(join, 5.0),
        remote.apply(commands.decode(commands.encode(join)), 5.0),
    ]
    assert sat[0].entries == sat[1].entries
    assert local.table.seats[1].name == remote.table.seats[1].name == "Ana"
