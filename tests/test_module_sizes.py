"""No module of the project's packages is over 450 lines (small modules, one purpose each), and
BENCHMARKS.md stays a page of current figures (history is in git). Tests and web assets are not
held to it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "server", "clients", "bench")
LIMIT = 450

BENCHMARKS_LIMIT = 400


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_every_module_is_at_most_450_lines() -> None:
    found = modules()
    assert len(found) > 100, f"only {len(found)} modules found under {PACKAGES}"
    over = {
        path.relative_to(ROOT).as_posix(): lines
        for path in found
        if (lines := lines_of(path)) > LIMIT
    }
    assert not over, f"modules over {LIMIT} lines (split them): {over}"


def test_benchmarks_is_at_most_400_lines() -> None:
    lines = lines_of(ROOT / "BENCHMARKS.md")
    assert lines <= BENCHMARKS_LIMIT, f"BENCHMARKS.md has {lines} lines: move history to git"


def test_the_count_is_of_lines(tmp_path: Path) -> None:
    module = tmp_path / "long.py"
    module.write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    assert lines_of(module) == LIMIT + 1
