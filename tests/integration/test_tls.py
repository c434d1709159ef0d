"""TLS on every front end: a real ``twistd gamehub`` with ``ssl:`` endpoints for XML,
MNM, domino and web, certificates made in the test (root CA → intermediate → server,
laid out as Let's Encrypt's files), and a whole game on each front end played by the
project's own clients with the certificate checked.  Clients that trust another CA (or
only the platform's) are refused before a byte of the protocol is exchanged.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import defer, error, reactor

from hub.client import HubClient
from hub.frontends.xml.payload import wire_game_id
from hub.tls import ClientTLS, TLSConfigError, describe, from_args, load_certificates
from tests.hubprocess import ROOT, HubProcess
from tests.tlscerts import PKI, make_pki

LIMIT = 30.0


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> PKI:
    return make_pki(tmp_path_factory.mktemp("pki"), "hub")


@pytest.fixture(scope="module")
def stranger(tmp_path_factory) -> PKI:
    """Another CA: a client that trusts only it must refuse the hub."""
    return make_pki(tmp_path_factory.mktemp("stranger"), "stranger")


@pytest.fixture(scope="module")
def hub(tmp_path_factory, pki):
    tmp = tmp_path_factory.mktemp("tlshub")
    running = HubProcess(
        tmp,
        xml=pki.endpoint(),
        mnm=pki.endpoint(),
        domino=pki.endpoint(),
        web=pki.endpoint(),
    )
    running.start()
    try:
        yield running
    finally:
        running.stop()
    assert running.errors() == []


class HTTPS:
    """A cookie-keeping HTTPS client of the hub's web front end that trusts ``ca``."""

    def __init__(self, hub: HubProcess, ca: Path) -> None:
        self.port = hub.ports["web"]
        self.context = ssl.create_default_context(cafile=str(ca))
        self.cookie: str | None = None
        self.csrf: str | None = None

    def call(self, method: str, path: str, body: object = None) -> tuple[int, object]:
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=10, context=self.context)
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.csrf and method != "GET":
            headers["X-CSRF-Token"] = self.csrf
        data = None if body is None else json.dumps(body).encode()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            cookie = response.getheader("Set-Cookie")
        finally:
            conn.close()
        if cookie:
            assert "Secure" in cookie
            self.cookie = cookie.split(";", 1)[0]
        payload = json.loads(raw) if raw[:1] in (b"{", b"[") else raw
        if isinstance(payload, dict) and "csrf" in payload:
            self.csrf = payload["csrf"]
        return response.status, payload


def run_client(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(ROOT),
    )


def create_game(hub: HubProcess, pki: PKI, body: dict) -> dict:
    status, game = HTTPS(hub, pki.ca).call("POST", "/api/games", body)
    assert status == 201, game
    assert isinstance(game, dict)
    return game


# -- the client side, without a hub --------------------------------------------------------


def test_ca_file_problems_are_clear(tmp_path, pki):
    assert len(load_certificates(pki.chain)) == 1
    assert len(load_certificates(pki.ca.parent / "fullchain.pem")) == 2
    with pytest.raises(TLSConfigError, match="cannot read the CA file"):
        load_certificates(tmp_path / "missing.pem")
    (tmp_path / "empty.pem").write_text("not a certificate\n")
    with pytest.raises(TLSConfigError, match="holds no PEM certificate"):
        load_certificates(tmp_path / "empty.pem")
    import argparse

    assert from_args(argparse.Namespace(tls=False, ca=None)) is None
    assert from_args(argparse.Namespace(tls=True, ca=None)) == ClientTLS(None)
    with pytest.raises(TLSConfigError):
        from_args(argparse.Namespace(tls=False, ca=str(tmp_path / "empty.pem")))


# -- XML ---------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_xml_game_over_tls(hub, pki):
    """``hub.client`` checks the chain (root → intermediate → server) and plays hello."""
    ann = await bounded(
        HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"], tls=ClientTLS(str(pki.ca)))
    )
    try:
        await bounded(ann.create_account("tls-ann", "secret-ann"))
        await bounded(ann.login("tls-ann", "secret-ann"))
        gameid = await bounded(ann.create_game("hello", "tls", seats=["open", "bot:hello-bot"]))
        await bounded(ann.join(gameid))
        await bounded(ann.act(gameid, "<hello>over TLS</hello>"))
        await bounded(ann.wait_for(lambda u: u.payload is not None and u.payload.tag == "over"))
        assert ann.invalid == []
    finally:
        await ann.close()
    # the host name is checked too: localhost is in the certificate's names
    bob = await bounded(
        HubClient.connect(reactor, "localhost", hub.ports["xml"], tls=ClientTLS(str(pki.ca)))
    )
    await bob.close()


@pytest_twisted.ensureDeferred
async def test_xml_client_refuses_an_unknown_ca(hub, stranger):
    for tls in (ClientTLS(str(stranger.ca)), ClientTLS()):  # another CA; the platform's
        with pytest.raises(error.ConnectionLost, match="TLS failed: certificate verify failed"):
            await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"], tls=tls))


def xml_client(port: int, *options: str) -> subprocess.CompletedProcess:
    """``gamehub xml-client`` as a person runs it: ``help``, then ``quit``."""
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", "xml-client", "--hub", f"localhost:{port}", *options],
        input="help\nquit\n", capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=str(ROOT),
    )  # fmt: skip


def test_the_xml_client_command_exits_non_zero_when_refused(hub, pki, stranger, tmp_path):
    """Issue 32: ``gamehub xml-client`` said it could not connect and exited 0."""
    refused = xml_client(hub.ports["xml"], "--ca", str(stranger.ca))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "certificate verify failed" in refused.stderr
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    nobody = xml_client(closed)
    assert nobody.returncode == 1 and "cannot connect" in nobody.stderr, nobody.stderr
    played = xml_client(hub.ports["xml"], "--ca", str(pki.ca))
    assert played.returncode == 0, played.stderr
    assert "connected to" in played.stdout and "commands:" in played.stdout


def test_network_poker_bot_over_tls(hub, pki):
    """``python -m bots.holdem --ca FILE`` plays hands against an in-hub bot."""
    game = create_game(
        hub,
        pki,
        {"type": "texas-holdem", "seats": ["bot:caller", "open"], "options": {"showdown_pause": 0}},
    )
    argv = ["-m", "bots.holdem", "--port", str(hub.ports["xml"]), "--ca", str(pki.ca)]
    argv += [
        "--account",
        "tls-bot",
        "--password",
        "tls-bot-pw",
        "--game",
        str(wire_game_id(game["id"])),
    ]
    done = run_client(*argv, "--hands", "3", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "seated at table" in done.stdout and "left after" in done.stdout


def test_network_poker_bot_refuses_an_unknown_ca(hub, stranger):
    argv = ["-m", "bots.holdem", "--port", str(hub.ports["xml"]), "--ca", str(stranger.ca)]
    done = run_client(*argv, "--account", "x-bot", "--password", "x-bot-pw", "--create")
    assert done.returncode != 0
    assert "certificate verify failed" in done.stderr


# -- MNM ---------------------------------------------------------------------------------


def test_mnm_game_over_tls(hub, pki, stranger):
    game = create_game(hub, pki, {"type": "nmmorris", "seats": ["bot:morris-random", "open"]})
    common = ["-m", "bots.morris", "--port", str(hub.ports["mnm"]), "--game-id", game["id"]]
    refused = run_client(*common, "--ca", str(stranger.ca))
    assert refused.returncode == 1 and "certificate verify failed" in refused.stderr
    played = run_client(*common, "--ca", str(pki.ca), "--player", "1", "--max-seconds", "0.05")
    assert played.returncode == 0, played.stderr
    status, over = HTTPS(hub, pki.ca).call("GET", f"/api/games/{game['id']}")
    assert status == 200 and isinstance(over, dict) and over["state"] == "over"
    # a win, or a repetition the bot did not break in 0.05 s a move; never a loss
    verdict = "draw" if over["result"]["draw"] else "won"
    assert over["result"]["winners"] == ([] if verdict == "draw" else [1]), over["result"]
    assert f"game {game['id']} over: player 1 (black) {verdict}" in played.stdout


# -- domino ------------------------------------------------------------------------------


def test_domino_game_over_tls(hub, pki, stranger):
    game = create_game(
        hub,
        pki,
        {
            "type": "kingdomino",
            "seats": ["open", "bot:greedy", "bot:domino-random", "bot:domino-random"],
            "options": {"answer_seconds": 10, "think_seconds": 0.05},
        },
    )
    common = ["-m", "bots.kingdomino", "--port", str(hub.ports["domino"]), "--think", "0.05"]
    refused = run_client(*common, "--login", "stranger", "--ca", str(stranger.ca))
    assert refused.returncode == 1 and "certificate verify failed" in refused.stderr
    played = run_client(*common, "--login", "tlsplayer", "--bot", "greedy", "--ca", str(pki.ca))
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("GAME OVER RESULTS ") and "tlsplayer" in played.stdout
    status, over = HTTPS(hub, pki.ca).call("GET", f"/api/games/{game['id']}")
    assert status == 200 and isinstance(over, dict) and over["state"] == "over"


# -- web ---------------------------------------------------------------------------------


def test_web_game_over_tls(hub, pki):
    """A browser's session (Secure cookie, CSRF token) takes a seat and plays hello."""
    web = HTTPS(hub, pki.ca)
    status, health = web.call("GET", "/api/health")
    assert status == 200 and isinstance(health, dict)
    status, session = web.call("GET", "/api/session")
    assert status == 200 and web.cookie is not None
    game = create_game(hub, pki, {"type": "hello", "seats": ["human", "bot:hello-bot"]})
    status, seated = web.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})
    assert status == 200, seated
    status, acted = web.call(
        "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "hi over TLS"}}
    )
    assert status == 200, acted
    for _ in range(200):
        status, now = web.call("GET", f"/api/games/{game['id']}")
        if isinstance(now, dict) and now["state"] == "over":
            break
    else:
        raise AssertionError("the game did not end")


def test_web_refuses_plain_http_and_unknown_ca(hub, stranger):
    context = ssl.create_default_context(cafile=str(stranger.ca))
    conn = http.client.HTTPSConnection("127.0.0.1", hub.ports["web"], timeout=10, context=context)
    with pytest.raises(ssl.SSLCertVerificationError):
        conn.request("GET", "/api/health")
    conn.close()


def test_fetch_over_https(hub, pki, stranger, tmp_path):
    """``gamehub fetch --ca`` checks the certificate; another CA installs nothing."""
    url = f"https://127.0.0.1:{hub.ports['web']}"
    into = tmp_path / "fetched"
    refused = run_client("-m", "hub.cli", "fetch", "hello", "--hub", url, "--into", str(into),
                         "--ca", str(stranger.ca))  # fmt: skip
    assert refused.returncode == 1
    assert (
        "certificate verify failed" in refused.stderr and "nothing was installed" in refused.stderr
    )
    assert not into.exists()
    done = run_client("-m", "hub.cli", "fetch", "hello", "--hub", url, "--into", str(into),
                      "--ca", str(pki.ca))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (into / "plugins" / "meta" / "hello.meta").is_file()


def test_describe_names_a_failed_check():
    from OpenSSL import SSL
    from twisted.python.failure import Failure

    failure = Failure(SSL.Error([("SSL routines", "", "certificate verify failed")]))
    assert describe(failure) == "TLS failed: certificate verify failed"
    assert describe(Failure(error.ConnectionDone())) == "Connection was closed cleanly."
