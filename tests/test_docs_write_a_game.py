"""docs/plugins.md, "Write a game", is true: every block of the how-to is run in order,
as a reader would, against a running hub: the shell commands (``gamehub`` and
``python`` are this interpreter's; the hub's data folder and ports are the test hub's),
the files it shows (each block that starts with ``# <path>`` is that file)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from tests.hubprocess import HubProcess
from tests.kit.support import wait_loaded

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    """``(language, text)`` of each fenced block of the section, in order."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Write a game\n", 1)[1].split("\n## ", 1)[0]
    return [(lang, textwrap.dedent(body)) for _, lang, body in FENCE.findall(section)]


def test_every_block_of_write_a_game_runs(tmp_path):
    found = blocks()
    assert [lang for lang, _ in found] == ["sh", "python", "python", "sh", "toml", "sh", "sh"]
    (tmp_path / "hub").mkdir()
    hub = HubProcess(
        tmp_path / "hub", xml="tcp:0:interface=127.0.0.1", web="tcp:0:interface=127.0.0.1"
    ).start()
    cwd = tmp_path / "reader"
    cwd.mkdir()
    words = {
        "gamehub-data": str(hub.data),
        "http://127.0.0.1:8080": hub.url("").rstrip("/"),
        "127.0.0.1:4000": f"127.0.0.1:{hub.ports['xml']}",
    }
    outputs = []
    try:
        (hub.data / "plugins" / "meta").mkdir(parents=True, exist_ok=True)
        for lang, body in found:
            first = body.splitlines()[0]
            if lang in ("python", "toml") and first.startswith("# "):
                path = cwd / first[2:].strip()
                path.write_text(body, encoding="utf-8")
                if lang == "toml":
                    assert tomllib.loads(body)["plugin"]["name"] == "nim"
                continue
            assert lang == "sh", body
            for line in body.splitlines():
                for old, new in words.items():
                    line = line.replace(old, new)
                line = re.sub(r"^gamehub ", f"{sys.executable} -m hub.cli ", line)
                line = re.sub(r"^python ", f"{sys.executable} ", line)
                done = subprocess.run(
                    line, shell=True, cwd=cwd, capture_output=True, text=True, timeout=90
                )
                assert done.returncode == 0, (line, done.stdout, done.stderr)
                outputs.append(done.stdout)
            if "plugins/meta" in body:
                wait_loaded(hub, "nim")
    finally:
        hub.stop()
    assert hub.errors() == [], hub.log()
    assert "3 passed" in outputs[2]  # the reader's own tests of the engine
    assert "game over: " in outputs[-1]
