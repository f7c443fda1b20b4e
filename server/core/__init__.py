"""The sans-I/O table core: commands and the current time in, an ``Outcome`` out.

Nothing here waits, sleeps or talks to a socket, a store or a logger (an import-linter contract
forbids asyncio, websockets, redis and structlog): the shell (``server.room``) feeds it commands
(``server.core.commands``) and commits and delivers what comes out.
"""
