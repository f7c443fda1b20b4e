"""The web client's pure modules (captures, seats, tallies, events, log text) under node."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args

import pytest

from protocol import SUPPORTED_VERSIONS, game_events

HERE = Path(__file__).parent
CONNECTION_JS = HERE.parents[1] / "clients" / "web" / "js" / "connection.js"


def test_client_modules_pass_their_node_unit_tests() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    result = subprocess.run(
        [node, "--test", "--test-reporter=spec", str(HERE / "js" / "client.test.mjs")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_browser_client_speaks_a_protocol_version_the_server_serves() -> None:
    found = re.search(r"export const PROTOCOL_VERSION = (\d+);", CONNECTION_JS.read_text())
    assert found is not None
    assert int(found.group(1)) in SUPPORTED_VERSIONS


GAME_EVENTS_JS = HERE.parents[1] / "clients" / "web" / "js" / "game-events.js"


def js_type(schema: dict[str, Any]) -> str:
    """The JSDoc type of a field, from the model's JSON schema."""
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(js_type(each) for each in schema["anyOf"])
    if schema["type"] == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(js_type(each) for each in schema["prefixItems"]) + "]"
        inner = js_type(schema["items"])
        return f"({inner})[]" if " | " in inner else f"{inner}[]"
    return {"integer": "number", "string": "string", "boolean": "boolean", "null": "null"}[
        schema["type"]
    ]


def test_the_browser_clients_game_event_types_are_the_protocols_field_for_field() -> None:
    # protocol.game_events types the engine's events; the browser client's JSDoc must match
    models = get_args(get_args(game_events.GameEvent)[0])
    expected = {
        model.__name__: [
            (js_type(schema), name)
            for name, schema in model.model_json_schema()["properties"].items()
        ]
        for model in models
    }
    written: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for line in GAME_EVENTS_JS.read_text().splitlines():
        if found := re.fullmatch(r" \* @typedef \{object\} (\w+)", line):
            current = written.setdefault(found.group(1), [])
        elif found := re.fullmatch(r" \* @property \{(.+)\} (\w+)", line):
            current.append((found.group(1), found.group(2)))
    assert written == expected
    union = re.search(r"@typedef \{([^}]*)\} GameEvent", GAME_EVENTS_JS.read_text())
    assert union is not None
    assert [name.strip(" *\n") for name in union.group(1).split("|")] == list(expected)
