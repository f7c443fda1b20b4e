"""Names and chat lines nobody could see are refused; invisible characters never reach a screen.

Raw frames to a real server (a client's own models would clean the text before sending): a name
or a chat line left with no visible character once bidi overrides, isolates and zero-width
characters are stripped is refused with ``invalid_message`` and changes nothing; a name that
keeps a visible character is shown without the invisible ones; an emoji sequence keeps the
joiner that holds it together.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect

from clients.session import ClientSession
from protocol import PROTOCOL_VERSION
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.text import clean_text
from server.app import TableServer

INVISIBLE = [
    "\u200b\u202e\u200d",  # zero-width space, right-to-left override, zero-width joiner
    "\u200b\u200c\u200d\u2060\ufeff",  # the zero-width family only
    " \u2066 \u2069 \u200d ",  # isolates and a joiner between spaces
    "\u3164\u115f",  # Hangul fillers: letters that draw nothing
    "\u0301\u0308",  # combining marks with nothing to sit on
]


async def send(ws: ClientConnection, message: dict[str, Any]) -> None:
    await ws.send(msgpack.packb(message))


async def answer(ws: ClientConnection, rid: int) -> dict[str, Any]:
    """The next message answering ``rid`` (an update's rid stands for its ack)."""
    while True:
        message = msgpack.unpackb(await ws.recv())
        if message.get("rid") == rid:
            return dict(message)


@pytest.mark.parametrize("name", INVISIBLE)
async def test_a_name_with_no_visible_character_is_refused_at_hello(
    table_server: TableServer, name: str
) -> None:
    async with connect(table_server.ws_url) as ws:
        await send(ws, {"type": "hello", "version": PROTOCOL_VERSION, "name": name, "rid": 1})
        refused = await answer(ws, 1)
        assert refused["type"] == "error"
        assert refused["code"] == "invalid_message"
        assert "no visible character" in refused["message"]


@pytest.mark.parametrize("text", INVISIBLE)
async def test_a_chat_line_of_invisible_characters_is_refused_and_reaches_nobody(
    table_server: TableServer, text: str
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        async with connect(table_server.ws_url) as ws:
            await send(ws, {"type": "hello", "version": PROTOCOL_VERSION, "name": "Beto", "rid": 1})
            await answer(ws, 1)
            await send(ws, {"type": "join", "key": created.join_key, "rid": 2})
            await answer(ws, 2)
            await send(ws, {"type": "chat", "text": text, "rid": 3})
            refused = await answer(ws, 3)
            assert refused["code"] == "invalid_message"
            assert "no visible character" in refused["message"]
            await send(ws, {"type": "chat", "text": "\u200bhola\u202e", "rid": 4})
            assert (await answer(ws, 4))["type"] != "error"
        line = await ana.next_of(s.ChatLine)  # the first line Ana hears is the visible one
        assert line.text == "hola"
        assert line.name == "Beto"


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("\u200bAna\u202e\u200d", "Ana"),  # a trailing joiner joins nothing
        ("\u200dLucía\u2066", "Lucía"),
        ("👨\u200d👩\u200d👧 Caro", "👨\u200d👩\u200d👧 Caro"),  # a family emoji stays whole
        ("Dani\u3164", "Dani"),
    ],
)
def test_invisible_characters_are_stripped_and_an_emoji_keeps_its_joiner(
    typed: str, shown: str
) -> None:
    assert clean_text(typed, 32) == shown
