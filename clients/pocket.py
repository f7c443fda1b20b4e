"""Pack the engine's own sources into the zip the browser's Pyodide plays from (issue 42).

`python -m clients.pocket OUT_DIR` writes ``OUT_DIR/engine.zip`` and ``OUT_DIR/pocket-files.js``.
The zip holds ``engine/`` exactly as it is in the tree, the pure ``.py`` files and the data the
bots read (``engine/bots/rest_of_hand.json``) — never a mypyc extension, which could not load in
the browser and which ``engine.compiled`` would not trust anyway — plus ``pocket_api.py``, the
few functions the offline worker calls (``clients/pocket_api.py``). No port: the browser runs
the very code the server runs, which is what the replay agreement test pins.

Its entries are stored, not deflated: the worker copies them into Pyodide's file system in
JavaScript, cheaper than Python's own unpacking on a throttled phone (the offline cache holds
it either way). The zip is deterministic (sorted names, a fixed timestamp), so
its digest names its contents:
``pocket-files.js`` records the digest and the Pyodide version, and the service worker keeps
the offline files under a cache of that name. Both are built artefacts, git-ignored, made by
``make`` on the way to ``make run`` and ``make test``.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
API = Path(__file__).resolve().parent / "pocket_api.py"
WEB = ROOT / "clients" / "web"
#: what of engine/ goes into the zip: sources and the data files they read beside them
KEPT_SUFFIXES = (".py", ".json")
#: 1980-01-01, the earliest time a zip can hold: the same sources give the same bytes
STAMP = (1980, 1, 1, 0, 0, 0)
#: the Pyodide files the browser loads, as the server's /vendor/ names them (vendor.json)
#: the pocket page and what it loads besides its modules (found by following their imports)
PAGE = "pocket.html"
PAGE_FILES = (
    "/style.css",
    "/pocket.css",
    "/offline/pocket-files.js",
    "/offline/engine_worker.js",
    "/js/pocket.js",
    "/vendor/msgpack.js",
)
IMPORT = re.compile(r"""(?:\bfrom|^import)\s+["'](\.{1,2}/[^"']+)["']""", re.MULTILINE)
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)


def members(engine: Path = ENGINE) -> Iterator[tuple[str, Path]]:
    """Yield (name in the zip, file) for every engine source and data file, sorted."""
    for path in sorted(engine.rglob("*")):
        if path.suffix in KEPT_SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
            yield path.relative_to(engine.parent).as_posix(), path
    yield "pocket_api.py", API


def engine_zip(engine: Path = ENGINE) -> bytes:
    """Return the zip's bytes: the same files always give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, path in members(engine):
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def pyodide_version(web: Path = WEB) -> str:
    """Return the Pyodide version installed from the npm registry (package-lock.json's pin)."""
    package = json.loads((web / "node_modules" / "pyodide" / "package.json").read_text())
    return str(package["version"])


def modules(start: str, web: Path = WEB) -> list[str]:
    """Return the URL of ``start`` (a module under ``web``) and of every module it imports."""
    seen: list[str] = []
    todo = [start]
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.append(url)
        text = (web / url.lstrip("/")).read_text(encoding="utf-8")
        base = url.rsplit("/", 1)[0]
        for relative in IMPORT.findall(text):
            parts = [*base.split("/"), *relative.split("/")]
            resolved: list[str] = []
            for part in parts:
                if part == "..":
                    resolved.pop()
                elif part != ".":
                    resolved.append(part)
            todo.append("/".join(resolved))
    return sorted(seen)


def shell(web: Path = WEB) -> list[str]:
    """Return the pocket page's own files: the page, its styles, scripts and modules."""
    return sorted({f"/{PAGE}", *PAGE_FILES, *modules("/js/pocket.js", web)})


def files_script(digest: str, size: int, pyodide: str, web: Path = WEB) -> str:
    """Return ``pocket-files.js``: the offline files, for the page and the service worker.

    ``version`` changes with Pyodide, the engine zip and the page's files: the service worker
    imports this script, so a new version is a new service worker that keeps the new files.
    """
    page = shell(web)
    mixed = hashlib.sha256(digest.encode())
    for url in page:
        if url != "/offline/pocket-files.js" and not url.startswith("/vendor/"):
            mixed.update(url.encode() + b"\0" + (web / url.lstrip("/")).read_bytes())
    pocket = {
        "version": f"{pyodide}-{mixed.hexdigest()[:16]}",
        "pyodide": pyodide,
        "engine": f"/offline/engine.zip?v={digest[:16]}",
        "engineBytes": size,
        "files": [f"/vendor/{name}" for name in PYODIDE_FILES],
        "shell": page,
    }
    return (
        "// Built by `python -m clients.pocket` (make): the offline files and their version.\n"
        f"self.POCKET = {json.dumps(pocket, indent=1)};\n"
    )


def build(out: Path, web: Path = WEB) -> tuple[Path, int]:
    """Write ``engine.zip`` and ``pocket-files.js`` into ``out``; return the zip and its size."""
    data = engine_zip()
    digest = hashlib.sha256(data).hexdigest()
    out.mkdir(parents=True, exist_ok=True)
    target = out / "engine.zip"
    if not target.exists() or target.read_bytes() != data:
        target.write_bytes(data)
    script = out / "pocket-files.js"
    text = files_script(digest, len(data), pyodide_version(web), web)
    if not script.exists() or script.read_text() != text:
        script.write_text(text)
    return target, len(data)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m clients.pocket OUT_DIR", file=sys.stderr)
        return 2
    target, size = build(Path(argv[0]))
    print(f"{target}: {size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
