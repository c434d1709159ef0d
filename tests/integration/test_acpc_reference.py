"""The reference dealer's logs reproduced on the hub, line for line.

``tests/data/acpc_reference/`` holds the logs the competition's reference dealer
(project_acpc_server, protocol 2.0.0) wrote for seeds 1 and 2 of three games, played by
copies of ``detplayer.py``, a deterministic program (its README says how).  Here the
same copies of the same program play on a real ``twistd -n gamehub`` over loopback, in
matches with the dealer's deals and those seeds (``"deals": "dealer"``), with the
hub's default rules (the dealer's): every ``STATE`` line and the ``SCORE`` line must be
the dealer's (the ``#`` lines may differ).  The six matches run at once, 1,000 hands
each.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.hubprocess import HubProcess

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "acpc_reference"
LOOPBACK = "tcp:0:interface=127.0.0.1"

#: log → (game file, seed, players in the order named)
LOGS = {
    "limit2p-s1": ("holdem.limit.2p.reverse_blinds", 1, ("Alice", "Bob")),
    "limit2p-s2": ("holdem.limit.2p.reverse_blinds", 2, ("Alice", "Bob")),
    "nolimit2p-s1": ("holdem.nolimit.2p.reverse_blinds", 1, ("Alice", "Bob")),
    "nolimit2p-s2": ("holdem.nolimit.2p.reverse_blinds", 2, ("Alice", "Bob")),
    "limit3p-s1": ("holdem.limit.3p", 1, ("Alice", "Bob", "Carol")),
    "limit3p-s2": ("holdem.limit.3p", 2, ("Alice", "Bob", "Carol")),
}


def dealer_lines(text: str) -> list[str]:
    """What must be equal: the ``STATE`` lines and the ``SCORE`` line."""
    return [line for line in text.splitlines() if line.startswith(("STATE:", "SCORE:"))]


def test_the_reference_data_is_whole():
    for name in LOGS:
        lines = dealer_lines((REFERENCE / f"{name}.log").read_text())
        assert len(lines) == 1001 and lines[-1].startswith("SCORE:"), name


def test_detplayers_on_the_hub_write_the_reference_dealers_logs(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK, xml=LOOPBACK)
    hub.extra += ["--set", f"acpc_seat_endpoint={LOOPBACK}", "--set", "create_rate=1000"]
    with hub:
        matches, programs = {}, []
        for name, (game, seed, players) in LOGS.items():
            spec = {
                "game": game,
                "players": [f"acpc:{p}" for p in players],
                "hands": 1000,
                "deals": "dealer",
                "seed": seed,
            }
            status, body, _ = hub.request("POST", "/acpc/matches", spec)
            assert status == 201, body
            match = json.loads(body)
            assert match["deals"] == "dealer" and match["seed"] == seed
            matches[name] = match
            for port in match["ports"]:
                programs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            str(REFERENCE / "detplayer.py"),
                            str(REFERENCE / f"{game}.game"),
                            "127.0.0.1",
                            str(port),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                    )  # fmt: skip
                )
        deadline = time.monotonic() + 420
        try:
            for name, match in matches.items():
                while time.monotonic() < deadline:
                    match = hub.get_json(f"/acpc/matches/{match['id']}")
                    if match["state"] == "over":
                        break
                    time.sleep(0.5)
                matches[name] = match
        finally:
            for proc in programs:
                try:
                    proc.wait(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        differences = {}
        for name, match in matches.items():
            assert match["state"] == "over" and not match["failed"], (name, match["reason"])
            status, body, _ = hub.request("GET", f"/acpc/matches/{match['id']}/log")
            assert status == 200
            got = dealer_lines(body.decode("ascii"))
            want = dealer_lines((REFERENCE / f"{name}.log").read_text())
            wrong = [(g, w) for g, w in zip(got, want, strict=False) if g != w]
            if wrong or len(got) != len(want):
                differences[name] = (len(got), len(want), wrong[:3])
        assert differences == {}
        assert all(proc.returncode == 0 for proc in programs)
        assert hub.errors() == []
