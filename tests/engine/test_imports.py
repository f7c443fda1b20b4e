"""No import circle in ``engine/`` either, type-only imports included (as for the server)."""

from __future__ import annotations

from tests.server.test_imports import import_circles


def test_the_engine_has_no_import_circle() -> None:
    assert import_circles("engine") == []


def test_no_engine_module_passes_the_house_limit_of_450_lines() -> None:
    from pathlib import Path

    import engine

    root = Path(engine.__file__).parent
    long = {
        str(path.relative_to(root)): lines
        for path in root.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 450
    }
    assert long == {}
