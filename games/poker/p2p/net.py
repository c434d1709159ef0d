"""The peers on the network (Twisted, one reactor, injected): links, gossip, the table.

Two ways to reach the other peers, behind one :class:`Transport`:

- :class:`Mesh`: every peer listens (``--listen``) and connects to the peers it knows
  (``--peer``, and every address it hears in a hello), so the peers end up connected
  each to each.  A link is a TCP connection carrying length-prefixed frames
  (:class:`LinkProtocol`, an ``Int32StringReceiver``); both ends first prove their key
  (each signs the other's random challenge), so a frame on a link is known to come from
  that peer;
- :class:`Relay`: every peer connects to a hub's relay front end
  (``hub/frontends/relay``), which passes frames between the peers of a table it
  lists; the hub checks each peer's key the same way and names the sender of every
  frame it passes on.  The hub sees every frame: the peers' messages are public
  actions, encrypted cards and keys of cards already shown; what it must not read
  travels sealed (:mod:`.seal`).

:class:`PeerService` runs one peer: the gathering (:mod:`.gather`) over the transport,
then the table (:class:`.table.PeerTable`), whose :class:`.table.Link` it is.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

from twisted.internet import defer
from twisted.internet.endpoints import TCP4ClientEndpoint, serverFromString
from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver

from .gather import Gathering, Roster
from .table import PeerTable, Player, Watcher
from .wire import (
    MAX_FRAME,
    Identity,
    WireError,
    b64,
    key_text,
    open_frame,
    parse_key,
    unb64,
    verify,
)

#: what a link's challenge is signed with
LINK_LABEL = "gamehub p2p link v1"
#: frames kept for a table that is not agreed yet
MAX_EARLY = 256
#: seconds between attempts to reach a peer that cannot be reached
RETRY = 1.0


class Transport:
    """How a peer reaches the others (:class:`Mesh` or :class:`Relay`).

    The service sets the callbacks: ``on_frame(key, frame)``, ``on_peer(key)`` (a peer
    is reachable now) and ``on_lost(key)``.
    """

    on_frame: Callable[[bytes, bytes], None] = staticmethod(lambda key, frame: None)
    on_peer: Callable[[bytes], None] = staticmethod(lambda key: None)
    on_lost: Callable[[bytes], None] = staticmethod(lambda key: None)
    on_refused: Callable[[str], None] = staticmethod(lambda why: None)

    def start(self) -> defer.Deferred[Any]:
        """Start listening and connecting."""
        raise NotImplementedError

    def send(self, key: bytes | None, frame: bytes) -> None:
        """Send ``frame`` to the peer ``key`` (``None``: to every peer reached)."""
        raise NotImplementedError

    def send_all(self, keys: list[bytes], frame: bytes) -> None:
        """Send ``frame`` to each of ``keys`` (the table's other peers)."""
        self.send(None, frame)

    def heard(self, hello_listen: str | None) -> None:
        """A hello named an address (a mesh connects to it)."""

    def stop(self) -> defer.Deferred[Any]:
        """Close everything (what was sent is sent first); fires once closed."""
        raise NotImplementedError


# -- the mesh ------------------------------------------------------------------------------


class LinkProtocol(Int32StringReceiver):
    """One link of the mesh: a challenge each way, then frames."""

    MAX_LENGTH = MAX_FRAME
    log = Logger()
    factory: MeshFactory

    def __init__(self, mesh: Mesh, outgoing: bool) -> None:
        self.mesh = mesh
        self.outgoing = outgoing  #: this end dialled
        self.nonce = secrets.token_bytes(32)
        self.key: bytes | None = None  # the other end's key, once proven
        self._claimed: bytes | None = None
        self.closed: defer.Deferred[None] = defer.Deferred()

    @property
    def tcp(self) -> Any:
        """The connection's transport (TCP)."""
        return self.transport

    def connectionMade(self) -> None:  # noqa: N802
        """Challenge the other end."""
        setter = getattr(self.transport, "setTcpNoDelay", None)
        if setter is not None:
            setter(True)
        me = self.mesh.me
        self.sendString(me.sign({"k": "link", "key": me.text, "nonce": self.nonce.hex()}))  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated

    def stringReceived(self, data: bytes) -> None:  # noqa: N802
        """A frame: the challenge and its answer first, then the peers' frames."""
        if self.key is not None:
            self.mesh.on_frame(self.key, data)
            return
        try:
            self._handshake(data)
        except (WireError, ValueError, KeyError, TypeError) as e:
            self.log.warn("a link that does not prove its key: {why}", why=str(e))
            self.tcp.loseConnection()

    def _handshake(self, data: bytes) -> None:
        body, _, _ = open_frame(data)
        if body.get("k") == "link" and self._claimed is None:
            # the other end's challenge: answer it with our key
            key = parse_key(body.get("key"))
            verify(data, key)
            self._claimed = key
            nonce = body.get("nonce")
            if not isinstance(nonce, str) or len(nonce) != 64:
                raise WireError("a challenge is 32 bytes in hex")
            self.sendString(self.mesh.me.sign({"k": LINK_LABEL, "nonce": nonce}))  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated
            return
        if body.get("k") == LINK_LABEL and self._claimed is not None:
            # the answer to our challenge, signed by the key the other end named
            signed = verify(data, self._claimed)
            if signed.body.get("nonce") != self.nonce.hex():
                raise WireError("the answer is not to this challenge")
            self.key = self._claimed
            self.mesh.proven(self)
            return
        raise WireError("a link starts with a challenge and its answer")

    def lengthLimitExceeded(self, length: int) -> None:  # noqa: N802
        """A frame over :data:`.wire.MAX_FRAME`: the link is closed."""
        self.log.warn("a frame of {length} bytes: link closed", length=length)
        self.tcp.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """Tell the mesh."""
        self.mesh.lost(self)
        if not self.closed.called:
            self.closed.callback(None)


class MeshFactory(Factory):
    """Links of one mesh, one way (``outgoing``: the ones this peer dials)."""

    def __init__(self, mesh: Mesh, outgoing: bool) -> None:
        self.mesh = mesh
        self.outgoing = outgoing

    def buildProtocol(self, addr: Any) -> LinkProtocol:  # type: ignore[override]  # noqa: N802
        """A new link."""
        proto = LinkProtocol(self.mesh, self.outgoing)
        proto.factory = self
        return proto


class Mesh(Transport):
    """Peers connected each to each (see the module docstring).

    :param reactor: the reactor.
    :param me: this peer's key.
    :param listen: a server endpoint description (``tcp:7001:interface=127.0.0.1``),
        or ``None``.
    :param peers: ``host:port`` addresses to connect to.
    """

    log = Logger()

    def __init__(self, reactor: Any, me: Identity, listen: str | None, peers: list[str]) -> None:
        self.reactor = reactor
        self.me = me
        self.listen = listen
        self.addresses = list(peers)
        #: key → its links (both ends may dial: frames are sent on the first, taken
        #: from any; closing one could lose frames in flight)
        self.links: dict[bytes, list[LinkProtocol]] = {}
        #: frames for peers not linked yet: key → frames (at most :data:`MAX_EARLY`)
        self.unsent: dict[bytes, list[bytes]] = {}
        self.port: Any = None
        self._dialing: set[str] = set()
        self._stopped = False
        self.factory = MeshFactory(self, outgoing=False)
        self.dialler = MeshFactory(self, outgoing=True)

    def start(self) -> defer.Deferred[Any]:
        """Listen (when asked to) and connect to every known address."""
        d: defer.Deferred[Any] = defer.succeed(None)
        if self.listen is not None:
            d = serverFromString(self.reactor, self.listen).listen(self.factory)  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated
            d.addCallback(self._listening)
        d.addCallback(self._dial_all)
        return d

    def _dial_all(self, _: Any) -> None:
        for address in list(self.addresses):
            self.dial(address)

    def _listening(self, port: Any) -> None:
        self.port = port

    @property
    def address(self) -> str | None:
        """``host:port`` this peer listens on (``None``: it does not)."""
        if self.port is None:
            return None
        host = self.port.getHost()
        return f"{host.host}:{host.port}"

    def dial(self, address: str) -> None:
        """Connect to ``host:port`` (again and again while it cannot be reached)."""
        if self._stopped or address in self._dialing or address == self.address:
            return
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            self.log.warn("not an address: {address}", address=address)
            return
        self._dialing.add(address)
        endpoint = TCP4ClientEndpoint(self.reactor, host, int(port), timeout=5)
        d = endpoint.connect(self.dialler)

        def failed(failure: Any) -> None:
            self._dialing.discard(address)
            if not self._stopped and address in self.addresses:
                self.reactor.callLater(RETRY, self.dial, address)

        d.addCallbacks(lambda _: None, failed)

    def heard(self, hello_listen: str | None) -> None:
        """Connect to an address a hello named, once."""
        if hello_listen and hello_listen not in self.addresses:
            self.addresses.append(hello_listen)
            self.dial(hello_listen)

    def proven(self, link: LinkProtocol) -> None:
        """A link proved its key."""
        assert link.key is not None
        if link.key == self.me.verify_key:
            link.tcp.loseConnection()
            return
        links = self.links.setdefault(link.key, [])
        links.append(link)
        if len(links) == 1:
            for frame in self.unsent.pop(link.key, ()):
                link.sendString(frame)  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated
            self.on_peer(link.key)

    def lost(self, link: LinkProtocol) -> None:
        """A link closed: the peer is lost when it was its last."""
        key = link.key
        linked = self.links.get(key) if key is not None else None
        if key is None or linked is None or link not in linked:
            return
        linked.remove(link)
        if not linked:
            del self.links[key]
            self.on_lost(key)

    def send(self, key: bytes | None, frame: bytes) -> None:
        """To one peer (kept until its link is up, when it has none yet: a table can be
        agreed before every link is), or to every peer reached."""
        if key is None:
            for each in list(self.links.values()):
                each[0].sendString(frame)  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated
            return
        links = self.links.get(key)
        if links:
            links[0].sendString(frame)  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated
            return
        waiting = self.unsent.setdefault(key, [])
        if len(waiting) < MAX_EARLY:
            waiting.append(frame)

    def send_all(self, keys: list[bytes], frame: bytes) -> None:
        """To each of ``keys``, linked yet or not."""
        for key in keys:
            self.send(key, frame)

    def stop(self) -> defer.Deferred[Any]:
        """Close every link (after sending what is queued) and stop listening."""
        self._stopped = True
        closing: list[defer.Deferred[Any]] = []
        for links in list(self.links.values()):
            for link in list(links):
                closing.append(link.closed)
                link.tcp.loseConnection()
        if self.port is not None:
            closing.append(defer.maybeDeferred(self.port.stopListening))
        return defer.DeferredList(closing)


# -- the hub's relay -----------------------------------------------------------------------


class RelayProtocol(Int32StringReceiver):
    """The link to a hub's relay front end (its protocol: docs/p2p.md)."""

    MAX_LENGTH = MAX_FRAME * 2
    log = Logger()

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.closed: defer.Deferred[None] = defer.Deferred()

    @property
    def tcp(self) -> Any:
        """The connection's transport (TCP)."""
        return self.transport

    def connectionMade(self) -> None:  # noqa: N802
        """Say which table this peer joins."""
        self.send_json(
            {"op": "join", "table": self.relay.table, "game": self.relay.game,
             "seats": self.relay.seats, "key": self.relay.me.text, "name": self.relay.name}
        )  # fmt: skip

    def send_json(self, body: dict[str, Any]) -> None:
        """One control frame."""
        self.sendString(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())  # type: ignore[no-untyped-call]  # Twisted leaves it unannotated

    def stringReceived(self, data: bytes) -> None:  # noqa: N802
        """A frame from the hub."""
        try:
            body = json.loads(data.decode("utf-8"))
            op = body["op"]
        except (ValueError, KeyError, TypeError):
            self.log.warn("the hub sent what is not its protocol")
            return
        handler = RELAY_HANDLERS.get(op)
        if handler is not None:
            handler(self, body)

    def _challenge(self, body: dict[str, Any]) -> None:
        from hub.frontends.relay.codec import proof_message

        nonce = str(body.get("nonce", ""))[:64]
        proof = self.relay.me.sign_raw(proof_message(nonce, self.relay.table))
        self.send_json({"op": "auth", "proof": b64(proof)})

    def _joined(self, body: dict[str, Any]) -> None:
        self.relay.joined = True
        waiting, self.relay.waiting = self.relay.waiting, []
        for frame in waiting:
            self.send_json(frame)
        for peer in body.get("peers", ()):
            self._peer(peer)

    def _peer(self, body: dict[str, Any]) -> None:
        try:
            key = parse_key(body.get("key"))
        except WireError:
            return
        if key != self.relay.me.verify_key:
            self.relay.peers.add(key)
            self.relay.on_peer(key)

    def _from(self, body: dict[str, Any]) -> None:
        try:
            key = parse_key(body.get("key"))
            data = unb64(body.get("data"))
        except WireError:
            return
        self.relay.on_frame(key, data)

    def _left(self, body: dict[str, Any]) -> None:
        try:
            key = parse_key(body.get("key"))
        except WireError:
            return
        self.relay.peers.discard(key)
        self.relay.on_lost(key)

    def _error(self, body: dict[str, Any]) -> None:
        reason = str(body.get("reason", ""))[:200]
        self.relay.errors.append(reason)
        self.relay.on_refused(reason)

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """The hub is gone: every peer with it."""
        if not self.closed.called:
            self.closed.callback(None)
        self.relay.proto = None
        for key in list(self.relay.peers):
            self.relay.peers.discard(key)
            self.relay.on_lost(key)


#: the hub's frames → what a peer does with them
RELAY_HANDLERS: dict[str, Callable[[RelayProtocol, dict[str, Any]], None]] = {
    "challenge": RelayProtocol._challenge,
    "joined": RelayProtocol._joined,
    "peer": RelayProtocol._peer,
    "from": RelayProtocol._from,
    "left": RelayProtocol._left,
    "error": RelayProtocol._error,
}


class Relay(Transport):
    """Peers that meet at a hub's relay front end.

    :param hub: ``host:port`` of the relay front end.
    :param table: the table's name at the hub.
    :param seats: how many peers the table takes.
    """

    def __init__(
        self, reactor: Any, me: Identity, hub: str, table: str, seats: int, name: str,
        game: str = "holdem-p2p",
    ) -> None:  # fmt: skip
        self.reactor = reactor
        self.me = me
        self.hub = hub
        self.table = table
        self.seats = seats
        self.name = name
        self.game = game
        self.proto: RelayProtocol | None = None
        self.peers: set[bytes] = set()
        self.joined = False
        self.waiting: list[dict[str, Any]] = []  #: frames to send once joined
        self.errors: list[str] = []

    def start(self) -> defer.Deferred[Any]:
        """Connect to the hub."""
        host, _, port = self.hub.rpartition(":")
        endpoint = TCP4ClientEndpoint(self.reactor, host, int(port), timeout=10)

        class _Factory(Factory):
            def buildProtocol(inner, addr: Any) -> RelayProtocol:  # noqa: N802, N805
                return RelayProtocol(self)

        d = endpoint.connect(_Factory())
        d.addCallback(self._connected)
        return d

    def _connected(self, proto: Any) -> None:
        self.proto = proto
        setter = getattr(proto.transport, "setTcpNoDelay", None)
        if setter is not None:
            setter(True)

    def send(self, key: bytes | None, frame: bytes) -> None:
        """Through the hub."""
        body = {"op": "send", "to": None if key is None else key_text(key), "data": b64(frame)}
        if self.proto is None:
            return
        if not self.joined:
            if len(self.waiting) < MAX_EARLY:
                self.waiting.append(body)
            return
        self.proto.send_json(body)

    def stop(self) -> defer.Deferred[Any]:
        """Leave the hub (after sending what is queued)."""
        if self.proto is None:
            return defer.succeed(None)
        closed = self.proto.closed
        self.proto.tcp.loseConnection()
        return closed


# -- one peer --------------------------------------------------------------------------------


class PeerService:
    """One peer: gathers a table over ``transport`` and plays it.

    :param reactor: the reactor.
    :param me: this peer's key.
    :param transport: a :class:`Mesh` or :class:`Relay`.
    :param player: who decides (a bot or a person).
    :param watcher: who follows the table.
    :ivar done: fires with the table (:class:`.table.PeerTable`) when it is over.
    """

    log = Logger()

    def __init__(
        self, reactor: Any, me: Identity, transport: Transport, player: Player, watcher: Watcher
    ) -> None:
        self.reactor = reactor
        self.me = me
        self.transport = transport
        self.player = player
        self.watcher = _Ending(watcher, self._over)
        self.gathering: Gathering | None = None
        self.table: PeerTable | None = None
        self.done: defer.Deferred[PeerTable] = defer.Deferred()
        self.peers: set[bytes] = set()
        self._hellos: list[bytes] = []  # every hello frame known, to pass on
        self._early: list[tuple[bytes, bytes]] = []
        transport.on_frame = self._frame
        transport.on_peer = self._peer
        transport.on_lost = self._lost
        transport.on_refused = self._refused

    def start(self) -> defer.Deferred[Any]:
        """Start reaching the other peers (before the name is known, too)."""
        return self.transport.start()

    def gather(self, gathering: Gathering) -> None:
        """Say hello to everyone with ``gathering`` (once the name is known)."""
        self.gathering = gathering
        self._hellos.insert(0, gathering.hello)
        self.transport.send(None, gathering.hello)
        early, self._early = self._early, []
        for key, frame in early:
            self._frame(key, frame)

    def _peer(self, key: bytes) -> None:
        self.peers.add(key)
        self.watcher.note("reached", {"key": key_text(key)})
        for hello in self._hellos:
            self.transport.send(key, hello)
        if self.gathering is not None and self.gathering.seat_frame is not None:
            self.transport.send(key, self.gathering.seat_frame)

    def _refused(self, why: str) -> None:
        """The hub refused this peer: it cannot play there."""
        self.watcher.note("refused", {"why": why})
        if self.table is not None:
            self.table.stop(f"the hub refused: {why}", failed=True)
        elif not self.done.called:
            self.done.errback(RefusedError(why))

    def _lost(self, key: bytes) -> None:
        self.peers.discard(key)
        if self.table is not None:
            seat = self.table.roster.seat_of(key)
            if seat is not None:
                self.table.peer_lost(seat)

    def _frame(self, key: bytes, frame: bytes) -> None:
        if self.table is not None:
            seat = self.table.roster.seat_of(key)
            if seat is not None:
                try:
                    self.table.receive(seat, frame)
                except Exception:  # a fault of ours: the link and the reactor go on
                    self.log.failure("a frame from seat {seat} broke the table", seat=seat)
            return
        if self.gathering is None:
            if len(self._early) < MAX_EARLY:
                self._early.append((key, frame))
            return
        try:
            body, _, _ = open_frame(frame)
        except WireError:
            return
        kind = body.get("k")
        try:
            if kind == "hello":
                hello = self.gathering.take_hello(frame)
                if hello is not None:
                    self._hellos.append(frame)
                    self.transport.send(None, frame)  # pass it on
                    self.transport.heard(hello.listen)
                    self.watcher.note("hello", {"name": hello.name})
                    if self.gathering.seat_frame is not None:
                        self.transport.send(None, self.gathering.seat_frame)
            elif kind == "seat":
                self.gathering.take_seat(frame)
            elif len(self._early) < MAX_EARLY:
                self._early.append((key, frame))  # the table's, come before it is agreed
                return
        except WireError as e:
            self.log.warn("a bad gathering message: {why}", why=str(e))
            return
        roster = self.gathering.agreed
        if roster is not None:
            self._play(roster)

    def _play(self, roster: Roster) -> None:
        table = PeerTable(
            roster, self.me, self.reactor, _Link(self, roster), self.player, self.watcher
        )
        self.table = table
        table.start()
        early, self._early = self._early, []
        for key, frame in early:
            self._frame(key, frame)

    def _over(self) -> None:
        if self.table is not None and not self.done.called:
            self.done.callback(self.table)

    def stop(self) -> defer.Deferred[Any]:
        """Leave: stop the table and the transport; fires once every link is closed."""
        if self.table is not None and not self.table.over:
            self.table.stop("this peer stopped")
        return self.transport.stop()


class RefusedError(Exception):
    """The hub refused the peer (the reason is the message)."""


class _Ending:
    """A watcher that also tells the service when the table is over."""

    def __init__(self, watcher: Watcher, over: Callable[[], None]) -> None:
        self.watcher = watcher
        self.over = over

    def records(self, table: Any, records: Any) -> None:
        self.watcher.records(table, records)

    def note(self, kind: str, data: Any) -> None:
        self.watcher.note(kind, data)
        if kind == "over":
            self.over()


class _Link:
    """The table's :class:`.table.Link` over the service's transport."""

    def __init__(self, service: PeerService, roster: Roster) -> None:
        self.service = service
        self.roster = roster

    def send(self, to: int | None, frame: bytes) -> None:
        transport = self.service.transport
        if to is not None:
            transport.send(self.roster.keys[to], frame)
            return
        me = self.service.me.verify_key
        transport.send_all([k for k in self.roster.keys if k != me], frame)
