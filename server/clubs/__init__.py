"""Clubs: what a club is beside its tables, as pure values and functions (no I/O, no clock).

- ``names``: a club's name as given and the **slug** its links carry (``/t/<slug>``, ``/c/<slug>``);
- ``export``: the results export (CSV and JSON) with every cell safe to open in a spreadsheet and
  every team named by its players, as the table names them;
- ``tournament``, ``swiss``, ``knockout``, ``standings``: a club night's competition between
  **pairs** (two members, or a member and a bot), as a frozen state with ``to_dict``/``from_dict``
  so it can be kept in the store, changed only by pure functions. ``docs/clubs.md`` is the
  players' version.
"""
