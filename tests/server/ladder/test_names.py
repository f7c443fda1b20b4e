"""Leaderboard names: optional, at most 20 characters, plain words only."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from server.ladder.names import BadName, checked_name


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (None, None),
        ("", None),
        ("   ", None),
        ("Lucho", "Lucho"),
        ("  Ana   María ", "Ana María"),
        ("Peña_40", "Peña_40"),
        ("O'Brien-2", "O'Brien-2"),
        ("José", "José"),
        ("two\nlines", "two lines"),
    ],
)
def test_names_are_trimmed_and_kept(given: str | None, stored: str | None) -> None:
    assert checked_name(given) == stored


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("x" * 21, "at most 20"),
        ("<script>", "not '<'"),
        ("a\u200bb", "not '\\u200b'"),
        ("bell\x07", None),
        ("---", "at least one letter"),
        ("www.spam.ec", "no links"),
        ("http:x", "not ':'"),
        ("ana@mail", "not '@'"),
        ("💩", "not"),
    ],
)
def test_names_a_public_board_must_not_show_are_refused(given: str, reason: str | None) -> None:
    with pytest.raises(BadName) as caught:
        checked_name(given)
    assert caught.value.code is ErrorCode.BAD_NAME
    assert caught.value.message.startswith("leaderboard name:")
    if reason:
        assert reason in caught.value.message
