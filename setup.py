"""Build the fast core with mypyc where it can (`engine.core`); plain Python otherwise.

Everything else is in pyproject.toml. The compiled modules are optional extensions: without
mypyc or a C compiler the install goes on and the same modules run as plain Python
(`engine.bridge.CORE_KIND` says which; the server logs it at start).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

MODULES = [
    "engine/corecaps.py",
    "engine/corestate.py",
    "engine/core.py",
    "engine/coredeals.py",
    "engine/bots/fastplay.py",
]


def _extensions() -> list[object]:
    if os.environ.get("CUARENTA_PURE"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    try:
        extensions = mypycify(MODULES, opt_level="3", group_name="engine.native")
    except Exception:  # no compiler or a mypyc failure: plain Python it is
        return []
    for extension in extensions:
        extension.optional = True  # a failed compile leaves the plain-Python modules
    return extensions


class BuildExt(build_ext):  # type: ignore[misc]
    """Builds the extensions, then stamps them with their sources' digests (engine/compiled.py
    refuses a compiled module whose source no longer matches)."""

    def run(self) -> None:
        self.built: set[str] = set()
        super().run()
        if not self.extensions or self.built != {ext.name for ext in self.extensions}:
            return  # nothing compiled, or a failed optional one: no stamp, so none trusted
        sources = {path[:-3].replace("/", "."): Path(path).read_bytes() for path in MODULES}
        stamp = Path(self.get_ext_fullpath("engine.core")).parent / "compiled-sources.json"
        digests = {name: hashlib.sha256(text).hexdigest() for name, text in sources.items()}
        stamp.write_text(json.dumps(digests, indent=1) + "\n")

    def build_extension(self, ext: Any) -> None:
        super().build_extension(ext)
        self.built.add(ext.name)


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
