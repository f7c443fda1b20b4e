"""A club's name and its slug: the part of a link that names the club.

A slug is what a person types and reads in a link: the name in lower case with its accents
dropped (``ñ`` -> ``n``, ``ú`` -> ``u``: every phone keyboard types the result, and it never
turns into ``%C3%B1`` when the link is copied), each run of anything else (spaces, punctuation,
letters with no ASCII form) made one ``-``: "Club Loja" -> ``club-loja``, "ñandú" -> ``nandu``.
A name whose slug would be empty, or two names with the same slug, cannot be used:
``ClubNameError`` says which and why, in one line for ``cuarenta serve``.

The slug is also the club table's stable key; random keys are longer and mixed-case, so the two
never meet (``protocol.client_messages.ClubSlug`` accepts exactly the slugs made here).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

MAX_SLUG_CHARS = 48  # a link someone can read aloud; within the wire's key length
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


class ClubNameError(ValueError):
    """A club name that cannot make a link (empty, nothing a link can carry, or a duplicate)."""


def slug(name: str) -> str:
    """The slug of ``name`` (possibly empty: ``club_slugs`` refuses that).

    >>> slug("Club Loja"), slug("ñandú"), slug("  La Esquina del 40!  ")
    ('club-loja', 'nandu', 'la-esquina-del-40')
    """
    plain = unicodedata.normalize("NFKD", name.casefold())
    ascii_only = plain.encode("ascii", "ignore").decode("ascii")
    made = _NOT_SLUG.sub("-", ascii_only).strip("-")
    return made[:MAX_SLUG_CHARS].rstrip("-")


def is_slug(text: str) -> bool:
    """True if ``text`` is a slug as ``slug`` makes them (its own slug)."""
    return 0 < len(text) <= MAX_SLUG_CHARS and SLUG_PATTERN.match(text) is not None


def club_slugs(names: Iterable[str]) -> tuple[str, ...]:
    """The slugs of ``names``, in order; ``ClubNameError`` for a name that cannot be used."""
    made: dict[str, str] = {}
    for name in names:
        if not name.strip():
            raise ClubNameError(
                "--clubs: an empty club name (two commas in a row, or one at an end?)"
            )
        made_slug = slug(name)
        if not made_slug:
            raise ClubNameError(
                f"--clubs: {name!r} has no letter or digit a link can carry; add some (a-z, 0-9)"
            )
        if made_slug in made:
            raise ClubNameError(
                f"--clubs: {made[made_slug]!r} and {name!r} make the same link /t/{made_slug};"
                " rename one"
            )
        made[made_slug] = name
    return tuple(made)


def parse_clubs(raw: str) -> tuple[str, ...]:
    """``--clubs`` text (comma-separated names) -> slugs; blank text means no clubs."""
    if not raw.strip():
        return ()
    return club_slugs(part.strip() for part in raw.split(","))
