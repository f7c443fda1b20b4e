"""Which build of the fast core may load: a compiled module whose source changed is refused.

mypyc's extension modules sit beside their sources and Python loads an extension before a
``.py`` of the same name, so an edit to ``engine/core.py`` would go untested by any run that did
not rebuild. The build (`setup.py`) writes `STAMP`, the digest of every compiled source as it
was compiled; at import, `guard` compares it with the sources on disk and, when they differ
(or the stamp is missing), loads all of them as plain Python and warns with the rebuild
command. All of them: the compiled group calls its own members natively, so one stale member
makes the whole group stale.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the modules mypyc compiles, in import order (setup.py's MODULES, the Makefile's CORE_SRC)
COMPILED = (
    "engine.corecaps",
    "engine.corestate",
    "engine.core",
    "engine.coredeals",
    "engine.bots.fastplay",
)

ROOT = Path(__file__).resolve().parent.parent
#: written by the build beside the extensions: {module: sha256 of the source compiled}
STAMP = Path(__file__).resolve().parent / "compiled-sources.json"
REBUILD = "make .venv/.installed (or: pip install -e .)"


def source_of(name: str, root: Path = ROOT) -> Path:
    """Return the ``.py`` file of the compiled module ``name``."""
    return root.joinpath(*name.split(".")).with_suffix(".py")


def digests(root: Path = ROOT) -> dict[str, str]:
    """Return the sha256 of every compiled module's source as it is on disk now."""
    return {
        name: hashlib.sha256(source_of(name, root).read_bytes()).hexdigest() for name in COMPILED
    }


def _extension_present() -> bool:
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return any(
        source_of(name).with_suffix(suffix).exists() for name in COMPILED for suffix in suffixes
    )


def stale() -> list[str]:
    """Return the compiled modules whose source differs from the build's (all if no stamp)."""
    try:
        built: object = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return list(COMPILED)
    now = digests()
    if not isinstance(built, dict):
        return list(COMPILED)
    return [name for name in COMPILED if built.get(name) != now[name]]


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` sources ahead of their extensions."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


def guard() -> None:
    """Load the fast core from source, with a warning, when its compiled build is stale."""
    if not _extension_present() or any(name in sys.modules for name in COMPILED):
        return
    changed = stale()
    if not changed:
        return
    sys.meta_path.insert(0, _SourceFinder())
    edited = ", ".join(source_of(name, Path()).as_posix() for name in changed)
    warnings.warn(
        f"the compiled engine is older than {edited}: running the plain-Python core;"
        f" rebuild with {REBUILD}",
        RuntimeWarning,
        stacklevel=2,
    )


guard()
