"""Build every image docker-compose.yml needs from Debian's packages, for podman on a machine
that reaches no image registry (``python -m deploy.build_images``; ``make deploy-test`` runs it).

1. **The base**: a Debian 12 (bookworm) root filesystem made by ``debootstrap --variant=minbase``
   from the machine's own Debian mirror, imported as ``localhost/cuarenta-base:bookworm``. It is
   made once: the tree is kept in the cache (``deploy/podman.py``) and the image in podman's
   store, so a second run only checks that the image exists.
2. **The Dockerfile's two stages' images**, built from the base by ``deploy/images/``:
   ``localhost/cuarenta-python:bookworm`` (python3.11, pip, venv) and
   ``localhost/cuarenta-node:bookworm`` (node, npm).
3. **The compose file's other services' images**, named exactly as docker-compose.yml names
   them, so the file is brought up unchanged: ``redis:7-alpine`` (Debian's redis-server and
   redis-sentinel) and ``caddy:2.6-alpine`` (Debian's caddy).
4. **The server**: the repository's Dockerfile, its ``FROM`` images given as build arguments,
   tagged ``cuarenta-server`` as the compose file's ``image:`` says.

podman's layer cache makes steps 2 to 4 quick when nothing they copy has changed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tarfile
import time
from pathlib import Path

from deploy.podman import CACHE, ROOT, image_exists, podman, run, say

SUITE = "bookworm"
BASE = f"localhost/cuarenta-base:{SUITE}"
PYTHON_IMAGE = f"localhost/cuarenta-python:{SUITE}"
NODE_IMAGE = f"localhost/cuarenta-node:{SUITE}"
SERVER_IMAGE = "cuarenta-server"
IMAGES = ROOT / "deploy" / "images"
#: image name -> its Containerfile under deploy/images/
DERIVED = {
    PYTHON_IMAGE: "python.Containerfile",
    NODE_IMAGE: "node.Containerfile",
    "redis:7-alpine": "redis.Containerfile",
    "caddy:2.6-alpine": "caddy.Containerfile",
}
DEFAULT_MIRROR = "http://deb.debian.org/debian"
HOST_SOURCES = Path("/etc/apt/sources.list.d/debian.sources")
EXTRA_CA = Path("/usr/local/share/ca-certificates")


def mirror() -> str:
    """The Debian mirror this machine's apt uses (deb822 or one-line sources)."""
    texts = [p.read_text() for p in sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))]
    for text in texts:
        for found in re.findall(r"^URIs:\s*(\S+)", text, re.MULTILINE):
            if found.rstrip("/").endswith("/debian"):
                return str(found.rstrip("/"))
    one_line = Path("/etc/apt/sources.list")
    if one_line.is_file():
        for found in re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", one_line.read_text(), re.M):
            if found.rstrip("/").endswith("/debian"):
                return str(found.rstrip("/"))
    return DEFAULT_MIRROR


def base_image() -> None:
    """debootstrap the root filesystem (once) and import it (when podman lacks it)."""
    if image_exists(BASE):
        say(f"{BASE}: in podman's store")
        return
    tree = CACHE / f"rootfs-{SUITE}"
    if not (tree / ".debootstrap-complete").is_file():
        started = time.monotonic()
        partial = CACHE / f"rootfs-{SUITE}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)
        run(["debootstrap", "--variant=minbase", SUITE, partial, mirror()])
        if HOST_SOURCES.is_file():  # the same mirror, with -updates and -security
            (partial / "etc/apt/sources.list").unlink(missing_ok=True)
            shutil.copy(HOST_SOURCES, partial / "etc/apt/sources.list.d/debian.sources")
        for cached in (partial / "var/cache/apt/archives").glob("*.deb"):
            cached.unlink()
        shutil.rmtree(partial / "var/lib/apt/lists", ignore_errors=True)
        (partial / "var/lib/apt/lists/partial").mkdir(parents=True)
        partial.rename(tree)
        (tree / ".debootstrap-complete").write_text(f"{SUITE} from {mirror()}\n")
        say(f"debootstrap {SUITE}: {time.monotonic() - started:.0f} s")
    archive = CACHE / f"rootfs-{SUITE}.tar"
    with tarfile.open(archive, "w") as tar:
        for entry in sorted(tree.iterdir()):
            if entry.name != ".debootstrap-complete":
                tar.add(entry, arcname=entry.name)
    try:
        podman("import", "--change", 'CMD ["/bin/bash"]', archive, BASE)
    finally:
        archive.unlink()


def build_context() -> Path:
    """The derived images' context: this machine's extra certificate authorities only."""
    context = CACHE / "context"
    authorities = context / "extra-ca"
    shutil.rmtree(authorities, ignore_errors=True)
    authorities.mkdir(parents=True)
    for cert in sorted(EXTRA_CA.glob("*.crt")) if EXTRA_CA.is_dir() else []:
        shutil.copy(cert, authorities / cert.name)
    (authorities / "README").write_text("copied from this machine by deploy/build_images.py\n")
    return context


def derived_images() -> None:
    context = build_context()
    for name, containerfile in DERIVED.items():
        podman(
            "build", "--quiet", "--build-arg", f"BASE={BASE}",
            "--file", IMAGES / containerfile, "--tag", name, context,
        )  # fmt: skip


def server_image() -> None:
    """The repository's Dockerfile, FROM lines as build arguments (``docker`` format keeps its
    HEALTHCHECK, which OCI images cannot carry)."""
    podman(
        "build", "--quiet", "--format", "docker",
        "--build-arg", f"NODE_IMAGE={NODE_IMAGE}", "--build-arg", f"PYTHON_IMAGE={PYTHON_IMAGE}",
        "--file", ROOT / "Dockerfile", "--tag", SERVER_IMAGE, ROOT,
    )  # fmt: skip


def build_all() -> float:
    """Build everything; return the seconds it took."""
    started = time.monotonic()
    base_image()
    derived_images()
    server_image()
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    say(f"images built in {build_all():.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
