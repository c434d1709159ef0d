"""Fuzz the relay front end (peer-to-peer tables, docs/p2p.md) on a real hub, over
loopback sockets.

A connection fuzzes before its hello, once challenged, or at a full table of two it
joined with a partner: there the hub passes its frames on and gives them to the
lobby's game of the table (the peer-to-peer hold'em mirror), so fuzzed data reaches
that game too: random bytes, mutations of signed messages, signed messages with random
fields.  The relay answers a request it does not take with ``error`` and closes; the
driver counts what it sent.
"""

from __future__ import annotations

import base64
import json
import random
import socket
import struct

import pytest

from games.poker.p2p.wire import Identity
from hub.frontends.relay.codec import proof_message

from . import common

#: where a connection starts fuzzing, with its weight
STATES = {"connected": 2, "challenged": 2, "joined": 5}
OPS = ("join", "auth", "send", "list", "from", "joined", "")
FIELDS = ("table", "game", "seats", "key", "name", "proof", "to", "data", "op", "nonce")


class RelayTarget(common.Target):
    """Relay clients; each ``joined`` one sits at a table of two with a partner."""

    name = "relay"
    parallel = 4

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.port = self.hub.ports["relay"]

    def value(self, rng: random.Random):
        return rng.choice((
            common.text(rng), common.number(rng), None, True, [], {}, [1, "x"], {"a": {"b": 1}},
            "ed25519:" + base64.b64encode(rng.randbytes(32)).decode(),
            base64.b64encode(rng.randbytes(rng.randrange(64))).decode(),
        ))  # fmt: skip

    def grammar(self, rng: random.Random) -> bytes:
        body = {"op": rng.choice(OPS)}
        for name in rng.sample(FIELDS, rng.randrange(len(FIELDS))):
            body[name] = self.value(rng)
        return json.dumps(body).encode()

    def data(self, rng: random.Random, me: Identity) -> bytes:
        """What a peer sends a table: junk, or a signed message of random fields."""
        roll = rng.random()
        if roll < 0.3:
            return rng.randbytes(rng.randrange(300))
        body = {name: self.value(rng) for name in rng.sample(
            ["k", "a", "t", "h", "ph", "prev", "act", "deck", "keys", "sealed", "show",
             "stacks", "void", "cheaters", "frames", "frame", "silent", "name", "key",
             "params", "commit", "roster", "nonce"], rng.randrange(1, 8))}  # fmt: skip
        body.setdefault("k", rng.choice(("hello", "seat", "act", "board", "end", "done",
                                         "claim", "echo", "dump", "proof")))  # fmt: skip
        frame = me.sign(body)
        return common.mutate(rng, frame) if roll < 0.5 else frame

    def fuzzed(self, rng: random.Random, valid: list[bytes]) -> tuple[str, bytes]:
        roll = rng.random()
        if roll < 0.4:
            return "grammar", self.grammar(rng)
        if roll < 0.55:
            return "wrong_state", rng.choice(valid)
        return "mutated", common.mutate(rng, rng.choice(valid), valid)

    def connection(self, rng: random.Random) -> None:
        depth = rng.choices(list(STATES), list(STATES.values()))[0]
        table = f"fz{rng.randrange(10**9)}"
        me = Identity()
        hello = {"op": "join", "table": table, "game": "holdem-p2p", "seats": 2,
                 "key": me.text, "name": f"p{rng.randrange(10**6)}"}  # fmt: skip
        valid = [json.dumps(hello).encode(), b'{"op":"list"}', b'{"op":"auth","proof":"AA=="}']
        with _Client(self.port, self.count) as client:
            if depth == "connected":
                client.fuzz(self, rng, valid, rng.randrange(1, 6))
                return
            challenge = client.call(json.dumps(hello).encode())
            if challenge is None or challenge.get("op") != "challenge":
                return
            if depth == "challenged":
                client.fuzz(self, rng, valid, rng.randrange(1, 6))
                return
            partner = _Client(self.port, lambda kind: None)
            try:
                if not client.auth(me, challenge["nonce"], table):
                    return
                other = Identity()
                partner.join(other, table)  # the table is full: its game is in the lobby
                for _ in range(rng.randrange(1, 30)):
                    if rng.random() < 0.7:
                        body = {"op": "send", "to": None,
                                "data": base64.b64encode(self.data(rng, me)).decode()}  # fmt: skip
                        if not client.send(json.dumps(body).encode(), "mutated"):
                            return
                    elif not client.fuzz(self, rng, valid, 1):
                        return
            finally:
                partner.close()

    def served(self) -> None:
        with _Client(self.port, lambda kind: None) as client:
            assert client.join(Identity(), f"check{random.randrange(10**9)}", seats=3)


class _Client:
    """A blocking relay client: length-prefixed JSON frames."""

    def __init__(self, port: int, count) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.count = count

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes, kind: str, length: int | None = None) -> bool:
        try:
            self.sock.sendall(struct.pack(">I", len(data) if length is None else length) + data)
        except OSError:
            return False
        self.count(kind)
        return True

    def read(self) -> dict | None:
        try:
            common.quick_ack(self.sock)
            head = self.sock.recv(4, socket.MSG_WAITALL)
            if len(head) < 4:
                return None
            (n,) = struct.unpack(">I", head)
            body = self.sock.recv(n, socket.MSG_WAITALL)
        except OSError:
            return None
        try:
            return json.loads(body)
        except ValueError:
            raise AssertionError(f"the hub sent what is not JSON: {body[:80]!r}") from None

    def call(self, data: bytes, kind: str = "valid") -> dict | None:
        return self.read() if self.send(data, kind) else None

    def auth(self, me: Identity, nonce: str, table: str) -> bool:
        proof = base64.b64encode(me.sign_raw(proof_message(nonce, table))).decode()
        answer = self.call(json.dumps({"op": "auth", "proof": proof}).encode())
        return answer is not None and answer.get("op") == "joined"

    def join(self, me: Identity, table: str, seats: int = 2) -> bool:
        hello = {"op": "join", "table": table, "game": "holdem-p2p", "seats": seats,
                 "key": me.text, "name": f"q{random.randrange(10**6)}"}  # fmt: skip
        challenge = self.call(json.dumps(hello).encode())
        return challenge is not None and self.auth(me, challenge["nonce"], table)

    def fuzz(self, target: RelayTarget, rng: random.Random, valid, frames: int) -> bool:
        """``frames`` fuzzed frames (one with a lying length now and then); ``False``
        once the hub closed the connection (it does at the first one it refuses)."""
        for _ in range(frames):
            kind, data = target.fuzzed(rng, valid)
            length = rng.choice((None,) * 9 + (rng.randrange(2**32),))
            if not self.send(data, kind, length):
                return False
            if length is not None:
                return False  # the rest of the stream is off by the lie: done
        return True


TARGET = RelayTarget


def test_fuzz_relay_bounded(hub):
    """A few thousand fuzzed relay frames (the CI run); the tables' lobby games took
    what reached them without a fault."""
    common.bounded(hub, TARGET)
    games = [g for g in hub.get_json("/api/games") if g["type"] == "holdem-p2p"]
    assert games, "no fuzzing connection reached a full table"


@pytest.mark.slow
def test_fuzz_relay_full(hub):
    """At least 10^5 fuzzed relay frames (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
