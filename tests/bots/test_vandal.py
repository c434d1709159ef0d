"""vandal: refuses non-loopback targets, stays bounded, and a live domino game survives it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from bots import vandal
from tests.frontends.test_domino_live import ScriptedClient, referee
from tests.livehub import ROOT, LiveHub


@pytest.mark.parametrize("host", ["8.8.8.8", "10.1.2.3", "192.168.0.1"])
def test_refuses_targets_that_are_not_loopback(host, capsys):
    with pytest.raises(vandal.Refused, match="not a loopback"):
        vandal.check_loopback(host)
    assert vandal.main(["--target", "domino", "--host", host, "--port", "7000"]) == 2
    assert "loopback" in capsys.readouterr().err


def test_accepts_loopback():
    assert vandal.check_loopback("127.0.0.1") == "127.0.0.1"
    assert vandal.check_loopback("localhost") in ("127.0.0.1", "::1")


def test_seconds_are_bounded(capsys):
    with pytest.raises(SystemExit):
        vandal.main(["--target", "xml", "--port", "1", "--seconds", "601"])


class ClosingServer(threading.Thread):
    """Accepts and closes at once (a front end that is not there)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.running = True
        self.accepted = 0

    def run(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()
        self.sock.close()


@pytest.mark.parametrize("target", ["domino", "mnm", "xml"])
def test_every_target_runs_bounded_against_a_closing_server(target):
    server = ClosingServer()
    server.start()
    try:
        start = time.monotonic()
        v = vandal.Vandal(target, "127.0.0.1", server.port, 1.0, __import__("random").Random(1))
        report = v.run()
        assert time.monotonic() - start < 15
        assert report.attacks >= len(vandal.ATTACKS[target])
        assert report.accepted == []
        assert server.accepted >= 1
    finally:
        server.running = False
        server.join(5)


@pytest.mark.slow
def test_vandal_against_a_hub_serving_a_live_game(tmp_path):
    """The live game finishes, nothing unhandled in the log, /api/health answers.
    5 s by default, 60 s with GAMEHUB_SOAK=full."""
    seconds = 60 if os.environ.get("GAMEHUB_SOAK") == "full" else 5
    hub = LiveHub(tmp_path, {})
    try:
        created = hub.post_game(
            {
                "type": "kingdomino",
                "seats": ["bot:greedy", "open", "bot:domino", "bot:domino-random"],
                "options": {"answer_seconds": 10, "think_seconds": 0.2},
            }
        )
        client = ScriptedClient(hub.ports["domino"], "honest", seed=7)
        client.start()
        run = subprocess.Popen(
            [sys.executable, "-m", "bots.vandal", "--target", "domino"]
            + ["--port", str(hub.ports["domino"]), "--seconds", str(seconds), "--json"],
            cwd=str(ROOT),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = run.communicate(timeout=seconds + 120)
        assert run.returncode == 0, err.decode()[-2000:]
        report = json.loads(out)
        client.join(120)
        assert not client.is_alive() and client.error is None, repr(client.error)
        referee([client], names_by_id={0: "greedy", 1: "honest", 2: "domino", 3: "domino-random"})
        game = json.loads(hub.get(f"/api/games/{created['id']}"))
        assert game["state"] == "over"
        assert report["accepted"] == []
        assert report["attacks"] >= 7
        assert set(report["outcomes"]) >= {"malformed", "oversized", "flood", "game_cheats"}
        assert hub.health()["status"] == "ok"
    finally:
        hub.stop()
    log = hub.log()
    assert "Unhandled" not in log and "Traceback" not in log, log[-3000:]
