"""The examples in the engine's docstrings (the tour in `engine`, notation, tallies) run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine",
    "engine.actions",
    "engine.cards",
    "engine.rules",
    "engine.scoring",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
