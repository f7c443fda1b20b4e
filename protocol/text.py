"""Text people type for others to see (names, chat lines), made safe at the protocol edge.

A name or a chat line reaches every screen at the table, so what arrives is cleaned before any
model holds it: control characters (NUL and the rest of Unicode's ``Cc``), the bidirectional
embeddings, overrides and isolates (a right-to-left override turns "Ana" into a mirror-image
trap for every name after it), zero-width and other invisible format characters (``Cf``) and
the blank "letters" that render as nothing (the Hangul fillers, the blank Braille pattern) are
removed; the zero-width joiner stays only between two visible characters, where it holds an
emoji sequence together. Runs of white space become one space, and the result is trimmed to a
bound instead of being refused: a too long name is shown shortened, never lost. Text left with
no visible character (only spaces, joiners, combining marks) is refused: an invisible name or
an empty chat line would look like nobody speaking. Clients render the text as text.
"""

from __future__ import annotations

import re
import unicodedata

JOINER = "\u200d"  # the zero-width joiner holds emoji sequences together
BLANK_LETTERS = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"})
"""Characters of letter or symbol categories that draw nothing (Hangul fillers, blank Braille)."""
MARKS = frozenset({"Mn", "Me"})  # combining marks: they decorate a character, alone they vanish

_SPACES = re.compile(r"\s+")
_LOOSE_JOINERS = re.compile(rf"(?:^|(?<=\s)){JOINER}+|{JOINER}+(?=\s|$)")


class InvisibleText(ValueError):
    """Nothing visible is left of a name or a chat line once it is cleaned."""


def clean_text(value: object, limit: int) -> object:
    """``value`` stripped of control, bidi and invisible characters, spaces collapsed, at most
    ``limit`` long; raises `InvisibleText` if nothing visible is left.

    Anything but a string is passed through for the type check that follows to refuse.

    >>> clean_text("\\u202eAna\\x00 \\t Lucía  ", 32)
    'Ana Lucía'
    >>> clean_text("x" * 500, 32) == "x" * 32
    True
    >>> clean_text("\\u200b\\u202e\\u200d", 32)
    Traceback (most recent call last):
    protocol.text.InvisibleText: no visible character (only spaces or invisible characters)
    """
    if not isinstance(value, str):
        return value
    kept = "".join(char for char in value if _shown(char))
    text = _SPACES.sub(" ", kept).strip()
    text = _LOOSE_JOINERS.sub("", text[:limit]).strip()
    if not any(_visible(char) for char in text):
        raise InvisibleText("no visible character (only spaces or invisible characters)")
    return text


def _shown(char: str) -> bool:
    if char.isspace():
        return True  # collapsed to one space afterwards (tabs and newlines included)
    if char in BLANK_LETTERS:
        return False
    category = unicodedata.category(char)
    if category == "Cc" or category in ("Cs", "Co", "Cn"):
        return False  # controls, lone surrogates, private use and unassigned code points
    return category != "Cf" or char == JOINER


def _visible(char: str) -> bool:
    return not char.isspace() and char != JOINER and unicodedata.category(char) not in MARKS
