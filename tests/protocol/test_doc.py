"""PROTOCOL.md is generated from the models and must never be stale."""

from __future__ import annotations

from pathlib import Path

from protocol import doc
from protocol.codec import CLIENT_LIMITS
from protocol.game_events import GameEvent
from protocol.table_events import TableEvent
from server.config import Settings
from server.connection import SEND_FRAME_BYTES


def test_protocol_md_is_up_to_date_with_the_models() -> None:
    assert doc.main(["--check"]) == 0, "PROTOCOL.md is stale: run `python -m protocol.doc`"


def test_check_reports_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "PROTOCOL.md"
    stale.write_text("old\n", encoding="utf-8")
    assert doc.main(["--check", str(stale)]) == 1
    assert doc.main([str(stale)]) == 0
    assert doc.main(["--check", str(stale)]) == 0


def test_every_message_type_is_documented() -> None:
    text = doc.render()
    for kind in ("hello", "welcome", "play", "take_missed", "claim", "snapshot", "event", "error"):
        assert f"### `{kind}`" in text


def _sections(text: str, heading: str) -> dict[str, str]:
    """The ``### `type` (Model)`` sections under one ``## heading``, by type."""
    part = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    sections = {}
    for chunk in part.split("\n### ")[1:]:
        kind = chunk.split("`", 2)[1]
        sections[kind] = chunk
    return sections


def test_every_event_is_typed_with_an_example() -> None:
    text = doc.render()
    table = _sections(text, "Table events")
    game = _sections(text, "Game events")
    assert set(table) == {m.model_fields["type"].default for m in doc._union_members(TableEvent)}
    assert set(game) == {m.model_fields["type"].default for m in doc._union_members(GameEvent)}
    for kind, section in {**table, **game}.items():
        assert "\nExample: `{" in section, f"{kind} has no example"
    assert "hidden" not in table  # never sent: every viewer gets every number, redacted


def test_every_type_the_document_names_is_defined() -> None:
    text = doc.render()
    assert "### SeenPlay" in text
    for name in ("JsonValue", "TableEvent", "GameEvent"):
        assert f"- `{name}`:" in text


def test_the_stated_limits_are_the_servers_defaults() -> None:
    settings, referee = Settings(), Settings().referee_config()
    assert {
        "hello_timeout_s": settings.hello_timeout_s,
        "commands_per_s": settings.commands_per_s,
        "chat_per_min": referee.chat_per_min,
        "chat_burst": referee.chat_burst,
        "tables_per_min": settings.tables_per_min,
        "connections_per_address": settings.connections_per_address,
        "send_queue_bytes": settings.send_queue * SEND_FRAME_BYTES,
    } == doc.LIMITS
    assert settings.chat_per_min == referee.chat_per_min
    assert CLIENT_LIMITS.max_frame_bytes == settings.max_frame_bytes
    text = doc.render()
    for code in ("1009", "1008", "1001", "1000", "rate_limited", "storage_unavailable", "403"):
        assert code in text
