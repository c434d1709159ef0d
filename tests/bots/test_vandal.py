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
from tests.hubprocess import ROOT, HubProcess


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


@pytest.mark.parametrize("target", ["domino", "mnm", "xml", "web"])
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
    """A real ``twistd -n gamehub``: the live game finishes, nothing unhandled in the
    log, /api/health answers.  5 s of vandalism by default, 60 s with GAMEHUB_SOAK=full."""
    seconds = 60 if os.environ.get("GAMEHUB_SOAK") == "full" else 5
    loopback = "tcp:0:interface=127.0.0.1"
    with HubProcess(tmp_path, domino=loopback, web=loopback) as hub:
        status, body, _ = hub.request(
            "POST",
            "/api/games",
            {
                "type": "kingdomino",
                "seats": ["bot:greedy", "open", "bot:domino", "bot:domino-random"],
                "options": {"answer_seconds": 10, "think_seconds": 0.2},
            },
        )
        assert status == 201, body
        created = json.loads(body)
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
        print(json.dumps(report, indent=1))
        client.join(120)
        assert not client.is_alive() and client.error is None, repr(client.error)
        referee([client], names_by_id={0: "greedy", 1: "honest", 2: "domino", 3: "domino-random"})
        assert hub.get_json(f"/api/games/{created['id']}")["state"] == "over"
        assert report["accepted"] == []
        assert report["attacks"] >= 7
        assert set(report["outcomes"]) >= {"malformed", "oversized", "flood", "game_cheats"}
        assert hub.get_json("/api/health")["status"] == "ok"
        transcript = hub.request("GET", f"/api/games/{created['id']}/transcript")[1].decode()
        assert " in  LOGIN honest" in transcript
    assert hub.errors() == [], hub.log()[-3000:]


@pytest.mark.slow
def test_vandal_against_the_mnm_front_end(tmp_path):
    """vandal --target mnm joins a live Nine Men's Morris game and cheats; the hub
    survives, and a strict client on the same address plays its own game to the end."""
    from tests.frontends.test_mnm_sockets import search_thinker
    from tests.mnm_strict import StrictClient

    loopback = "tcp:0:interface=127.0.0.1"
    with HubProcess(tmp_path, mnm=loopback, web=loopback) as hub:
        game_ids = []
        for _ in range(2):
            status, body, _ = hub.request(
                "POST", "/api/games", {"type": "nmmorris", "seats": ["open", "bot:morris-random"]}
            )
            assert status == 201, body
            game_ids.append(json.loads(body)["id"])
        run = subprocess.Popen(
            [sys.executable, "-m", "bots.vandal", "--target", "mnm", "--json"]
            + ["--port", str(hub.ports["mnm"]), "--seconds", "3", "--game-id", game_ids[0]],
            cwd=str(ROOT),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        honest = StrictClient(hub.ports["mnm"])
        try:
            assert honest.prolog(game_ids[1]) == (0, "white")
            honest.play(search_thinker(1))  # raises on anything a strict client refuses
        finally:
            honest.close()
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()[-2000:]
        assert hub.get_json(f"/api/games/{game_ids[1]}")["state"] == "over"
        report = json.loads(out)
        assert report["accepted"] == []
        assert set(report["outcomes"]) == {"malformed", "oversized", "game", "slow_and_disconnect"}
        assert hub.get_json("/api/health")["status"] == "ok"
    assert hub.errors() == [], hub.log()[-3000:]


@pytest.mark.slow
def test_vandal_against_the_xml_front_end(tmp_path):
    """vandal --target xml: hostile frames and documents; the hub survives and answers,
    and a legitimate client on the same address is served all along (the limits
    against abuse refuse none of its requests)."""
    from tests.integration.xmlsocket import XMLClient, ok, outcome

    loopback = "tcp:0:interface=127.0.0.1"
    with HubProcess(tmp_path, xml=loopback, web=loopback) as hub:
        run = subprocess.Popen(
            [sys.executable, "-m", "bots.vandal", "--target", "xml", "--json"]
            + ["--port", str(hub.ports["xml"]), "--seconds", "3"],
            cwd=str(ROOT),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        refused, served = [], 0
        for n in range(10_000):  # bounded; ends with the vandal
            if run.poll() is not None and served:
                break
            honest = XMLClient(hub.ports["xml"])
            answers = [honest.login(f"honest{n}", "honest-pw-1")]
            answers.append(honest.request("<lobby><gamelist/></lobby>"))
            if n < 5:  # within the creation burst of an address (create_burst)
                answers.append(honest.request('<game><create gametype="hello" name="h"/></game>'))
            honest.close()
            served += 1
            assert all(ok(a) for a in answers[::2]), [outcome(a) for a in answers]
            refused += [outcome(a) for a in answers if outcome(a)[1] is not None]
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()[-2000:]
        assert served >= 2 and refused == []
        report = json.loads(out)
        assert report["accepted"] == []
        assert set(report["outcomes"]) == {"malformed", "framing", "flood"}
        assert hub.get_json("/api/health")["status"] == "ok"
    assert hub.errors() == [], hub.log()[-3000:]


def _honest_web_player(port: int, source: str) -> list[tuple[str, int]]:
    """A browser's session from ``source`` plays hello against a bot to the end, with
    its event stream open; the answers that were not 2xx."""
    import http.client

    cookie, csrf, refused = "", "", []

    def call(method: str, path: str, body: object = None) -> dict:
        nonlocal cookie, csrf
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(source, 0))
        headers = {"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": csrf}
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        answer = json.loads(response.read())
        conn.close()
        cookie = (response.getheader("Set-Cookie") or cookie).split(";")[0]
        if response.status >= 300:
            refused.append((path, response.status, answer))
        if isinstance(answer, dict):
            csrf = answer.get("csrf", csrf)
        return answer

    call("GET", "/api/session")
    game = call("POST", "/api/games", {"type": "hello", "seats": ["human", "bot:hello-bot"],
                                       "sit": 0})  # fmt: skip
    assert "id" in game, refused
    stream = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    stream.sendall(
        f"GET /api/games/{game['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Cookie: {cookie}\r\n\r\n".encode()
    )
    assert stream.recv(4096).startswith(b"HTTP/1.1 200")
    call("POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "hi"}})
    for _ in range(100):  # bounded: the bot answers at once
        if call("GET", f"/api/games/{game['id']}")["state"] == "over":
            break
        time.sleep(0.1)
    stream.close()
    for path in ("/api/games", f"/api/games/{game['id']}/replay", "/api/history", "/api/health"):
        call("GET", path)
    return refused


@pytest.mark.slow
def test_vandal_against_the_web_front_end(tmp_path):
    """vandal --target web: nothing it forges is accepted, the hub answers, and a
    browser's session from another address plays a game to the end meanwhile."""
    loopback = "tcp:0:interface=127.0.0.1"
    with HubProcess(tmp_path, web=loopback) as hub:
        run = subprocess.Popen(
            [sys.executable, "-m", "bots.vandal", "--target", "web", "--json"]
            + ["--port", str(hub.ports["web"]), "--seconds", "5", "--seed", "1"],
            cwd=str(ROOT),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        refused, played = [], 0
        while run.poll() is None or not played:  # bounded by the vandal's 5 s
            refused += _honest_web_player(hub.ports["web"], "127.0.0.2")
            played += 1
            time.sleep(1)  # a game a second: create_rate
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()[-2000:]
        assert refused == []
        report = json.loads(out)
        assert report["accepted"] == []
        assert set(report["outcomes"]) >= {"malformed", "oversized", "forged", "streams"}
        assert set(report["outcomes"]["oversized"]) == {"413"}
        assert hub.get_json("/api/health")["status"] == "ok"
    assert hub.errors() == [], hub.log()[-3000:]
