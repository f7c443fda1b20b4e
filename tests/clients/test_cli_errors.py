"""At the command line, a bad link, a full table or no server is one line on stderr and a
non-zero exit code, never a traceback."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.cli import main
from tests.clients.test_bad_input import free_port
from tests.serving import ServerProcess


def test_the_commands_print_one_line_and_exit_non_zero(
    server_process: Callable[..., ServerProcess], capsys: pytest.CaptureFixture[str],
) -> None:
    server = server_process()
    unknown = f"{server.url.rstrip('/')}/t/no-such-table-key"
    for argv, words in [
        (["play", unknown, "--lang", "en"], "cuarenta play: no table has this link"),
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
