"""What every podman step of ``make deploy-test`` shares: the cache folder, podman's settings
for this kind of machine, and one way to run a command.

The cache (``DEPLOY_CACHE``, default ``/var/tmp/cuarenta-deploy``, outside the repository so no
linter, test run or build context walks a root filesystem) holds the debootstrap tree, the
podman-compose virtual environment and the generated ``containers.conf``.

``containers.conf`` (read by podman through ``CONTAINERS_CONF``, so nothing in ``/etc`` changes):

- ``default_ulimits``: podman asks the runtime for 1048576 open files and more processes than a
  sandbox without CAP_SYS_RESOURCE may raise to ("setrlimit RLIMIT_NOFILE: Operation not
  permitted"); the limits given are this process's own (no higher than conmon's), which any
  runtime can set.
- ``runtime = "runc"``: Debian 12's crun 1.8 refuses a host whose cgroup v1 hierarchy also mounts
  a cgroup v2 one ("cgroups in hybrid mode not supported"); runc runs there.
"""

from __future__ import annotations

import os
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("DEPLOY_CACHE", "/var/tmp/cuarenta-deploy"))
#: conmon runs its runtime with at most this many processes (seen here: 32768)
NPROC_CAP = 32768
NOFILE_CAP = 1048576


def containers_conf() -> Path:
    """Write (if changed) and return the ``containers.conf`` podman is run with."""
    nofile = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], NOFILE_CAP)
    nproc = min(resource.getrlimit(resource.RLIMIT_NPROC)[1], NPROC_CAP)
    text = (
        "# written by deploy/podman.py for make deploy-test (see its docstring)\n"
        "[containers]\n"
        f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc={nproc}:{nproc}"]\n'
        "[engine]\n"
        'runtime = "runc"\n'
    )
    path = CACHE / "containers.conf"
    CACHE.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


def podman_env() -> dict[str, str]:
    """The environment podman and podman-compose run in."""
    return {**os.environ, "CONTAINERS_CONF": str(containers_conf())}


def say(text: str) -> None:
    print(f"[deploy] {text}", flush=True)


def run(
    argv: Sequence[str | Path],
    *,
    check: bool = True,
    capture: bool = False,
    quiet: bool = False,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (podman's settings in the environment); raise on failure if ``check``."""
    words = [str(word) for word in argv]
    if not quiet:
        say("$ " + shlex.join(words))
    started = time.monotonic()
    done = subprocess.run(
        words,
        check=False,
        text=True,
        capture_output=capture,
        env=dict(env) if env is not None else podman_env(),
        timeout=timeout,
        cwd=cwd or ROOT,
    )
    if check and done.returncode != 0:
        if capture:
            sys.stderr.write(done.stdout + done.stderr)
        raise subprocess.CalledProcessError(done.returncode, words, done.stdout, done.stderr)
    if not quiet and time.monotonic() - started > 5:
        say(f"  ({time.monotonic() - started:.0f} s)")
    return done


def podman(
    *args: str | Path,
    check: bool = True,
    capture: bool = False,
    quiet: bool = False,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    return run(["podman", *args], check=check, capture=capture, quiet=quiet, timeout=timeout)


def image_exists(name: str) -> bool:
    return podman("image", "exists", name, check=False, quiet=True).returncode == 0
