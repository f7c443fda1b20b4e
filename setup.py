"""Build the fast core with mypyc where it can (`engine.core`); plain Python otherwise.

Everything else is in pyproject.toml. The compiled modules are optional extensions: without
mypyc or a C compiler the install goes on and the same modules run as plain Python
(`engine.bridge.CORE_KIND` says which; the server logs it at start).
"""

from __future__ import annotations

import os

from setuptools import setup

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


setup(ext_modules=_extensions())
