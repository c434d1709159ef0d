"""docs/plugins.md, "A board over MNM", is true: its files are written and its shell
lines run in order, as a reader would, against a running hub (``python`` is this
interpreter; the hub's data folder is the test hub's), and the MNM session it shows is
played over the hub's MNM port: white's client sends the block's ``C:`` lines and
reads its ``S:`` lines (``…``: lines left out), while black plays ``A2``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import threading
import tomllib
from pathlib import Path

from tests.hubprocess import HubProcess
from tests.kit.support import wait_loaded
from tests.mnm_strict import StrictClient

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)
#: most lines a ``…`` of the session may leave out
SKIP = 20


def blocks() -> list[tuple[str, str]]:
    """``(language, text)`` of each fenced block of the section, in order."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## A board over MNM\n", 1)[1].split("\n## ", 1)[0]
    return [(lang, textwrap.dedent(body)) for _, lang, body in FENCE.findall(section)]


def black(client: StrictClient, failures: list[BaseException]) -> None:
    """Black plays ``A2`` whenever asked, until the game is over."""
    try:
        asked = False
        while True:
            line = client.read()
            if line.startswith("+ MOVE "):
                asked = True
            elif line == "+ ENDPIECELIST" and asked:
                asked = False
                client.send("THINKING")
                client.expect("+ OKTHINK")
                client.send("PLAY A2")
                client.expect("+ MOVEOK")
            elif line == "+ QUIT":
                return
    except BaseException as e:  # noqa: BLE001 - reported by the test
        failures.append(e)


def session(client: StrictClient, block: str) -> None:
    """Play the block's ``C:`` lines and check its ``S:`` lines, in order."""
    skip = False
    for line in block.splitlines():
        if line == "…":
            skip = True
            continue
        side, _, text = line.partition(": ")
        if side == "C":
            client.send(text)
            continue
        assert side == "S", line
        got = client.read()
        for _ in range(SKIP if skip else 0):
            if got == text:
                break
            got = client.read()
        assert got == text, (got, line, client.received)
        skip = False
    assert client.at_eof()


def test_the_board_section_runs_and_its_session_is_played(tmp_path):
    found = blocks()
    assert [lang for lang, _ in found] == ["python", "python", "toml", "sh", "text"]
    (tmp_path / "hub").mkdir()
    hub = HubProcess(
        tmp_path / "hub", web="tcp:0:interface=127.0.0.1", mnm="tcp:0:interface=127.0.0.1"
    )
    hub.extra = ["--set", "mnm_wait_interval=600"]  # no WAIT lines: the session is exact
    hub.start()
    cwd = tmp_path / "reader"
    (cwd / "work" / "dots").mkdir(parents=True)
    outputs = []
    clients: list[StrictClient] = []
    try:
        (hub.data / "plugins" / "meta").mkdir(parents=True, exist_ok=True)
        for lang, body in found[:4]:
            first = body.splitlines()[0]
            if lang in ("python", "toml"):
                assert first.startswith("# "), first
                (cwd / first[2:].strip()).write_text(body, encoding="utf-8")
                if lang == "toml":
                    assert tomllib.loads(body)["plugin"]["frontends"][-1] == "mnm"
                continue
            for line in body.splitlines():
                line = line.replace("gamehub-data", str(hub.data))
                line = re.sub(r"^python ", f"{sys.executable} ", line)
                done = subprocess.run(
                    line, shell=True, cwd=cwd, capture_output=True, text=True, timeout=90
                )
                assert done.returncode == 0, (line, done.stdout, done.stderr)
                outputs.append(done.stdout)
        assert "2 passed" in outputs[1]  # the reader's own tests
        wait_loaded(hub, "dots")
        status, body, _ = hub.request(
            "POST",
            "/api/games",
            {"type": "dots", "name": "Dots", "seats": ["open", "open"], "options": {}},
        )
        assert status == 201, body
        gid = json.loads(body)["id"]
        white = StrictClient(hub.ports["mnm"], kind="Dots")
        clients.append(white)
        assert white.prolog(gid) == (0, "white")
        other = StrictClient(hub.ports["mnm"], kind="Dots")
        clients.append(other)
        assert other.prolog(gid, 1) == (1, "black")
        failures: list[BaseException] = []
        thread = threading.Thread(target=black, args=(other, failures), daemon=True)
        thread.start()
        session(white, found[4][1])
        thread.join(30)
        assert not thread.is_alive() and failures == []
    finally:
        for client in clients:
            client.close()
        hub.stop()
    assert hub.errors() == [], hub.log()
