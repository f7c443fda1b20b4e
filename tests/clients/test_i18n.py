"""The terminal speaks Spanish and English; the locale picks one unless --lang does."""

from __future__ import annotations

import string

import pytest

from clients.terminal.i18n import LANGUAGES, MESSAGES, Translator, detect_language


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_message_has_both_languages_with_the_same_placeholders() -> None:
    for key, texts in MESSAGES.items():
        assert len(texts) == len(LANGUAGES), key
        assert all(text for text in texts), key
        assert _fields(texts[0]) == _fields(texts[1]), key


@pytest.mark.parametrize(
    ("env", "lang"),
    [
        ({"LANG": "es_EC.UTF-8"}, "es"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LC_ALL": "es_ES.UTF-8", "LANG": "en_US.UTF-8"}, "es"),
        ({"LC_MESSAGES": "en_GB", "LANG": "es_EC"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_comes_from_the_first_locale_variable_set(
    env: dict[str, str], lang: str
) -> None:
    assert detect_language(env) == lang


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        Translator("fr")
