"""The built wheel carries the twistd dropin and the built-in .meta files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what a build never reads: caches, virtual environments, earlier builds
_NOT_SOURCES = (
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    "test-artifacts",
)


def pip(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True, cwd=cwd)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The project's wheel, built once for this module."""
    out = tmp_path_factory.mktemp("wheels")
    # from a copy of the sources: a build/ folder left in the checkout by an earlier
    # build would otherwise add the files it holds (moved or deleted ones too)
    source = tmp_path_factory.mktemp("source") / "gamehub"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
    pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source), cwd=out)
    (built,) = out.glob("gamehub-*.whl")
    return built


def test_wheel_contents(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "twisted/plugins/gamehub.py" in names
    assert "twisted/__init__.py" not in names
    assert "twisted/plugins/__init__.py" not in names
    assert "hub/builtin_meta/hello.meta" in names
    assert "hub/schema/message.xsd" in names
    assert "games/poker/texas.xsd" in names  # the poker plugin's own payload schema
    assert "hub/schema/texas.xsd" not in names
    assert "hub/tap.py" in names and "games/hello/server.py" in names
    assert not any(name.startswith("tests/") for name in names)
    web = ROOT / "hub" / "frontends" / "web" / "static"
    for path in web.rglob("*"):  # the web pages are package data
        if path.is_file():
            assert "hub/frontends/web/static/" + path.relative_to(web).as_posix() in names
    for game in ("hello", "morris", "kingdomino", "poker"):  # each game's page files
        assert f"games/{game}/web.js" in names
        assert f"games/{game}/web.css" in names
        assert any(n.startswith(f"games/{game}/rules") and n.endswith(".md") for n in names)
    assert "games/poker/history.js" in names  # the poker hands panel and shuffle check


def test_gitignore_ignores_dropin_cache():
    assert "dropin.cache" in (ROOT / ".gitignore").read_text().split()


def test_installed_copy_has_dropin_and_builtin_games(wheel, tmp_path):
    """After a plain (non-editable) install, outside the checkout: ``twistd --help``
    lists gamehub and the built-in plugins load from the installed package data."""
    target = tmp_path / "site"
    pip("install", "--no-deps", "-q", "--target", str(target), str(wheel), cwd=tmp_path)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(target), "HOME": str(tmp_path)}
    helped = subprocess.run(
        [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "gamehub" in helped.stdout
    probe = (
        "import hub, json; from twisted.internet.task import Clock;"
        "from hub.plugins.registry import Registry; r = Registry(None, Clock()); r.load();"
        "from hub.frontends.xml.adapters import published_schemas;"
        "print(json.dumps([hub.__file__, [g.name for g in r.game_types()],"
        " sorted(published_schemas(r))]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    where, games, schemas = json.loads(out.stdout)
    assert where.startswith(str(target))
    assert "hello" in games
    assert schemas == ["message.xsd", "texas.xsd"]  # read from the installed package data
