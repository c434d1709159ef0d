"""The relay front end on in-memory transports (``StringTransport``, a fake clock):
joining with a proof of one's key, frames passed on by key, the lobby's game of a full
table, and hostile input: malformed, oversized, out-of-state, forged, too many."""

from __future__ import annotations

import base64
import json
import struct

import pytest

from games.hello.server import HelloGameFactory
from games.poker.mirror import PeerTableFactory
from games.poker.p2p.wire import Identity
from hub.frontends.relay import codec, make_factory
from hub.frontends.relay.states import State
from tests.support import DictRegistry, FakeHub, TCPStringTransport


class Peer:
    """One connection to the relay, with an Ed25519 key."""

    def __init__(self, factory, name: str = "p") -> None:
        self.id = Identity()
        self.name = name
        self.proto = factory.buildProtocol(None)
        self.transport = TCPStringTransport()
        self.proto.makeConnection(self.transport)
        self._seen = 0

    def send(self, body) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.proto.dataReceived(struct.pack(">I", len(raw)) + raw)

    def frames(self) -> list[dict]:
        """Every frame written since the last call."""
        data = self.transport.value()[self._seen :]
        out = []
        while len(data) >= 4:
            (n,) = struct.unpack(">I", data[:4])
            out.append(json.loads(data[4 : 4 + n]))
            data = data[4 + n :]
            self._seen += 4 + n
        return out

    def hello(self, table: str = "t1", seats: int = 2, game: str = "holdem-p2p") -> dict:
        self.send({"op": "join", "table": table, "game": game, "seats": seats,
                   "key": self.id.text, "name": self.name})  # fmt: skip
        return self.frames()[-1]

    def join(self, table: str = "t1", seats: int = 2) -> dict:
        challenge = self.hello(table, seats)
        assert challenge["op"] == "challenge", challenge
        proof = self.id.sign_raw(codec.proof_message(challenge["nonce"], table))
        self.send({"op": "auth", "proof": base64.b64encode(proof).decode()})
        return self.frames()[-1]

    def relay(self, data: bytes, to: str | None = None) -> None:
        self.send({"op": "send", "to": to, "data": base64.b64encode(data).decode()})

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting


@pytest.fixture
def factory(tmp_path):
    registry = DictRegistry([PeerTableFactory(), HelloGameFactory()])
    hub = FakeHub(registry, data=tmp_path, relay_rate=50, relay_burst=50, relay_max_frame=4096)
    made = make_factory(hub)
    made.hub = hub
    return made


def test_a_peer_joins_by_proving_its_key_and_the_others_hear_of_it(factory):
    alice, bob = Peer(factory, "alice"), Peer(factory, "bob")
    joined = alice.join()
    assert joined == {"op": "joined", "table": "t1", "game": "holdem-p2p", "seats": 2, "peers": []}
    joined = bob.join()
    assert joined["peers"] == [{"key": alice.id.text, "name": "alice"}]
    assert alice.frames() == [{"op": "peer", "key": bob.id.text, "name": "bob"}]
    assert alice.proto.machine.state is State.JOINED


def test_frames_go_to_every_other_peer_or_to_one_named_by_its_key(factory):
    alice, bob, carol = (Peer(factory, n) for n in ("alice", "bob", "carol"))
    for p in (alice, bob, carol):
        p.join(seats=3)
    for p in (alice, bob, carol):
        p.frames()
    alice.relay(b"to everyone")
    for p in (bob, carol):
        assert p.frames() == [{"op": "from", "key": alice.id.text,
                               "data": base64.b64encode(b"to everyone").decode()}]  # fmt: skip
    assert alice.frames() == []
    bob.relay(b"only carol", to=carol.id.text)
    assert carol.frames()[0]["data"] == base64.b64encode(b"only carol").decode()
    assert alice.frames() == []


def test_a_full_table_is_a_game_in_the_lobby_seated_in_key_order(factory):
    alice, bob = Peer(factory, "alice"), Peer(factory, "bob")
    alice.join()
    alice.relay(b"before the table is full")  # kept for the lobby's game
    bob.join()
    (game,) = factory.hub.lobby.games()
    assert game.type == "holdem-p2p" and game.name == "t1"
    by_key = sorted([alice, bob], key=lambda p: p.id.verify_key)
    assert [s.player for s in game.seats] == [p.name for p in by_key]
    assert factory.rooms["t1"].to_json()["game_id"] == game.id
    # a person at the hub cannot play it
    with pytest.raises(Exception, match="played by its peers"):
        game.act(0, {"name": "call"})
    # leaving: the others are told; the room goes when empty
    alice.proto.connectionLost(None)
    assert bob.frames()[-1] == {"op": "left", "key": alice.id.text}
    bob.proto.connectionLost(None)
    assert factory.rooms == {}
    assert game.state == "over"


def test_a_proof_by_another_key_is_refused(factory):
    alice, mallory = Peer(factory, "alice"), Identity()
    challenge = alice.hello()
    proof = mallory.sign_raw(codec.proof_message(challenge["nonce"], "t1"))
    alice.send({"op": "auth", "proof": base64.b64encode(proof).decode()})
    assert alice.frames()[-1] == {
        "op": "error",
        "reason": "the proof does not verify with that key",
    }
    assert alice.closed
    assert factory.rooms["t1"].peers == {}


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (b"not json", "a frame is one JSON object"),
        (b"[1, 2]", "a frame is one JSON object"),
        ({"op": "dance"}, "unknown op"),
        ({"op": "send", "to": None, "data": "AA=="}, "not at a table yet"),
        ({"op": "auth", "proof": "AA=="}, "auth: 'proof' is base64"),
        ({"op": "join", "table": "a b", "game": "holdem-p2p", "seats": 2, "key": "k", "name": "x"},
         "'table' is 1 to 64"),
        ({"op": "join", "table": "t", "game": "holdem-p2p", "seats": 99, "key": "k", "name": "x"},
         "'seats' is 2 to 10"),
        ({"op": "join", "table": "t", "game": "holdem-p2p", "seats": 2, "key": "k", "name": "x"},
         "'key' is ed25519"),
    ],
)  # fmt: skip
def test_malformed_and_out_of_state_requests_are_refused_and_closed(factory, request_, reason):
    p = Peer(factory)
    p.send(request_)
    last = p.frames()[-1]
    assert last["op"] == "error" and reason in last["reason"], last
    assert p.closed and factory.rooms == {}


def test_a_hello_for_a_game_that_is_not_played_peer_to_peer_is_refused(factory):
    p = Peer(factory)
    assert p.hello(game="hello")["reason"] == "hello is not a game played peer to peer"
    q = Peer(factory)
    assert "no game type" in q.hello(game="nothing")["reason"]


def test_a_full_table_a_taken_name_and_a_second_hello_are_refused(factory):
    a, b, c = Peer(factory, "a"), Peer(factory, "b"), Peer(factory, "a")
    a.join()
    assert c.hello()["reason"] == "the name a is taken at table t1"
    b.join()
    d = Peer(factory, "d")
    assert d.hello()["reason"] == "table t1 is full"
    e = Peer(factory, "e")
    assert "plays holdem-p2p with 2 seats" in e.hello(seats=3)["reason"]
    a.send({"op": "join", "table": "t2", "game": "holdem-p2p", "seats": 2,
            "key": a.id.text, "name": "a"})  # fmt: skip
    assert a.frames()[-1] == {"op": "error", "reason": "already joined"}


def test_oversized_frames_and_floods_close_the_connection(factory):
    p = Peer(factory)
    p.join()
    p.relay(b"x" * 5000)  # over relay_max_frame
    assert p.frames()[-1]["op"] == "error" and p.closed
    q = Peer(factory, "q")
    q.join(table="t2")
    q.proto.dataReceived(struct.pack(">I", 10_000_000))  # a length no frame may have
    assert q.frames()[-1]["reason"].startswith("a frame of 10000000 bytes") and q.closed
    r = Peer(factory, "r")
    r.join(table="t3")
    for _ in range(60):
        r.relay(b"hi")
    assert r.frames()[-1] == {"op": "error", "reason": "too many frames"} and r.closed


def test_a_peer_that_does_not_read_is_dropped_past_the_queue_limit(factory):
    factory.max_queue = 1000
    alice, bob = Peer(factory, "alice"), Peer(factory, "bob")
    alice.join()
    bob.join()
    bob.proto.pauseProducing()  # bob's socket is full
    alice.relay(b"y" * 100)
    assert not bob.closed and bob.frames() == []  # queued
    bob.proto.resumeProducing()
    assert len(bob.frames()) == 1  # sent once bob reads again
    bob.proto.pauseProducing()
    for _ in range(10):
        alice.relay(b"y" * 100)
    assert bob.closed and bob.frames() == []  # dropped, its queue with it


def test_hello_and_idle_time_limits(factory):
    slow = Peer(factory)
    factory.reactor.advance(factory.join_seconds + 1)
    assert slow.frames()[-1] == {"op": "error", "reason": "too slow to join a table"}
    idle = Peer(factory, "idle")
    idle.join()
    factory.reactor.advance(factory.idle_seconds + 1)
    assert idle.frames()[-1] == {"op": "error", "reason": "idle too long"}


def test_the_tables_are_listed(factory):
    a = Peer(factory, "a")
    a.join(table="poker-night", seats=3)
    lister = Peer(factory, "x")
    lister.send({"op": "list"})
    (tables,) = lister.frames()
    assert tables["tables"] == [{"table": "poker-night", "game": "holdem-p2p", "seats": 3,
                                 "peers": [{"key": a.id.text, "name": "a"}], "game_id": None}]  # fmt: skip


def test_a_peer_alone_at_a_table_makes_the_hub_hold_a_bounded_backlog(factory):
    """Frames before the table is full wait for its lobby game: at most
    ``relay_backlog`` of them and ``relay_backlog_bytes`` of data (issue 37's relay,
    hostile: one peer of a 3-seat table sent 400 frames of 500 KB and the hub held
    380 MB; what its transcript kept before the game: tests/hub/test_transcript.py)."""
    factory.backlog_bytes = 10_000
    alone = Peer(factory, "alone")
    alone.join(seats=3)
    for _ in range(12):
        alone.relay(b"z" * 1000)
    room = factory.rooms["t1"]
    assert len(room.backlog) == 10 and room.backlog_bytes == 10_000
