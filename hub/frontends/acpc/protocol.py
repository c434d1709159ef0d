"""The ACPC front end's connection: a plain Protocol around the sans-I/O framer.

:class:`ACPCProtocol` reads lines with :class:`.codec.LineFramer`, follows the table of
:mod:`.states` and hands replies to its match (:class:`.match.Match`), which owns the
game, the clocks and the log.  Life of a connection: ``connected`` (until
``VERSION:2.0.0``; a program silent for ``acpc_version_seconds`` is dropped) →
``ready`` (waiting for its match to start) → ``playing`` → ``over`` (the match ended)
or ``dropped``, then ``closed``.  What the server says that is not a match state is a
comment line (``# ...``): the competition's example player ignores those and exits on
any other line it cannot read.

Two factories make connections: :class:`SeatFactory` listens on the port of one
``acpc`` seat of one match (as the competition's dealer, one port per seat), and
:class:`ACPCFactory`, on the front end's own endpoint (``--acpc``), gives a program
that connects there the first free ``acpc`` seat of the oldest match waiting for one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from typing import Protocol as TypingProtocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections.limits import ConnectionCap
from hub.connections.sockets import no_delay
from hub.connections.states import Machine
from hub.interfaces import IGameObserver
from hub.model import GameEvent
from hub.ops.telemetry import DETACHED, FrontendTelemetry
from hub.settings import boolean

from . import codec
from .states import REFUSALS, TRANSITIONS, Input, State

#: Defaults of the settings a hub may override (``--set acpc_...=``; docs/acpc.md).
DEFAULTS: dict[str, Any] = {
    "acpc_version_seconds": 10.0,  # a silent program is dropped after this
    "acpc_wait_seconds": 600.0,  # a match whose programs do not all come is cancelled
    "acpc_action_seconds": 600.0,  # one reply (the dealer's --t_response)
    "acpc_hand_seconds": 600.0,  # all of one player's replies in one hand (--t_hand)
    "acpc_average_seconds": 7.0,  # per hand, over the whole match (--t_per_hand)
    "acpc_max_ignored": 100,  # ignored lines in a row before the program is dropped
    "acpc_seat_endpoint": "",  # where each acpc seat listens ("": seat_endpoint())
    "acpc_player_seconds": 30.0,  # time to act for the match's other players
    "acpc_max_matches": 50,  # matches waiting or running at once (each listens on ports)
    "acpc_max_connections": 1024,  # open program connections in all (the port and seats)
    "acpc_max_per_address": 256,  # open program connections from one address (50 matches x 3 + room)
}
#: The reference dealer's rules (the defaults) or the hub's stricter choices, each a
#: setting (docs/acpc.md, "Bad replies" and "The dealer's rules"): the setting → its
#: values, the dealer's first.
CHOICES: dict[str, tuple[str, ...]] = {
    "acpc_showdown": ("dealer", "muck"),  # every hand not folded is shown / mucking allowed
    "acpc_payoffs": ("exact", "chips"),  # the log's payoffs: exact split / whole chips
    "acpc_cut_short": ("fail", "score"),  # a match cut short: no SCORE, failed / SCORE
}
DEFAULTS.update({key: values[0] for key, values in CHOICES.items()})
DEFAULTS["acpc_strict"] = False  # a match's ``strict`` when it does not say


#: where seats listen when the front end's own endpoint says nothing we can reuse
LOOPBACK_SEATS = "tcp:0:interface=127.0.0.1"
_COLON = re.compile(r"(?<!\\):")


def seat_endpoint(front: str | None) -> str:
    """Where a match's seats listen by default: the ACPC front end's own endpoint
    ``front`` (``--acpc``) on a port of their own (``tcp:18791:interface=10.0.0.5`` →
    ``tcp:0:interface=10.0.0.5``; an ``ssl:`` endpoint keeps its keys), or loopback
    when the front end is off or not TCP."""
    parts = _COLON.split((front or "").strip())
    if parts[0].lower() not in ("tcp", "tcp6", "ssl") or len(parts) < 2:
        return LOOPBACK_SEATS
    rest = [p for p in parts[1:] if not p.startswith("port=")]
    if rest and "=" not in rest[0]:  # the port, given by position
        rest = rest[1:]
    return ":".join([parts[0], "0", *rest])


def settings_of(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ACPC settings of a hub's ``options``, with :data:`DEFAULTS` for the rest."""
    out = dict(DEFAULTS)
    out.update({k: v for k, v in dict(options or {}).items() if k in DEFAULTS})
    for key, value in DEFAULTS.items():
        try:
            out[key] = boolean(out[key]) if isinstance(value, bool) else type(value)(out[key])
        except (TypeError, ValueError):
            out[key] = value
        if key in CHOICES and out[key] not in CHOICES[key]:
            out[key] = value
    return out


class MatchesDoor(TypingProtocol):
    """What the front end's port uses of the hub's matches (:class:`.match.Matches`,
    which imports this module, so it is named by what it offers)."""

    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def settings(self) -> dict[str, Any]: ...
    @property
    def counter(self) -> list[int]: ...
    @property
    def cap(self) -> ConnectionCap: ...
    @property
    def telemetry(self) -> FrontendTelemetry: ...
    def claim(self, protocol: ACPCProtocol) -> None: ...
    def connection_gone(self, protocol: ACPCProtocol) -> None: ...


class MatchDoor(TypingProtocol):
    """What a program's connection and its seat's port use of its match
    (:class:`.match.Match`, named by what it offers as :class:`MatchesDoor`)."""

    @property
    def id(self) -> str: ...
    @property
    def over(self) -> bool: ...
    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def settings(self) -> dict[str, Any]: ...
    @property
    def matches(self) -> MatchesDoor: ...
    def allows(self, host: str) -> bool: ...
    def connection(self, index: int) -> ACPCProtocol | None: ...
    def attach(self, index: int, protocol: ACPCProtocol) -> None: ...
    def ready(self, protocol: ACPCProtocol) -> None: ...
    def lost(self, connection: ACPCProtocol) -> None: ...
    def reply(self, connection: ACPCProtocol, text: str) -> None: ...
    def seat_event(self, connection: ACPCProtocol, game: Any, event: GameEvent) -> None: ...
    def record(
        self, conn_id: str, direction: str, text: str | bytes, index: int | None = None
    ) -> None: ...
    def note(self, text: str) -> None: ...


@implementer(IGameObserver)
class ACPCProtocol(Protocol):
    """One program's connection (see the module)."""

    log = Logger()
    factory: _Factory  #: a :class:`SeatFactory` or :class:`ACPCFactory`

    def __init__(self) -> None:
        self.conn_id = "a?"
        self.machine: Machine[State, Input] = Machine(TRANSITIONS, State.CONNECTED)
        self.match: MatchDoor | None = None  #: its :class:`.match.Match` once it has a seat
        self.seat_index: int | None = None  #: its place in the match's list of players
        self.ignored = 0
        self.version: tuple[int, int, int] | None = None
        self._framer = codec.LineFramer(codec.MAX_LENGTH)
        self._version_timer: IDelayedCall | None = None
        #: on the front end's own port: the time it may wait for a seat
        self.wait_timer: IDelayedCall | None = None
        #: the program's address (a match gives seats only to the addresses it allows)
        self.peer = ""

    @property
    def state(self) -> State:
        """Where the connection is (:class:`.states.State`)."""
        return self.machine.state

    @property
    def settings(self) -> dict[str, Any]:
        """The front end's settings (:data:`DEFAULTS`)."""
        return self.factory.settings

    # -- connection -------------------------------------------------------------------

    def connectionMade(self) -> None:
        """Wait for the version line, for ``acpc_version_seconds``."""
        no_delay(self.transport)  # one short line per action: no Nagle delays
        self.conn_id = self.factory.next_connection_id()
        self.factory.telemetry.opened()
        self._version_timer = self.factory.reactor.callLater(
            self.settings["acpc_version_seconds"], self._silent
        )

    def connectionLost(self, reason: Any = None) -> None:
        """Tell the match (a program gone mid-match ends it)."""
        self._cancel_version_timer()
        self._cancel_wait_timer()
        self.factory.telemetry.closed()
        was = self.state
        self.machine.move(Input.LOST)
        self.factory.connection_gone(self)
        if self.match is not None and was in (State.READY, State.PLAYING):
            self.match.lost(self)

    def _cancel_wait_timer(self) -> None:
        if self.wait_timer is not None and self.wait_timer.active():
            self.wait_timer.cancel()
        self.wait_timer = None

    def _cancel_version_timer(self) -> None:
        if self._version_timer is not None and self._version_timer.active():
            self._version_timer.cancel()
        self._version_timer = None

    def _silent(self) -> None:
        self._version_timer = None
        if self.state is State.CONNECTED:
            self.drop(f"no VERSION line within {self.settings['acpc_version_seconds']:g} seconds")

    def drop(self, why: str) -> None:
        """Say why in a comment, and close (the match, if any, is told)."""
        if self.machine.allows(Input.DROP):
            self.factory.telemetry.refused("dropped", why, self.conn_id)
            self.send(codec.comment(f"dropped: {why}"))
            self.machine.move(Input.DROP)
            if self.match is not None:
                self.match.lost(self)
        self.close(why)

    def close(self, why: str) -> None:
        """Close the connection (after what was written)."""
        if self.transport is not None and not self._disconnecting():
            self.note(f"closing: {why}")
            self.transport.loseConnection()

    def _disconnecting(self) -> bool:
        return bool(getattr(self.transport, "disconnecting", False))

    # -- bytes in ---------------------------------------------------------------------

    def dataReceived(self, data: bytes) -> None:
        """Cut lines with a bounded buffer; an overlong line is dropped as it streams."""
        for token in self._framer.feed(data):
            if self.state in (State.CLOSED, State.OVER, State.DROPPED) or self._disconnecting():
                return
            if isinstance(token, codec.Overlong):
                self.record("in", token.head + b"...(dropped: over the line limit)")
                self.warn(f"line longer than {codec.MAX_LENGTH} characters ignored")
            else:
                self._line(token.data)

    def _line(self, line: bytes) -> None:
        self.factory.telemetry.message_in()
        self.record("in", line)
        message = codec.parse(line)
        if isinstance(message, codec.Comment):
            return
        if isinstance(message, codec.Invalid):
            self.warn(f"{message.reason}; line ignored")
            return
        move = Input.VERSION if isinstance(message, codec.Version) else Input.REPLY
        if not self.machine.allows(move):
            self.warn(REFUSALS[move])
        elif isinstance(message, codec.Version):
            self._version(message)
        elif self.state is State.READY:
            self.warn("the match has not started; line ignored")
        else:
            assert isinstance(message, codec.Reply) and self.match is not None  # PLAYING
            self.match.reply(self, message.text)

    def _version(self, message: codec.Version) -> None:
        self._cancel_version_timer()
        self.version = message.numbers
        self.machine.move(Input.VERSION)
        if not message.compatible:
            wanted = ".".join(str(n) for n in codec.VERSION)
            said = ".".join(str(n) for n in message.numbers)
            self.send(codec.comment(f"warning: this server speaks {wanted}, not {said}"))
        self.factory.ready(self)

    # -- bytes out --------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Write one line and record it in the transcript."""
        if self.state is State.CLOSED or self.transport is None or self._disconnecting():
            return
        self.record("out", text)
        self.factory.telemetry.message_out()
        self.transport.write(codec.encode(text))

    def warn(self, text: str) -> None:
        """A warning comment for a line that was ignored; too many in a row drop."""
        self.ignored += 1
        self.factory.telemetry.refused("ignored", text, self.conn_id)
        self.send(codec.comment(f"warning: {text}"))
        if self.ignored > self.settings["acpc_max_ignored"]:
            self.drop(f"more than {self.settings['acpc_max_ignored']} lines ignored in a row")

    def accepted(self) -> None:
        """A line was taken: the count of ignored lines starts again."""
        self.ignored = 0

    # -- the match --------------------------------------------------------------------

    def seated(self, match: MatchDoor, index: int) -> None:
        """The program plays the match's player ``index`` (its connection is known)."""
        self._cancel_wait_timer()
        self.match, self.seat_index = match, index

    def playing(self) -> None:
        """Its match started."""
        if self.machine.allows(Input.SEATED):
            self.machine.move(Input.SEATED)

    def match_over(self, why: str) -> None:
        """The match ended: say so in a comment and close."""
        if self.machine.allows(Input.MATCH_OVER) or self.state is State.READY:
            self.send(codec.comment(f"match over: {why}"))
            if self.machine.allows(Input.MATCH_OVER):
                self.machine.move(Input.MATCH_OVER)
            else:
                self.machine.move(Input.DROP)
        self.close(f"match over: {why}")

    def game_event(self, game: Any, event: GameEvent) -> None:
        """An event of the match's table, as this program's seat sees it."""
        if self.match is not None and self.state is State.PLAYING:
            self.match.seat_event(self, game, event)

    # -- transcript -------------------------------------------------------------------

    def record(self, direction: str, text: str | bytes) -> None:
        """A line in or out, into the match's current table's transcript."""
        if self.match is not None:
            self.match.record(self.conn_id, direction, text, self.seat_index)

    def note(self, text: str) -> None:
        """A note of the front end about this connection."""
        if self.match is not None:
            self.match.note(f"{self.conn_id}: {text}")


class _Factory(Factory[ACPCProtocol]):
    """What both factories share: settings, the reactor, connection ids, and the
    front end's bound on open connections (``cap``: ``acpc_max_per_address``,
    ``acpc_max_connections``; the front end's port and every seat's count together)."""

    protocol = ACPCProtocol
    #: the front end's metrics and refusal events
    telemetry: FrontendTelemetry = DETACHED.frontend("acpc")

    def __init__(
        self,
        reactor: IReactorTime,
        settings: dict[str, Any],
        counter: list[int],
        cap: ConnectionCap,
    ) -> None:
        self.reactor = reactor
        self.settings = settings
        self._counter = counter
        self.cap = cap
        self.connections: set[ACPCProtocol] = set()

    def next_connection_id(self) -> str:
        """``a1``, ``a2``... for the transcripts."""
        self._counter[0] += 1
        return f"a{self._counter[0]}"

    def buildProtocol(self, addr: Any) -> Any:
        """A new connection (kept until it is gone); over the cap, a :class:`Refusal`
        that says why and closes."""
        host = str(getattr(addr, "host", "") or "")  # foreign: an IAddress
        why = self.cap.admit(host)
        if why is not None:
            self.telemetry.refused("connections", why, peer=host)
            return Refusal(why)
        protocol = super().buildProtocol(addr)
        if not isinstance(protocol, ACPCProtocol):  # pragma: no cover - our protocol
            self.cap.release(host)
            return protocol
        protocol.peer = host
        self.connections.add(protocol)
        return protocol

    def connection_gone(self, protocol: ACPCProtocol) -> None:
        """``protocol``'s transport is gone."""
        if protocol in self.connections:
            self.connections.discard(protocol)
            self.cap.release(protocol.peer)

    def ready(self, protocol: ACPCProtocol) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Refusal(Protocol):
    """A connection a seat's port does not take: one comment line, then closed."""

    def __init__(self, why: str) -> None:
        self.why = why

    def connectionMade(self) -> None:
        """Say why and close."""
        transport = self.transport
        if transport is not None:
            transport.write(codec.encode(codec.comment(f"refused: {self.why}")))
            transport.loseConnection()


class SeatFactory(_Factory):
    """The port of one ``acpc`` seat of one match: its first program from an address
    the match allows takes the seat; another address is refused (a comment, closed);
    a connection while the seat is taken is closed."""

    def __init__(self, match: MatchDoor, index: int, counter: list[int]) -> None:
        super().__init__(match.reactor, match.settings, counter, match.matches.cap)
        self.telemetry = match.matches.telemetry
        self.match = match
        self.index = index

    def buildProtocol(self, addr: Any) -> Any:
        """A connection; refused (closed at once) from an address the match does not
        allow, and once the seat has its program."""
        host = str(getattr(addr, "host", "") or "")  # foreign: an IAddress
        if not self.match.allows(host):
            why = f"{host or 'this address'} may not take a seat of match {self.match.id}"
            self.telemetry.refused("address", why, peer=host)
            return Refusal(why)
        if self.match.connection(self.index) is not None or self.match.over:
            return None
        protocol = super().buildProtocol(addr)
        if isinstance(protocol, ACPCProtocol):  # else refused: too many connections
            self.match.attach(self.index, protocol)
        return protocol

    def ready(self, protocol: ACPCProtocol) -> None:
        """The program said its version: the match may start."""
        self.match.ready(protocol)


class ACPCFactory(_Factory):
    """The front end's own endpoint: a program gets the first free ``acpc`` seat of
    the oldest match that waits for one and allows its address (first come, first
    served), or waits for one until ``acpc_wait_seconds``."""

    def __init__(self, matches: MatchesDoor) -> None:
        super().__init__(matches.reactor, matches.settings, matches.counter, matches.cap)
        self.telemetry = matches.telemetry  # the hub may set its own
        self.matches = matches

    def buildProtocol(self, addr: Any) -> Any:
        """A connection; it may wait for a seat up to ``acpc_wait_seconds``."""
        protocol = super().buildProtocol(addr)
        if not isinstance(protocol, ACPCProtocol):  # refused: too many connections
            return protocol
        protocol.wait_timer = self.reactor.callLater(
            self.settings["acpc_wait_seconds"], self._no_seat, protocol
        )
        return protocol

    def _no_seat(self, protocol: ACPCProtocol) -> None:
        protocol.wait_timer = None
        if protocol.match is None and protocol.state is not State.CLOSED:
            protocol.drop(f"no match had a seat within {self.settings['acpc_wait_seconds']:g} s")

    def ready(self, protocol: ACPCProtocol) -> None:
        """The program said its version: give it a seat, or let it wait."""
        self.matches.claim(protocol)

    def connection_gone(self, protocol: ACPCProtocol) -> None:
        """A connection is gone (from the queue too)."""
        super().connection_gone(protocol)
        self.matches.connection_gone(protocol)
