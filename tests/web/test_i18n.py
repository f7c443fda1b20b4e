"""Every string of the web client exists in every language, with the same placeholders."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
LANGUAGES = ("es", "en", "pt")
LITERAL_KEY = re.compile(r"""\b(tn?)\(\s*["']([\w.-]+)["']""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.fixture(scope="module")
def dictionaries() -> dict[str, dict[str, str]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    script = (
        "const out = {};"
        + "".join(f"out.{lang} = (await import('./i18n/{lang}.js')).default;" for lang in LANGUAGES)
        + "console.log(JSON.stringify(out));"
    )
    result = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    loaded: dict[str, dict[str, str]] = json.loads(result.stdout)
    return loaded


def test_every_language_has_exactly_the_same_keys(dictionaries: dict[str, dict[str, str]]) -> None:
    reference = set(dictionaries["es"])
    for lang in LANGUAGES:
        keys = set(dictionaries[lang])
        assert keys == reference, (
            f"{lang}: missing {sorted(reference - keys)}, extra {sorted(keys - reference)}"
        )


def test_translations_keep_the_same_placeholders(dictionaries: dict[str, dict[str, str]]) -> None:
    for key, text in dictionaries["es"].items():
        wanted = set(PLACEHOLDER.findall(text))
        for lang in LANGUAGES:
            assert set(PLACEHOLDER.findall(dictionaries[lang][key])) == wanted, f"{lang}: {key}"


def test_every_key_the_code_names_is_translated(dictionaries: dict[str, dict[str, str]]) -> None:
    used: set[str] = set()
    for source in (WEB / "js").glob("*.js"):
        for function, key in LITERAL_KEY.findall(source.read_text(encoding="utf-8")):
            used.update({f"{key}.one", f"{key}.other"} if function == "tn" else {key})
    assert used, "no t('…') calls found: the scan is broken"
    for lang in LANGUAGES:
        missing = sorted(used - set(dictionaries[lang]))
        assert not missing, f"{lang} lacks {missing}"
