"""The referee has one door: outside ``server/core/`` nothing reaches the handler modules, so a
command goes in by ``Referee.apply`` and its effects come out in the ``Outcome``."""

from __future__ import annotations

import grimp

HANDLERS = {
    "server.core.presence",
    "server.core.requests",
    "server.core.sitting",
    "server.core.hosting",
    "server.core.play",
    "server.core.step",
}


def test_only_the_core_imports_the_referees_handler_modules() -> None:
    graph = grimp.build_graph("server", "clients", "bench")
    outside = {module for module in graph.modules if not module.startswith("server.core")}
    reached = {
        (module, handler)
        for module in outside
        for handler in HANDLERS
        if handler in graph.find_modules_directly_imported_by(module)
    }
    assert reached == set()
    assert all(handler in graph.modules for handler in HANDLERS), "the test names real modules"
