"""Shared helpers of the plugin tests: write .meta files, copy and zip fixture plugins."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_MODULE = "tests.plugins.fixtures"


def meta_text(name: str, server: str, kind: str = "game", **fields: object) -> str:
    """TOML text of a ``.meta`` file; ``fields`` adds or overrides keys."""
    values: dict[str, object] = {
        "name": name,
        "kind": kind,
        "version": "1.0.0",
        "summary": f"{name} for tests",
        "server": server,
        "frontends": ["web"],
    }
    values.update(fields)
    lines = ["[plugin]"]
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key} = [" + ", ".join(f'"{v}"' for v in value) + "]")
        else:
            lines.append(f'{key} = "{value}"')
    return "\n".join(lines) + "\n"


def write_meta(folder: Path, name: str, server: str, filename: str | None = None, **fields):
    """Write ``<folder>/<filename or name>.meta``; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (filename or f"{name}.meta")
    path.write_text(meta_text(name, server, **fields), encoding="utf-8")
    return path


def copy_fixture(fixture: str, dest: Path, replace: dict[str, str] | None = None) -> Path:
    """Copy fixture package ``fixture`` to folder ``dest``, editing text in its files."""
    shutil.copytree(FIXTURES / fixture, dest, ignore=shutil.ignore_patterns("__pycache__"))
    for path in dest.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for old, new in (replace or {}).items():
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    return dest


def zip_folder(folder: Path, archive: Path, top: str | None = None) -> str:
    """Zip ``folder`` as top-level package ``top`` (default: its name); returns the SHA-256."""
    top = top or folder.name
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, f"{top}/{path.relative_to(folder).as_posix()}")
    return hashlib.sha256(archive.read_bytes()).hexdigest()


def make_zip_plugin(
    data: Path,
    name: str,
    fixture: str = "tinygame",
    top: str = "tinygame",
    kind: str = "game",
    replace: dict[str, str] | None = None,
    **fields: object,
) -> tuple[Path, Path]:
    """Drop fixture ``fixture`` renamed to plugin ``name`` as a zip; returns (zip, meta)."""
    sub = "plugins" if kind == "game" else "bots"
    work = data / "work" / name
    edits = {'NAME = "tiny"': f'NAME = "{name}"'} if fixture == "tinygame" else {}
    edits.update(replace or {})
    copy_fixture(fixture, work, edits)
    archive = data / sub / f"{name}-1.0.0.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    zip_folder(work, archive, top)
    server = fields.pop("server", f"{top}.server:TinyGameFactory")
    meta = write_meta(
        data / sub / "meta", name, str(server), kind=kind, package=archive.name, **fields
    )
    return archive, meta
