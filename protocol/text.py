"""Text people type for others to see (names, chat lines), made safe at the protocol edge.

A name or a chat line reaches every screen at the table, so what arrives is cleaned before any
model holds it: control characters (NUL and the rest of Unicode's ``Cc``), the bidirectional
embeddings, overrides and isolates (a right-to-left override turns "Ana" into a mirror-image
trap for every name after it) and other invisible format characters that are not part of an
emoji (``Cf`` except the zero-width joiner and variation selectors) are removed, runs of white
space become one space, and the result is trimmed to a bound instead of being refused: a too long
name is shown shortened, never lost. Clients still render the text as text (never as markup).
"""

from __future__ import annotations

import re
import unicodedata

KEEP_FORMAT = frozenset({"\u200d"})  # the zero-width joiner holds emoji sequences together
"""Format (``Cf``) characters kept: everything else in ``Cf`` is invisible or reorders text."""

_SPACES = re.compile(r"\s+")


def clean_text(value: object, limit: int) -> object:
    """``value`` stripped of control and bidi characters, spaces collapsed, at most ``limit`` long.

    Anything but a string is passed through for the type check that follows to refuse.

    >>> clean_text("\\u202eAna\\x00 \\t Lucía  ", 32)
    'Ana Lucía'
    >>> clean_text("x" * 500, 32) == "x" * 32
    True
    """
    if not isinstance(value, str):
        return value
    kept = "".join(char for char in value if _shown(char))
    return _SPACES.sub(" ", kept).strip()[:limit].rstrip()


def _shown(char: str) -> bool:
    if char.isspace():
        return True  # collapsed to one space afterwards (tabs and newlines included)
    category = unicodedata.category(char)
    if category == "Cc" or category in ("Cs", "Co", "Cn"):
        return False  # controls, lone surrogates, private use and unassigned code points
    return category != "Cf" or char in KEEP_FORMAT
