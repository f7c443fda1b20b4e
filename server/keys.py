"""Identity without accounts: unguessable keys from ``secrets``.

A table id is public (it appears in record URLs); every credential — join, watch and host keys
and seat tokens — carries 128 random bits (ARCHITECTURE "Identity"; the issue asks >= 96). A seat
token is ``<table id>.<secret>`` so a reconnecting client needs nothing else to find its table.
"""

from __future__ import annotations

import hmac
import secrets

KEY_BYTES = 16  # 128 bits


def new_table_id() -> str:
    """A public table id that never begins with ``-``: on a command line that reads as a flag,
    and in a spreadsheet (the club's results export) as a formula to defuse."""
    while (made := secrets.token_urlsafe(8)).startswith("-"):
        pass
    return made


def new_key() -> str:
    """A join, watch or host key."""
    return secrets.token_urlsafe(KEY_BYTES)


def new_seat_token(table_id: str) -> str:
    return f"{table_id}.{secrets.token_urlsafe(KEY_BYTES)}"


def table_of_token(token: str) -> str | None:
    """The table a seat token belongs to, or None if it is not shaped like one."""
    table_id, dot, secret = token.partition(".")
    return table_id if dot and table_id and secret else None


def same_secret(given: str, stored: str | None) -> bool:
    """Compare credentials in constant time (no timing oracle for forged tokens)."""
    return stored is not None and hmac.compare_digest(given.encode(), stored.encode())
