"""A plugin's package: imported under a private name, forgotten when it changes, and
offered as a drop-in archive (:func:`build_archive`) by :mod:`hub.plugins.registry`."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import io
import os
import sys
import types
import zipfile
import zipimport
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from hub.meta import PluginMeta

#: A fixed time stamp for the archives the hub builds, so their digest is stable.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: names and endings left out of archives and of a package folder's signature
SKIP_NAMES = {"__pycache__", ".DS_Store", ".git"}
SKIP_SUFFIXES = (".pyc", ".pyo")


class ArchiveError(Exception):
    """A plugin's files cannot be found to build its archive."""


def make_package(name: str, path: list[str]) -> types.ModuleType:
    """Create (or reuse) an empty package module ``name`` whose modules live on ``path``."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = list(path)
    module = importlib.util.module_from_spec(spec)
    module.__path__ = list(path)
    sys.modules[name] = module
    return module


def forget_zip(path: str) -> None:
    """Drop cached directories of an archive that may have been replaced in place."""
    sys.path_importer_cache.pop(path, None)
    cache = getattr(zipimport, "_zip_directory_cache", None)  # private to zipimport
    if isinstance(cache, dict):
        cache.pop(path, None)


def forget_modules(prefix: str) -> None:
    """Forget every imported module ``prefix`` or below it."""
    for name in [n for n in sys.modules if n == prefix or n.startswith(prefix + ".")]:
        del sys.modules[name]


def builtin_package(module_name: str) -> str:
    """The package a built-in plugin consists of.

    ``games.hello`` for ``games.hello.server`` (a plugin in the repository's
    ``games/`` or ``bots/`` is the second-level package or module there); otherwise
    the server module itself if it is a package, else the package that contains it.
    """
    parts = module_name.split(".")
    if parts[0] in ("games", "bots") and len(parts) >= 2:
        return ".".join(parts[:2])
    module = sys.modules.get(module_name)
    if len(parts) == 1 or (module is not None and hasattr(module, "__path__")):
        return module_name
    return ".".join(parts[:-1])


def _archive_files(folder: Path) -> Iterator[tuple[Path, str]]:
    """``(file, relative name)`` for a folder's files, sorted, without caches or links."""
    for dirpath, dirnames, filenames in os.walk(folder):
        current = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_NAMES and not (current / d).is_symlink()
        )
        for filename in sorted(filenames):
            full = current / filename
            if filename in SKIP_NAMES or filename.endswith(SKIP_SUFFIXES) or full.is_symlink():
                continue
            yield full, full.relative_to(folder).as_posix()


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def build_archive(
    meta: PluginMeta, package_path: Path | None, filename: str
) -> tuple[bytes, PluginMeta]:
    """A drop-in archive of a built-in or folder plugin, and the ``.meta`` inside it.

    The archive holds the plugin's package at its top level and its ``.meta``
    rewritten so that ``server``/``client`` name modules relative to that top level.
    """
    prefix = ""
    if package_path is None:
        package = builtin_package(meta.server_module)
        spec = importlib.util.find_spec(package)
        if spec is None:
            raise ArchiveError(f"cannot find package {package!r} to offer for download")
        if spec.submodule_search_locations:
            root = Path(next(iter(spec.submodule_search_locations)))
            files = [(f, f"{root.name}/{rel}") for f, rel in _archive_files(root)]
        elif spec.origin:
            origin = Path(spec.origin)
            files = [(origin, origin.name)]
        else:
            raise ArchiveError(f"cannot find the files of {package!r}")
        prefix = package.rpartition(".")[0]
    elif (package_path / "__init__.py").is_file():
        files = [(f, f"{package_path.name}/{rel}") for f, rel in _archive_files(package_path)]
    else:
        files = list(_archive_files(package_path))

    def local(module: str | None) -> str | None:
        if module is not None and prefix and module.startswith(prefix + "."):
            return module[len(prefix) + 1 :]
        return module

    inner = replace(
        meta,
        package=filename,
        server=local(meta.server) or meta.server,
        client=local(meta.client),
        sha256=None,
        commands=tuple(replace(c, run=local(c.run) or c.run) for c in meta.commands),
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, name in files:
            _add(archive, name, path.read_bytes())
        _add(archive, f"{meta.name}.meta", inner.to_toml().encode("utf-8"))
    return buffer.getvalue(), inner
