"""The club nights' shell: keeps each night in the store and drives its rounds' tables.

The rules (pairings, standings, who sits where) are ``server.clubs``'s pure values; this
package loads and stores them (``store``), opens and starts the round's tables as their host and
reads their results (``tables``), and answers the club messages (``service``).
"""
