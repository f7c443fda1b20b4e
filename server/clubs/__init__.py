"""Clubs: a club beside its tables, its nights and its pages, in one package.

The rules are pure values and functions (no I/O, no clock; an import contract holds them so):

- ``names``: a club's name as given and the **slug** its links carry (``/t/<slug>``, ``/c/<slug>``);
- ``export``: the results export (CSV and JSON) with every cell safe to open in a spreadsheet and
  every team named by its players, as the table names them;
- ``tournament``, ``swiss``, ``knockout``, ``standings``: a club night's competition between
  **pairs** (two members, or a member and a bot), as a frozen state with ``to_dict``/``from_dict``
  so it can be kept in the store, changed only by pure functions. ``docs/clubs.md`` is the
  players' version; ``night``: the night's document and who sits where.

The shell around them: ``nights`` answers the club messages and drives each round (``ClubNights``),
``night_store`` keeps each night in the store, ``night_tables`` opens and starts the round's
tables as their host and reads their results, and ``routes`` serves ``/c/<club>`` and its exports.
"""
