"""At the command line, a bad link, a full table or no server is one line on stderr and a
non-zero exit code, never a traceback; the terminal's commands say it once, in the chosen
language (es, en, pt)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.cli import main
from tests.clients.test_bad_input import free_port
from tests.serving import ServerProcess


def test_the_commands_print_one_line_and_exit_non_zero(
    server_process: Callable[..., ServerProcess],
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = server_process()
    unknown = f"{server.url.rstrip('/')}/t/no-such-table-key"
    for argv, words in [
        (["play", unknown, "--lang", "en"], "cuarenta play: no table has this link"),
        (["play", unknown, "--lang", "es"], "cuarenta play: ninguna mesa tiene este enlace"),
        (["watch", unknown, "--lang", "pt"], "cuarenta watch: nenhuma mesa tem este link"),
        (["play", "not a link", "--lang", "es"], "cuarenta play: 'not a link' no es un enlace"),
        (
            ["new", f"http://127.0.0.1:{free_port()}", "--lang", "pt"],
            "cuarenta new: nenhum servidor de mesas responde",
        ),
        (
            ["new", server.url, "--option", "foo=1", "--lang", "es"],
            "cuarenta new: opciones no permitidas (R13): foo=1",
        ),
        (["watch", unknown], "cuarenta watch: no table has this link"),
        (["bot", unknown], "cuarenta bot: no table has this link"),
        (["bot", "not a link"], "cuarenta bot: 'not a link' is not a server address"),
        (["new", f"http://127.0.0.1:{free_port()}"], "cuarenta new: no table server answers"),
        (["new", server.url, "--option", "sequence"], "cuarenta new: --option 'sequence'"),
    ]:
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert err.startswith(words), err
        assert err.count("\n") == 1, err
        said = err.removeprefix(words.split(":")[0] + ": ")
        assert said.count(said[:16]) == 1, f"the error repeats itself: {err}"
