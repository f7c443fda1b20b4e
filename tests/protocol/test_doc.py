"""PROTOCOL.md is generated from the models and must never be stale."""

from __future__ import annotations

from pathlib import Path

from protocol import doc


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
