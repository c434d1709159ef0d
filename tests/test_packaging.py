"""The built wheel carries the twistd dropin and the built-in .meta files."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contents(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("gamehub-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "twisted/plugins/gamehub.py" in names
    assert "twisted/__init__.py" not in names
    assert "twisted/plugins/__init__.py" not in names
    assert "hub/builtin_meta/hello.meta" in names
    assert "hub/tap.py" in names and "games/hello/server.py" in names
    assert not any(name.startswith("tests/") for name in names)


def test_gitignore_ignores_dropin_cache():
    assert "dropin.cache" in (ROOT / ".gitignore").read_text().split()
