"""No import circle in ``server/``: every module can be read knowing only what it imports.

Imports made only for type checking count too: a circle there is a circle for the reader.
"""

from __future__ import annotations

import grimp


def import_circles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    graph = grimp.build_graph(package)
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                circles.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return circles


def test_the_server_has_no_import_circle() -> None:
    assert import_circles("server") == []
