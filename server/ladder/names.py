"""Names on the public leaderboard: optional, short, and plain words only.

A leaderboard is shown to strangers, so a name is checked before it is stored: 1 to 20
characters after trimming, letters (any script), digits, spaces and a few joining marks, at
least one letter or digit, no links and no control or invisible characters.
"""

from __future__ import annotations

import re
import unicodedata

from protocol.errors import ErrorCode
from server.errors import Refused

MAX_NAME_CHARS = 20
_ALLOWED_MARKS = frozenset(" -_.'·")
_LINKISH = re.compile(r"(https?:|www\.|\.(com|net|org|io|ec|gg)\b|@)", re.IGNORECASE)


class BadName(Refused):
    """A leaderboard name that is too long, empty, or holds what a public board must not show."""

    def __init__(self, reason: str) -> None:
        super().__init__(ErrorCode.BAD_NAME, f"leaderboard name: {reason}")


def checked_name(raw: str | None) -> str | None:
    """The name to store (NFC, spaces collapsed), None for "no name"; ``BadName`` otherwise."""
    if raw is None:
        return None
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        return None
    if len(name) > MAX_NAME_CHARS:
        raise BadName(f"at most {MAX_NAME_CHARS} characters, not {len(name)}")
    for char in name:
        category = unicodedata.category(char)
        if not (category[0] in "LN" or char in _ALLOWED_MARKS or category == "Mn"):
            raise BadName(f"only letters, digits, spaces and - _ . ' are allowed, not {char!r}")
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise BadName("a name needs at least one letter or digit")
    if _LINKISH.search(name):
        raise BadName("no links or addresses")
    return name
