"""The server's VAPID key pair (RFC 8292): made at the first start, then kept.

The private key is kept in the store (``server.push.book``) or, with the memory store, in the
file the settings name (``push_key_file``), so a restarted server signs with the same key and
the browsers' subscriptions, made for its public key, stay good.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid, b64urlencode

from server.push.book import PushBook


def _new_pem() -> bytes:
    made = Vapid()
    made.generate_keys()
    pem: bytes = made.private_pem()
    return pem


def _file_pem(key_file: str) -> bytes:
    path = Path(key_file)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_new_pem())
        path.chmod(0o600)
    return path.read_bytes()


async def server_vapid(book: PushBook, key_file: str | None) -> Vapid:
    """The key pair: from ``key_file`` (made there if absent), else from the book."""
    if key_file:
        pem = await asyncio.to_thread(_file_pem, key_file)
    else:
        pem = await book.vapid_pem(_new_pem())
    vapid: Vapid = Vapid.from_pem(pem)
    return vapid


def public_key(vapid: Vapid) -> str:
    """The public key as ``PushManager.subscribe`` takes it: base64url of the raw point."""
    raw = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    text: str = b64urlencode(raw)
    return text
