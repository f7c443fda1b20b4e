"""A stale compiled core cannot hide an edit: the guard (engine/compiled.py) loads the source."""

from __future__ import annotations

import ast
import importlib.machinery
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.compiled import COMPILED, ROOT, source_of

PROBE = """
import warnings, json
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import engine.core
print(json.dumps({"file": engine.core.__file__, "edited": hasattr(engine.core, "EDITED"),
                  "warnings": [str(w.message) for w in caught]}))
"""


def _compiled_build() -> bool:
    return any(
        source_of("engine.core").with_suffix(suffix).exists()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _probe(root: Path) -> dict[str, object]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture
def copy_of_the_build(tmp_path: Path) -> Path:
    if not _compiled_build():
        pytest.skip("this tree runs the plain-Python core: no compiled build to go stale")
    shutil.copytree(
        ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def test_a_fresh_build_loads_compiled(copy_of_the_build: Path) -> None:
    probe = _probe(copy_of_the_build)
    assert not str(probe["file"]).endswith(".py")
    assert probe["warnings"] == []


def test_an_edited_source_loads_as_python_with_a_warning_naming_the_rebuild(
    copy_of_the_build: Path,
) -> None:
    core = copy_of_the_build / "engine" / "core.py"
    core.write_text(core.read_text() + "\nEDITED = True\n")
    probe = _probe(copy_of_the_build)
    assert probe["file"] == str(core)
    assert probe["edited"] is True
    (warning,) = probe["warnings"]  # type: ignore[misc]
    assert "engine/core.py" in warning
    assert "make .venv/.installed" in warning


def test_an_edit_to_any_member_makes_the_whole_group_python(copy_of_the_build: Path) -> None:
    """The group calls its members natively: a stale corestate would run inside a compiled core."""
    corestate = copy_of_the_build / "engine" / "corestate.py"
    corestate.write_text(corestate.read_text() + "\n")
    probe = _probe(copy_of_the_build)
    assert probe["file"] == str(copy_of_the_build / "engine" / "core.py")


def test_a_build_without_its_stamp_is_not_trusted(copy_of_the_build: Path) -> None:
    (copy_of_the_build / "engine" / "compiled-sources.json").unlink()
    assert str(_probe(copy_of_the_build)["file"]).endswith("core.py")


def test_setup_and_makefile_compile_the_modules_the_guard_knows() -> None:
    setup = ast.parse((ROOT / "setup.py").read_text())
    modules = next(
        node.value
        for node in setup.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "MODULES" for t in node.targets)
    )
    paths = [source_of(name, Path()).as_posix() for name in COMPILED]
    assert ast.literal_eval(modules) == paths
    core_src = re.search(r"^CORE_SRC := (.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert core_src is not None
    assert sorted(core_src.group(1).split()) == sorted(["setup.py", *paths])
