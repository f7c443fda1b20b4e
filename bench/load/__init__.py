"""The machinery behind `cuarenta bench server`: load clients, servers under test, figures.

- ``wire``: a lean WebSocket client (websockets' sans-I/O protocol on an asyncio ``Protocol``).
- ``tables``: four seats playing one table, against the Cuarenta server or the floor.
- ``worker``: a load process: one event loop holding many tables, driven over a pipe.
- ``targets``: the servers under test as child processes (address, RSS, CPU, loop lag).
- ``lag``: the event-loop lag probe both servers run, reported as lines on stdout.
- ``probed_serve``: ``cuarenta serve`` with that probe added, nothing else changed.
- ``stats``: percentiles and ratios; ``errors``: the one error tree.
"""
