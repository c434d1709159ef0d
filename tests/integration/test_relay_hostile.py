"""The relay front end (issue 37) tried from outside as a hostile user would, on a
real ``twistd -n gamehub``: reserved names are refused, open connections are bounded
per address and in all, and a refused join changes nothing the lobby shows."""

from __future__ import annotations

import base64
import json
import socket
import struct
import time
from pathlib import Path

from games.poker.p2p.wire import Identity
from hub.frontends.relay import codec
from tests.hubprocess import LOOPBACK, HubProcess


class Peer:
    """A relay client on a raw socket."""

    def __init__(self, port: int, name: str, table: str = "t", source: str = "127.0.0.1"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15,
                                             source_address=(source, 0))  # fmt: skip
        self.id, self.name, self.table, self.buffer = Identity(), name, table, b""

    def send(self, body: object) -> None:
        raw = json.dumps(body).encode()
        self.sock.sendall(struct.pack(">I", len(raw)) + raw)

    def next(self) -> dict | None:
        while True:
            if len(self.buffer) >= 4:
                (n,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + n:
                    frame, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    return json.loads(frame)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk

    def join(self) -> dict | None:
        self.send({"op": "join", "table": self.table, "game": "holdem-p2p", "seats": 2,
                   "key": self.id.text, "name": self.name})  # fmt: skip
        challenge = self.next()
        if challenge is None or challenge["op"] != "challenge":
            return challenge
        proof = self.id.sign_raw(codec.proof_message(challenge["nonce"], self.table))
        self.send({"op": "auth", "proof": base64.b64encode(proof).decode()})
        return self.next()

    def close(self) -> None:
        self.sock.close()


def test_reserved_names_and_connection_bounds(tmp_path: Path):
    hub = HubProcess(tmp_path, relay=LOOPBACK, web=LOOPBACK)
    hub.extra += ["--set", "relay_max_per_address=3", "--set", "relay_max_connections=5"]
    peers: list[Peer] = []
    with hub:
        port = hub.ports["relay"]
        try:
            for name in ("admin", "bot.caller", "acpc.ann", "guest-abc123", "Root"):
                peer = Peer(port, name)
                answer = peer.join()
                assert answer is not None and answer["op"] == "error", (name, answer)
                assert "reserved" in answer["reason"], answer
                assert peer.next() is None  # closed
                peer.close()
            assert [g for g in hub.get_json("/api/games") if g["type"] == "holdem-p2p"] == []
            for _ in range(3):
                peers.append(Peer(port, "ann", table=f"x{len(peers)}"))
                answer = peers[-1].join()
                assert answer is not None and answer["op"] == "joined", answer
            over = Peer(port, "bob")
            answer = over.next()
            assert answer == {
                "op": "error",
                "reason": "too many connections from 127.0.0.1 (3 open)",
            }, answer
            over.close()
            for source in ("127.0.0.2", "127.0.0.2"):
                peers.append(Peer(port, "cy", table=f"x{len(peers)}", source=source))
                assert (peers[-1].join() or {}).get("op") == "joined"
            answer = Peer(port, "dee", source="127.0.0.3").next()
            assert answer == {
                "op": "error",
                "reason": "too many connections (5 open); try again later",
            }, answer
            peers.pop(0).close()  # room for one again, once the hub saw it go
            for _ in range(100):
                again = Peer(port, "eve", table="y", source="127.0.0.3")
                answer = again.join()
                if answer is not None and answer["op"] == "joined":
                    peers.append(again)
                    break
                again.close()
                time.sleep(0.05)
            else:
                raise AssertionError(answer)
        finally:
            for peer in peers:
                peer.close()
    assert hub.errors() == [], hub.log()[-3000:]


def test_one_address_makes_tables_no_faster_than_it_may_create_games(tmp_path: Path):
    """Each full table is a game of the lobby (and of the history): one address made
    100 of them in 5 s before; now at ``create_rate``/``create_burst``, as on the web."""
    hub = HubProcess(tmp_path, relay=LOOPBACK, web=LOOPBACK)
    hub.extra += ["--set", "create_burst=3", "--set", "create_rate=0.001"]
    with hub:
        port = hub.ports["relay"]
        for number in range(3):
            peer = Peer(port, "ann", table=f"t{number}")
            assert (peer.join() or {}).get("op") == "joined"
            peer.close()
        peer = Peer(port, "ann", table="t3")
        answer = peer.join()
        peer.close()
        assert answer is not None and answer["op"] == "error", answer
        assert answer["reason"].startswith("too many tables made from your address"), answer
        other = Peer(port, "bob", table="t4", source="127.0.0.2")  # another address may
        assert (other.join() or {}).get("op") == "joined"
        other.close()
    assert hub.errors() == [], hub.log()[-3000:]
