"""The relay front end: the hub as a meeting place for tables played peer to peer.

Players whose programs play a game among themselves (each checks every move; nobody
trusts the hub) meet here when they cannot reach each other: each connection says
which table it joins (:class:`.codec.Join`), proves its Ed25519 key by signing a
challenge, and from then on the hub passes its frames to the other peers of the table,
naming the sender (``from``), and tells them when a peer joins or leaves.  The hub
reads nothing of the frames: it cannot deal, see or choose anything of the game.

A table (:class:`Room`) is made by the first join, with its game type and number of
seats; when it is full, the hub makes a game of that type in its lobby, seats the
peers there in the byte order of their keys and gives it every frame through the
game's relay adapter (:class:`hub.interfaces.IRelayAdapter`), so the lobby and the web
page show the table as it goes, from what its messages make public.  Every frame that
comes in is in the game's transcript.

Limits (settings, docs/settings.md): ``relay_max_frame`` (bytes; larger: ``error``
and closed), ``relay_max_tables``, ``relay_join_seconds`` (to join),
``relay_idle_seconds`` (without a frame), ``relay_rate``/``relay_burst`` (frames a
second), ``relay_max_queue`` (bytes waiting for a peer that does not read; more: it is
removed), ``relay_backlog`` and ``relay_backlog_bytes`` (frames, and their bytes in
all, kept for the lobby's game until the table is full),
``relay_max_per_address``/``relay_max_connections`` (open connections; more: ``error``
and closed at once).  A new table becomes a game of the lobby, so one address makes
tables as fast as it may create games anywhere (``create_rate``/``create_burst``).  A peer's name is shown in the lobby, so no peer takes a name
reserved for the hub's bots, programs, guests or admins (:mod:`hub.connections.names`).
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from twisted.internet import defer
from twisted.internet.interfaces import IPushProducer
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from zope.interface import implementer

from hub.connections.limits import Buckets, ConnectionCap, creation_limits
from hub.connections.names import reserved
from hub.connections.sockets import no_delay
from hub.connections.states import Machine
from hub.connections.transcript import ConnectionRecord
from hub.interfaces import IRelayAdapter
from hub.model import GameError
from hub.plugins.signing import SignatureError, parse_public_key

from . import codec
from .states import REFUSALS, TRANSITIONS, Input, State

#: Defaults of the settings a hub may override through ``hub.options``.
DEFAULTS: dict[str, Any] = {
    "relay_max_frame": 512 * 1024,
    "relay_max_tables": 100,
    "relay_join_seconds": 30.0,
    "relay_idle_seconds": 600.0,
    "relay_rate": 200.0,
    "relay_burst": 400.0,
    "relay_max_queue": 4 * 1024 * 1024,
    "relay_backlog": 256,
    "relay_backlog_bytes": 1024 * 1024,
    "relay_max_per_address": 32,
    "relay_max_connections": 1024,
}


class Room:
    """A table whose peers meet at the hub.

    :ivar peers: key → connection, in the order they joined.
    """

    def __init__(self, name: str, game_type: str, seats: int, adapter: Any) -> None:
        self.name = name
        self.game_type = game_type
        self.seats = seats
        self.adapter = adapter
        self.peers: dict[str, RelayProtocol] = {}
        self.waiting: set[str] = set()  #: keys challenged, not yet joined
        self.game: Any = None  # the lobby's game, once the table is full
        self.opening = False  #: the hub is creating that game
        self.seat_of: dict[str, int] = {}
        #: frames for the lobby's game, kept until it exists (sender key, data)
        self.backlog: deque[tuple[str, bytes]] = deque()
        self.backlog_bytes = 0  #: the data's bytes in :attr:`backlog`

    @property
    def full(self) -> bool:
        """Whether every seat has its peer."""
        return len(self.peers) >= self.seats

    def names(self) -> set[str]:
        """The names taken at the table."""
        return {p.name for p in self.peers.values() if p.name}

    def to_json(self) -> dict[str, Any]:
        """For ``tables``."""
        return {
            "table": self.name,
            "game": self.game_type,
            "seats": self.seats,
            "peers": [{"key": k, "name": p.name} for k, p in self.peers.items()],
            "game_id": None if self.game is None else self.game.id,
        }


@implementer(IPushProducer)
class RelayProtocol(Int32StringReceiver):
    """One peer's connection to the relay."""

    log = Logger()
    factory: RelayFactory

    def __init__(self) -> None:
        self.conn_id = "r?"
        self.machine: Machine[State, Input] = Machine(TRANSITIONS, State.CONNECTED)
        self.records = ConnectionRecord(self.conn_id)
        self.room: Room | None = None
        self.key = ""
        self.name = ""
        self._nonce = b""
        self._join_timer: Any = None
        self._idle_timer: Any = None
        self._paused = False
        self._queue: deque[bytes] = deque()
        self._queued = 0
        self.peer = ""  #: the client's address (counted by the factory's cap)

    # -- connection ------------------------------------------------------------------------

    @property
    def tcp(self) -> Any:
        """The connection's transport (TCP or TLS: a consumer for producers)."""
        return self.transport

    def connectionMade(self) -> None:  # noqa: N802
        """Start the clock for joining; be told when our writes back up."""
        self.MAX_LENGTH = self.factory.max_frame * 4 // 3 + 1024
        no_delay(self.transport)
        self.conn_id = self.records.conn_id = self.factory.next_connection_id()
        self.tcp.registerProducer(self, True)
        self._join_timer = self.factory.reactor.callLater(
            self.factory.join_seconds, self._remove, "too slow to join a table"
        )
        self._touch()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """Leave the table; the other peers are told."""
        for timer in (self._join_timer, self._idle_timer):
            if timer is not None and timer.active():
                timer.cancel()
        self._join_timer = self._idle_timer = None
        self.machine.move(Input.LOST)
        self.factory.leave(self)
        self.factory.cap.release(self.peer)
        self.records.end()

    def _touch(self) -> None:
        if self._idle_timer is not None and self._idle_timer.active():
            self._idle_timer.reset(self.factory.idle_seconds)
        else:
            self._idle_timer = self.factory.reactor.callLater(
                self.factory.idle_seconds, self._remove, "idle too long"
            )

    # -- frames in -------------------------------------------------------------------------

    def stringReceived(self, frame: bytes) -> None:  # noqa: N802
        """One frame: check the rate, decode it, ask the state table, handle it."""
        if self.machine.state in (State.REMOVED, State.CLOSED):
            return
        self._touch()
        if not self.factory.rates.allow(self.conn_id):
            self._remove("too many frames")
            return
        request = codec.decode(frame, self.factory.max_frame)
        move = MOVES.get(type(request))
        if move is None:
            assert isinstance(request, codec.Invalid)
            self._remove(request.reason)
            return
        if not self.machine.allows(move):
            self._remove(REFUSALS.get(move, "not now"))
            return
        self.records.record("in", frame)
        HANDLERS[move](self, request)

    def lengthLimitExceeded(self, length: int) -> None:  # noqa: N802
        """A frame over the limit: ``error`` and closed."""
        self._remove(f"a frame of {length} bytes; at most {self.factory.max_frame} of data")

    def _on_join(self, join: codec.Join) -> None:
        refusal = self.factory.check_join(self, join)
        if refusal is not None:
            self._remove(refusal)
            return
        self.machine.move(Input.JOIN)
        self._nonce = secrets.token_bytes(32)
        self.send_op("challenge", nonce=self._nonce.hex())

    def _on_auth(self, auth: codec.Auth) -> None:
        room = self.room
        assert room is not None
        try:
            key = parse_public_key(self.key)
            key.verify(auth.proof, codec.proof_message(self._nonce.hex(), room.name))
        except (SignatureError, InvalidSignature):
            self._remove("the proof does not verify with that key")
            return
        if self._join_timer is not None and self._join_timer.active():
            self._join_timer.cancel()
        self._join_timer = None
        self.machine.move(Input.AUTH)
        self.factory.join(self)

    def _on_send(self, send: codec.Send) -> None:
        self.machine.move(Input.SEND)
        self.factory.relay(self, send)

    def _on_list(self, request: codec.ListTables) -> None:
        self.machine.move(Input.LIST)
        self.send_op("tables", tables=[room.to_json() for room in self.factory.rooms.values()])

    # -- frames out ------------------------------------------------------------------------

    def send_op(self, op: str, **values: Any) -> None:
        """A reply (recorded), or a frame passed on."""
        frame = codec.encode(op, **values)
        if op != "from":
            self.records.record("out", frame)
        self.send_frame(frame)

    def send_frame(self, frame: bytes) -> None:
        """Write ``frame`` now, or queue it while the peer does not read (bounded)."""
        if not self._paused and not self._queue:
            self.sendString(frame)
            return
        self._queue.append(frame)
        self._queued += len(frame)
        if self._queued > self.factory.max_queue:
            self._queue.clear()
            self._queued = 0
            self.log.warn("{conn} does not read: removed", conn=self.conn_id)
            self.tcp.abortConnection()

    def pauseProducing(self) -> None:  # noqa: N802
        """The peer's socket is full: queue what comes for it."""
        self._paused = True

    def resumeProducing(self) -> None:  # noqa: N802
        """It reads again: send what was queued."""
        self._paused = False
        while self._queue and not self._paused:
            frame = self._queue.popleft()
            self._queued -= len(frame)
            self.sendString(frame)

    def stopProducing(self) -> None:  # noqa: N802
        """The connection is going."""
        self._queue.clear()
        self._queued = 0

    def _remove(self, why: str) -> None:
        if self.machine.state in (State.REMOVED, State.CLOSED):
            return
        self.send_op("error", reason=why)
        self.machine.move(Input.REMOVE)
        self.records.note(f"removed: {why}")
        self.tcp.loseConnection()


#: request type → the input of the state table
MOVES: dict[type, Input] = {
    codec.Join: Input.JOIN,
    codec.Auth: Input.AUTH,
    codec.Send: Input.SEND,
    codec.ListTables: Input.LIST,
}
#: input → its handler
HANDLERS: dict[Input, Any] = {
    Input.JOIN: RelayProtocol._on_join,
    Input.AUTH: RelayProtocol._on_auth,
    Input.SEND: RelayProtocol._on_send,
    Input.LIST: RelayProtocol._on_list,
}


class Refusal(Protocol):
    """A connection over the cap: one ``error`` frame, then closed."""

    def __init__(self, why: str) -> None:
        self.why = why

    def connectionMade(self) -> None:  # noqa: N802
        """Say why and close."""
        if self.transport is not None:
            frame = codec.encode("error", reason=self.why)
            self.transport.write(len(frame).to_bytes(4, "big") + frame)
            self.transport.loseConnection()


class RelayFactory(ServerFactory):
    """The relay's connections and tables.

    :param hub: the hub (an :class:`hub.interfaces.IHub`).
    """

    protocol = RelayProtocol  # type: ignore[assignment]
    log = Logger()

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.reactor = hub.reactor
        options: Mapping[str, Any] = {**DEFAULTS, **dict(hub.options)}
        self.max_frame = int(options["relay_max_frame"])
        self.max_tables = int(options["relay_max_tables"])
        self.join_seconds = float(options["relay_join_seconds"])
        self.idle_seconds = float(options["relay_idle_seconds"])
        self.max_queue = int(options["relay_max_queue"])
        self.backlog = int(options["relay_backlog"])
        self.backlog_bytes = int(options["relay_backlog_bytes"])
        self.rates = Buckets(self.reactor, options["relay_rate"], options["relay_burst"])
        self.cap = ConnectionCap(
            int(options["relay_max_per_address"]), int(options["relay_max_connections"])
        )
        #: new tables per address, as games made on any front end (``create_rate``)
        self.creations = creation_limits(options, self.reactor)
        self.rooms: dict[str, Room] = {}
        self._count = 0

    def buildProtocol(self, addr: Any) -> Any:  # noqa: N802
        """A connection, counted; over the cap a :class:`Refusal` that says why."""
        host = str(getattr(addr, "host", "") or "")  # foreign: an IAddress
        why = self.cap.admit(host)
        if why is not None:
            self.log.info("relay: {host} refused: {why}", host=host or "-", why=why)
            return Refusal(why)
        proto = super().buildProtocol(addr)
        if isinstance(proto, RelayProtocol):
            proto.peer = host
        return proto

    def next_connection_id(self) -> str:
        """A name for a new connection in transcripts and logs."""
        self._count += 1
        return f"r{self._count}"

    # -- joining -------------------------------------------------------------------------------

    def check_join(self, proto: RelayProtocol, join: codec.Join) -> str | None:
        """Take ``proto``'s join (the room is made if need be); ``None``, or why not."""
        taken = reserved(join.name)
        if taken is not None:
            return f"join: {taken}; choose another name"
        room = self.rooms.get(join.table)
        if room is None:
            if len(self.rooms) >= self.max_tables:
                return f"the hub relays {self.max_tables} tables at most"
            try:
                factory = self.hub.registry.game_factory(join.game)
            except GameError as e:
                return str(e)
            adapter = factory.adapter("relay") if "relay" in tuple(factory.frontends) else None
            if adapter is None or not IRelayAdapter.providedBy(adapter):
                return f"{join.game} is not a game played peer to peer"
            if not factory.min_seats <= join.seats <= factory.max_seats:
                return f"{join.game} is played by {factory.min_seats} to {factory.max_seats}"
            if not self.creations.allow(f"address:{proto.peer}"):
                wait = self.creations.wait(f"address:{proto.peer}")
                return f"too many tables made from your address; try again in {wait:.0f} s"
            room = self.rooms[join.table] = Room(join.table, join.game, join.seats, adapter)
        if (room.game_type, room.seats) != (join.game, join.seats):
            return f"table {join.table} plays {room.game_type} with {room.seats} seats"
        if room.full or len(room.waiting) + len(room.peers) >= room.seats:
            return f"table {join.table} is full"
        if join.key in room.peers or join.key in room.waiting:
            return "that key is at the table already"
        if join.name in room.names():
            return f"the name {join.name} is taken at table {join.table}"
        room.waiting.add(join.key)
        proto.room, proto.key, proto.name = room, join.key, join.name
        return None

    def join(self, proto: RelayProtocol) -> None:
        """``proto`` proved its key: a peer of its table."""
        room = proto.room
        assert room is not None
        room.waiting.discard(proto.key)
        others = [{"key": k, "name": p.name} for k, p in room.peers.items()]
        room.peers[proto.key] = proto
        proto.send_op(
            "joined", table=room.name, game=room.game_type, seats=room.seats, peers=others
        )
        for key, peer in room.peers.items():
            if key != proto.key:
                peer.send_op("peer", key=proto.key, name=proto.name)
        if room.full and room.game is None and not room.opening:
            self._open_game(room)

    def _open_game(self, room: Room) -> None:
        """The table is full: its game in the lobby, the peers seated by key (created
        and seated through the hub, as every front end does)."""
        room.opening = True
        defer.ensureDeferred(self._open(room)).addErrback(
            lambda failure: self.log.failure("relay: opening a table's game failed", failure)
        )

    async def _open(self, room: Room) -> None:
        try:
            game = await self.hub.create_game(
                room.game_type, name=room.name, seats=["open"] * room.seats
            )
            for seat, key in enumerate(sorted(room.peers, key=codec.key_bytes)):
                await self.hub.take_seat(game, room.peers[key].name, seat, kind="client")
                room.seat_of[key] = seat
        except GameError as e:
            self.log.warn("no lobby game for relayed table {table}: {why}", table=room.name, why=e)
            return
        finally:
            room.opening = False
        room.game = game
        for proto in room.peers.values():
            proto.records.attach(game.transcript)
        backlog, room.backlog, room.backlog_bytes = room.backlog, deque(), 0
        for key, data in backlog:
            self._follow(room, key, data)

    # -- passing frames on ---------------------------------------------------------------------------

    def relay(self, proto: RelayProtocol, send: codec.Send) -> None:
        """Pass ``send.data`` on, and to the lobby's game."""
        room = proto.room
        assert room is not None
        frame = codec.encode("from", key=proto.key, data=codec.data_text(send.data))
        if send.to is None:
            for key, peer in room.peers.items():
                if key != proto.key:
                    peer.send_frame(frame)
        else:
            target = room.peers.get(send.to)
            if target is not None:
                target.send_frame(frame)
        if room.game is None:
            size = room.backlog_bytes + len(send.data)
            if len(room.backlog) < self.backlog and size <= self.backlog_bytes:
                room.backlog.append((proto.key, send.data))
                room.backlog_bytes = size
            return
        self._follow(room, proto.key, send.data)

    def _follow(self, room: Room, key: str, data: bytes) -> None:
        seat = room.seat_of.get(key)
        if seat is None or room.game is None:
            return
        try:
            room.game.act(seat, room.adapter.relayed(data))
        except GameError:
            return  # a frame the game cannot read changes nothing
        except Exception:
            self.log.failure("the game of relayed table {table} failed", table=room.name)

    def leave(self, proto: RelayProtocol) -> None:
        """``proto`` is gone: out of its table (the room goes when empty)."""
        room = proto.room
        if room is None:
            return
        room.waiting.discard(proto.key)
        if room.peers.get(proto.key) is proto:
            del room.peers[proto.key]
            for peer in room.peers.values():
                peer.send_op("left", key=proto.key)
            seat = room.seat_of.get(proto.key)
            if room.game is not None and seat is not None:
                try:
                    room.game.leave_seat(seat)
                except Exception:
                    self.log.failure("leaving relayed table {table}", table=room.name)
        if not room.peers and not room.waiting and self.rooms.get(room.name) is room:
            del self.rooms[room.name]
