"""Acceptance (issue 34): ``gamehub new-game NAME`` writes a working game on the kit
(engine, tests, ``.meta``): its own tests pass, and dropped into a running hub as it is
it loads and is played to the end (``gamehub play`` as a bot against an in-hub bot)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hub.cli.new_game import skeleton

from .support import drop, wait_loaded
from .test_play_cli import gamehub_play


def gamehub(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args], capture_output=True, text=True, cwd=cwd,
        timeout=60,
    )  # fmt: skip


def test_a_new_game_passes_its_tests_and_is_played_in_a_hub(hub, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    made = gamehub("new-game", "race-to-21", cwd=work)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in (work / "race_to_21").iterdir()) == [
        "__init__.py", "game.py", "test_game.py",
    ]  # fmt: skip
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "race_to_21"],
        capture_output=True, text=True, cwd=work, timeout=60,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout
    assert "4 passed" in tests.stdout
    drop(hub.data, "race_to_21", source=work, meta="race-to-21.meta")
    wait_loaded(hub, "race-to-21")
    done = gamehub_play(
        hub, tmp_path,
        "--type", "race-to-21", "--seat", "open", "--seat", "bot:kit-mcts",
        "--bot", "random", "--name", "newbie", "--password", "newbie-pw1", "--register",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "game over: " in done.stdout
    again = gamehub("new-game", "race-to-21", cwd=work)
    assert again.returncode == 2 and "exists already" in again.stderr


@pytest.mark.parametrize("name", ["Race", "-x", "a--b", "x-", "os", "import", "a" * 41, "é"])
def test_a_bad_name_is_refused(name):
    with pytest.raises(ValueError):
        skeleton(name)
