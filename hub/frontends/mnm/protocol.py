"""The MNM front end's connection: a thin line receiver around :mod:`.codec`.

One :class:`MNMProtocol` per client.  The server drives: after the prolog the client
only answers (``OKWAIT`` to ``WAIT``, ``THINKING`` to a move request, ``PLAY`` after
``OKTHINK``).  While the server waits for such an answer it sends nothing else: game
events that arrive meanwhile are queued and sent once the answer is in, so a client
that reads strictly line by line never sees two requests cross.

The connection's states and their moves are the table of :mod:`.states`; a command
the current state does not take is refused by that table (``- <reason>``, close).

A game another hub of the cluster runs is passed through to that hub after its ``ID``
line (:mod:`hub.cluster.splice`): the door replays the client's ``VERSION`` and ``ID``
lines to the owner, drops the owner's banner, announcement and version answer (the
client has them from the door already) and then copies bytes both ways; the line
receiver's raw mode hands on whatever the client sent after the ``ID`` line.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from twisted.internet import defer
from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import LineReceiver
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.cluster.moves import Place
from hub.cluster.splice import Follow, Splice
from hub.connections.deadlines import Deadlines
from hub.connections.sockets import no_delay, write_now
from hub.connections.states import Machine
from hub.connections.transcript import ConnectionRecord
from hub.interfaces import IGameObserver, IHub
from hub.model import GAME_OVER, OVER, RUNNING, TURN, Elsewhere, GameError, GameEvent
from hub.ops.telemetry import DETACHED, FrontendTelemetry
from hub.optional_interfaces import IFollowsMoves, IMNMCurrentPieces
from hub.play.routes import Routed

from . import codec
from .codec import ProtocolError
from .rejoin import Conversation
from .states import TRANSITIONS, Input, State, refusal
from .timers import Timed, WaitTimers, prolog_deadlines

DEFAULTS: dict[str, Any] = {
    "mnm_version": "3.1",
    "mnm_announcement": "Announcement: welcome to Gamehub",
    "mnm_prolog_timeout": 30.0,  # seconds for each prolog answer
    "mnm_wait_interval": 1.5,  # seconds idle before a WAIT
    "mnm_wait_timeout": 5.0,  # seconds to answer WAIT
    "timeout_granularity": 1.0,  # seconds between sweeps of the prolog deadlines
}

_conn_ids = itertools.count(1)
#: a client command's verb → its input of the connection's table
_INPUTS: dict[str, Input] = {verb: Input(verb) for verb in codec.VERBS}
#: the last lines of the hub that end a session: the game's end, a refusal
_QUIT = b"+ QUIT"


def _final(tail: bytes) -> bool:
    """Whether the owner's last bytes end the session (the client is not followed to
    another hub when the owner closes)."""
    last = tail.rstrip(b"\r\n").rsplit(b"\n", 1)[-1]
    return last == _QUIT or last.startswith(b"- ")


#: the constant one-line answers as they go over the wire (text, bytes)
_OKTHINK = codec.OKTHINK.encode("ascii")
_OKTHINK_BYTES = _OKTHINK + b"\n"
_MOVEOK = codec.MOVEOK.encode("ascii")
_MOVEOK_BYTES = _MOVEOK + b"\n"
#: the queue of every connection that has not joined a game (never appended to)
_NOTHING_QUEUED: list[GameEvent] = []


def settings(hub: IHub) -> dict[str, Any]:
    """The MNM settings of ``hub``: :data:`DEFAULTS` and what its options change."""
    options = dict(DEFAULTS)
    options.update({k: v for k, v in dict(hub.options).items() if k in DEFAULTS})
    return options


@functools.lru_cache(maxsize=8)
def _banner_bytes(lines: tuple[str, ...]) -> bytes:
    return "".join([f"{line}\n" for line in lines]).encode("ascii", "replace")


@implementer(IGameObserver, IFollowsMoves)
class MNMProtocol(LineReceiver):
    """One MNM client connection (see the module docstring)."""

    delimiter = b"\n"
    MAX_LENGTH = codec.MAX_LINE + 1  # the line may end with \r
    log = Logger()
    #: the front end's metrics and refusal events (the factory gives the hub's)
    telemetry: FrontendTelemetry = DETACHED.frontend("mnm")

    # An idle connection is many of these: its own attributes are slots (Twisted's
    # protocol classes keep a __dict__ for theirs and for ``records``), the prolog
    # timer is a place in the factory's Deadlines, and what only a game needs is made
    # when it joins one (the queue) or first used (the transcript's records).
    __slots__ = (
        "_number",
        "_prolog",
        "_queue",
        "_reactor",
        "_routed",
        "_routing",
        "_said",
        "_sent",
        "_turn",
        "_wait_call",
        "_wait_in",
        "_wait_interval",
        "_waits",
        "_wait_timeout",
        "adapter",
        "game",
        "hub",
        "machine",
        "options",
        "seat",
        "splice",
        "version",
    )

    def __init__(
        self,
        hub: IHub,
        clock: Any,
        options: Mapping[str, Any] | None = None,
        prolog: Deadlines[Timed] | None = None,
        waits: WaitTimers | None = None,
    ) -> None:
        self.hub = hub
        self._reactor = clock
        #: the front end's settings (shared by the factory's connections: read only)
        self.options = settings(hub) if options is None else options
        #: the prolog's deadlines (the factory's, shared by its connections)
        self._prolog = prolog_deadlines(clock, self.options) if prolog is None else prolog
        self.version = str(self.options["mnm_version"])
        self._number = next(_conn_ids)
        self.machine: Machine[State, Input] = Machine(TRANSITIONS, State.VERSION)
        self.game: Any = None
        self.adapter: Any = None
        self.seat: int | None = None
        #: events waiting to be sent (a list of its own once the connection joins a
        #: game: nothing is queued before, and the empty one is shared until then)
        self._queue: list[GameEvent] = _NOTHING_QUEUED
        self._turn: Mapping[str, Any] | None = None
        self._wait_call: Any = None  # the answer's timer of a move cut short by the end
        #: the WAIT timers (the factory's), and the one this connection waits in
        self._waits = WaitTimers(clock) if waits is None else waits
        self._wait_in: Deadlines[Timed] | None = None
        self._wait_interval = float(self.options["mnm_wait_interval"])
        self._wait_timeout = float(self.options["mnm_wait_timeout"])
        #: the client's prolog lines and how many lines the door has sent (the replay)
        self._said = b""
        self._sent = 0
        self.splice: Splice | None = None
        #: (passed through) the hub that runs the game, and the conversation with it
        self._owner_hub = ""
        self._talk: Conversation | None = None
        #: lines not to write (a connection a door handed over: it said them already)
        self._mute = 0
        #: a routed Game-ID (``hub.play.routes``): the seat and name it leads to
        self._routed: Routed | None = None
        self._routing: Any = None

    @property
    def conn_id(self) -> str:
        """The connection's name in logs, metrics and the transcript (``mnm12``)."""
        return f"mnm{self._number}"

    @functools.cached_property
    def records(self) -> ConnectionRecord:
        """The connection's transcript records, made when first used (the banner that
        :meth:`connectionMade` wrote is recorded first)."""
        records = ConnectionRecord(self.conn_id)
        records.record_lines("out", list(self._banner()))
        return records

    def _banner(self) -> tuple[str, ...]:
        return codec.banner_lines(self.version, str(self.options["mnm_announcement"]))

    @property
    def state(self) -> State:
        """Where the connection is (:class:`.states.State`)."""
        return self.machine.state

    @property
    def _closed(self) -> bool:
        return self.machine.state is State.CLOSED

    # -- connection life ------------------------------------------------------------------

    def connectionMade(self) -> None:
        """Send the banner (and for major ≥ 3 the announcement); expect ``VERSION``."""
        transport = self.transport
        assert transport is not None  # makeConnection sets it first
        no_delay(transport)
        self.telemetry.opened()
        self._prolog.start(self)
        # as send_lines, but recorded only when the records are first needed
        banner = self._banner()
        self._sent += len(banner)
        if self._mute >= len(banner):  # handed over by a door, which said it already
            self._mute -= len(banner)
            return
        self.telemetry.message_out(len(banner))
        write_now(transport, _banner_bytes(banner))

    def connectionLost(self, reason: Any = None) -> None:
        """Stop timers; a player who vanishes mid-game loses it."""
        self.telemetry.closed()
        if self.splice is not None:
            self.splice.client_lost()
        self.machine.move(Input.CLOSE)
        self._prolog.cancel(self)
        self._cancel_wait()
        self._cancel_routing()
        self._leave()
        if self.game is not None:
            self.game.unobserve(self)
            self.records.end()

    def send(self, line: str) -> None:
        """Write one server line now, and keep it in the transcript."""
        self._write(line + "\n")

    def send_lines(self, lines: Iterable[str]) -> None:
        """Write server lines now in one write, and keep them in the transcript."""
        self._write("\n".join(lines) + "\n")

    def _write(self, block: str) -> None:
        """Write server lines, each ended by ``\\n`` in ``block``, now in one write, and
        keep them in the transcript."""
        if self.machine.state is State.CLOSED or self.transport is None:
            return
        data = block.encode("ascii", "replace")
        if self._mute:  # (a connection a door handed over: the client has these)
            data = self._unmuted(data)
            if not data:
                return
        self.records.record_block("out", data)
        count = data.count(b"\n")
        self._sent += count
        self.telemetry.message_out(count)
        write_now(self.transport, data)

    def _unmuted(self, data: bytes) -> bytes:
        """``data`` without its first lines while the connection is muted."""
        while self._mute and data:
            self._mute -= 1
            self._sent += 1
            data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
        return data

    def _answer(self, line: bytes, data: bytes) -> None:
        """:meth:`_write` of a constant one-line answer (``line`` without its
        ``\\n``, and as ``data`` with it): nothing to count, encode or escape."""
        if self.machine.state is State.CLOSED or self.transport is None:
            return
        self.records.record_plain("out", line)
        self._sent += 1
        self.telemetry.message_out()
        write_now(self.transport, data)

    def fail(self, reason: str, kind: str = "protocol") -> None:
        """``- <reason>``, close, and forfeit the game if one is running.

        :param kind: the refusal's kind in the metrics and the log (``protocol``,
            ``timeout``, ``too_long``).
        """
        if self._closed:
            return
        self.telemetry.refused(
            kind, reason, self.conn_id, self.game.id if self.game is not None else None
        )
        self.send(codec.error_line(reason))
        self._end()
        self._leave()

    def _end(self) -> None:
        self.machine.move(Input.CLOSE)
        self._prolog.cancel(self)
        self._cancel_wait()
        self._cancel_routing()
        self._queue.clear()
        if self.transport is not None:
            self.transport.loseConnection()

    def _leave(self) -> None:
        game, seat = self.game, self.seat
        if game is not None and seat is not None and game.state != OVER:
            self.seat = None
            try:
                game.leave_seat(seat)
            except GameError:
                pass

    def timeoutConnection(self) -> None:
        """The client was silent past a prolog deadline."""
        self.fail("TIMEOUT Be faster next time", "timeout")

    def lineLengthExceeded(self, line: bytes) -> None:
        """A line (or a buffer without newline) longer than 1024 bytes."""
        self._record("in", line[:200] + b"...")
        self.fail(f"Line too long: more than {codec.MAX_LINE} bytes", "too_long")

    # -- transcript -----------------------------------------------------------------------

    def _record(self, direction: str, content: str | bytes) -> None:
        self.records.record(direction, content)

    # -- client lines ---------------------------------------------------------------------

    def lineReceived(self, line: bytes) -> None:
        """Parse one line; refuse a command the current state does not take (the
        table of :mod:`.states`), else make its move and hand it to its handler."""
        machine = self.machine
        if machine.state is State.CLOSED:
            return
        self.telemetry.message_in()
        self.records.record("in", line)
        try:
            command = codec.parse_line(line)
            move = _INPUTS[command.verb]
            if machine.step(move) is None:
                raise ProtocolError(refusal(machine.state, command.verb))
            if move is Input.VERSION or move is Input.ID:
                self._said += line + b"\n"
            self._HANDLERS[move](self, command)
        except ProtocolError as e:
            self.fail(e.reason)

    def _on_version(self, cmd: codec.Command) -> None:
        codec.check_client_version(cmd.arg, self.version)
        self.send(codec.VERSION_ACCEPTED)
        self._prolog.start(self)

    def _on_id(self, cmd: codec.Command) -> None:
        gid = codec.check_game_id(cmd.arg, self.version)
        try:
            game = self.hub.lobby.get(gid)
        except Elsewhere as e:  # another hub of the cluster runs it
            route = e.routes.get("mnm")
            if route is None:
                raise ProtocolError(f"Not a valid game ID here: {e.reason}") from None
            self._pass_through(route, e.reason, gid, e.hub)
            return
        except GameError:
            routing = self.hub.routes.route("mnm", gid) if self.hub.routes is not None else None
            if routing is None:
                self._look_up(gid)
                return
            self._prolog.cancel(self)  # the route's own bound applies
            self._routing = routing
            routing.addCallbacks(self._on_routed, self._not_routed, errbackArgs=(gid,))
            return
        self._join(game)

    def _look_up(self, gid: str) -> None:
        """A Game-ID this hub does not know: another hub may have made it a moment
        ago (the cluster's directory is asked once, :mod:`hub.cluster.lookup`); what
        the client sends meanwhile waits."""
        lobby = self.hub.lobby
        if lobby.look_up is None:
            raise ProtocolError("Not a valid game ID")
        self.paused = True  # the line receiver keeps what follows the ID line
        transport: Any = self.transport  # a TCP or TLS transport: a push producer
        transport.pauseProducing()
        lobby.find(gid).addCallbacks(self._found, self._not_found, errbackArgs=(gid,))

    def _found(self, game: Any) -> None:
        self.paused = False
        if self._closed:
            return
        transport: Any = self.transport
        transport.resumeProducing()
        try:
            self._join(game)
        except ProtocolError as e:
            self.fail(e.reason)
            return
        self.dataReceived(b"")

    def _not_found(self, failure: Any, gid: str) -> None:
        self.paused = False
        if self._closed:
            return
        error = failure.value
        if isinstance(error, Elsewhere) and error.routes.get("mnm") is not None:
            self._pass_through(error.routes["mnm"], error.reason, gid, error.hub)
        elif isinstance(error, Elsewhere):
            self.fail(f"Not a valid game ID here: {error.reason}")
            return
        else:
            self.fail("Not a valid game ID")
            return
        self.dataReceived(b"")  # what the client sent after the ID line, passed on

    def _on_routed(self, routed: Routed) -> None:
        self._routing = None
        if self._closed:
            return
        self._routed = routed
        try:
            self._join(routed.game)
        except ProtocolError as e:
            self.fail(e.reason)

    def _not_routed(self, failure: Any, gid: str) -> None:
        self._routing = None
        if failure.check(defer.CancelledError):
            return
        error = failure.value
        if isinstance(error, Elsewhere) and error.routes.get("mnm") is not None:
            # the key is another hub's to route (a cluster's tournament): that hub
            # reads the same ID line
            self._pass_through(error.routes["mnm"], error.reason, gid, error.hub)
            self.dataReceived(b"")  # what the client sent after the ID line, passed on
            return
        reason = failure.value.reason if failure.check(GameError) else "no game"
        self.fail(f"Not a valid game ID: {reason}")

    def _join(self, game: Any) -> None:
        adapter = game.factory.adapter("mnm")
        if adapter is None:
            raise ProtocolError(
                f"Not a valid game ID: {game.type} is not played over MNM"
                " (MNM plays two-player games that declare a board)"
            )
        if game.state == OVER:
            raise ProtocolError("Not a valid game ID: that game is over")
        self.game, self.adapter = game, adapter
        self._queue = []
        options = game.config.options
        if isinstance(options.get("wait_interval_ms"), int):
            self._wait_interval = options["wait_interval_ms"] / 1000.0
        if isinstance(options.get("wait_timeout_ms"), int):
            self._wait_timeout = options["wait_timeout_ms"] / 1000.0
        self.records.attach(game.transcript)
        self.send_lines(codec.lines_prolog_game(adapter.kind, game.name))
        self.machine.move(Input.ROUTED)
        self._prolog.start(self)

    def _pass_through(
        self, route: tuple[str, int, bool], where: str, game_id: str, owner: str
    ) -> None:
        """Splice the connection to the hub that runs the game (``owner``); should the
        game move to another hub, the splice follows it there (:mod:`hub.cluster.moves`)."""
        self.machine.move(Input.PASS)
        self._prolog.cancel(self)
        hand_off, rest = self.hub.lobby.hand_off, b""
        if hand_off is not None:  # the owner on this machine takes the socket itself
            rest = self.clearLineBuffer()  # what the client sent after its ID line
            if hand_off(owner, "mnm", self.transport, self._said + rest, self._sent):
                self.log.info("mnm {conn}: handed over ({where})", conn=self.conn_id, where=where)
                return
        self.log.info("mnm {conn}: passed through ({where})", conn=self.conn_id, where=where)

        def failed(reason: str) -> None:
            self.fail(f"Not a valid game ID here: {where}, and {reason}", "unreachable")

        self._owner_hub = owner

        def where_now() -> defer.Deferred[Any]:
            follow = self.hub.lobby.follow
            if follow is None:  # (the hub left the cluster)
                return defer.succeed(None)
            return follow(game_id, None, self._owner_hub, "mnm").addCallback(self._moved)

        self._talk = talk = Conversation(self._said)
        follow = Follow(where=where_now, replay=talk.rejoin, final=_final, seen=talk.owner)
        self.splice = Splice(
            self._reactor,
            self.transport,
            route,
            self._said,
            self._sent,
            failed,
            self.hub.options,
            follow=follow,
        )
        self.splice.start()
        if rest:
            self.rawDataReceived(rest)
        self.setRawMode()

    def _moved(self, place: Place | None) -> tuple[str, int, bool] | None:
        if place is None:
            return None
        self._owner_hub, route = place
        return route

    def rawDataReceived(self, data: bytes) -> None:
        """Passed through: the client's bytes go to the game's hub (the conversation
        keeps what a new owner must hear: :mod:`.rejoin`)."""
        if self.splice is not None and self._talk is not None:
            self.splice.client_data(self._talk.client(data))

    def _on_player(self, cmd: codec.Command) -> None:
        game = self.game
        wish = codec.parse_player(cmd.arg, len(game.seats))
        routed = self._routed
        free = game.free_seats("client", routed.name if routed is not None else None)
        if routed is not None:
            seat = routed.seat if wish in (None, routed.seat) else None
        else:
            seat = wish if wish is not None else (free[0] if free else None)
        if seat is None or seat not in free:
            raise ProtocolError("No free player")
        name = routed.name if routed is not None else self._default_name(seat)
        if game.seat_of(name) is not None and routed is None:
            name = f"{name}{seat}"
        game.observe(self, seat)
        # the hub's one way to seat; a game without chips seats at once, else what the
        # client sends meanwhile waits (as a looked-up game's lines do)
        seating = defer.ensureDeferred(self.hub.take_seat(game, name, seat, kind="client"))
        done: list[Any] = []
        seating.addBoth(done.append)
        if done:
            self._seat_taken(done[0], game, seat, name)
            return
        self.paused = True
        transport: Any = self.transport
        transport.pauseProducing()
        seating.addCallback(lambda _: self._seat_later(done[0], game, seat, name))

    def _seat_later(self, outcome: Any, game: Any, seat: int, name: str) -> None:
        self.paused = False
        transport: Any = self.transport
        transport.resumeProducing()
        if self._closed:
            if not isinstance(outcome, Failure):
                game.leave_seat(seat)
            return
        try:
            self._seat_taken(outcome, game, seat, name)
        except ProtocolError as e:
            self.fail(e.reason)
            return
        self.dataReceived(b"")

    def _seat_taken(self, outcome: Any, game: Any, seat: int, name: str) -> None:
        """Seated (``outcome`` the seat), or refused (a failure): ``PLAYERS`` follows."""
        if isinstance(outcome, Failure):
            game.unobserve(self)
            outcome.trap(GameError)
            reason = outcome.value.reason if isinstance(outcome.value, GameError) else ""
            raise ProtocolError(f"No free player: {reason}")
        self.seat = seat
        self._prolog.cancel(self)
        others = []
        for record in game.seats:
            if record.index != seat:
                ready = record.player is not None and record.present
                others.append(
                    (
                        record.index,
                        codec.wire_name(record.player, self._default_name(record.index)),
                        ready,
                    )
                )
        self.send_lines(
            codec.lines_players(seat, codec.wire_name(name, name), len(game.seats), others)
        )
        self.machine.move(Input.SEATED)
        if game.state == RUNNING and not self._queue and game.legal_actions(seat):
            view = game.view(seat)
            self._queue.append(
                GameEvent(
                    TURN,
                    {
                        "seat": seat,
                        "legal": game.legal_actions(seat),
                        "timeleft_ms": view.get("timeleft_ms") or view.get("move_time_ms"),
                        "capture": view.get("capture", 0),
                    },
                )
            )
        self._pump()

    def _default_name(self, seat: int) -> str:
        names = self.adapter.default_names
        return names[seat] if seat < len(names) else f"player{seat}"

    def _on_okwait(self, cmd: codec.Command) -> None:
        self._cancel_wait()
        self._pump()

    def _on_thinking(self, cmd: codec.Command) -> None:
        self._answer(_OKTHINK, _OKTHINK_BYTES)

    def _on_play(self, cmd: codec.Command) -> None:
        if not cmd.arg:
            raise ProtocolError("Invalid move: PLAY needs a move")
        assert self._turn is not None
        if self.game.state != OVER and self.seat is not None:
            try:
                action = self.adapter.parse_move(cmd.arg, self._turn)
                self.game.act(self.seat, action)
            except GameError as e:
                if e.code == 503:  # the game moves to another hub: no answer here
                    return  # (game_moved closes; a door passes the move on)
                raise ProtocolError(e.reason) from None
            if self._closed:
                return
        # else the game ended meanwhile: MOVEOK all the same, GAMEOVER follows
        self._answer(_MOVEOK, _MOVEOK_BYTES)
        self.machine.move(Input.MOVED)
        self._pump()

    #: the handler of each client command, once its move is made
    _HANDLERS = {
        Input.VERSION: _on_version,
        Input.ID: _on_id,
        Input.PLAYER: _on_player,
        Input.OKWAIT: _on_okwait,
        Input.THINKING: _on_thinking,
        Input.PLAY: _on_play,
    }

    # -- game events ----------------------------------------------------------------------

    def game_moved(self, game: Any) -> None:
        """The game runs on another hub now: close without a word, leaving no seat (a
        door that spliced this connection follows the game there: :mod:`.rejoin`)."""
        self.seat = None
        self._end()

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Queue the events that need lines; send them when the client may listen."""
        kind = event.kind
        if kind != TURN and kind != GAME_OVER or self.machine.state is State.CLOSED:
            return  # a move, a seat... : nothing to say over MNM
        if kind == GAME_OVER:
            result = event.data.get("result") or {}
            if result.get("reason") == "timeout" and result.get("loser") == self.seat:
                self._game_over(event)
                return
            self._queue.append(event)
            if self.machine.allows(Input.OVERDUE):
                # The client is in the middle of a move exchange: let it finish
                # (OKTHINK, MOVEOK; the move itself is moot), so that a strict client
                # reads GAMEOVER where it expects the next request.  Bounded.
                self._cancel_wait()
                self._wait_call = self._reactor.callLater(self._wait_timeout, self._over_due)
                return
        elif event.data.get("seat") == self.seat:  # a turn
            self._queue.append(event)
        else:
            return
        self._pump()

    def _pump(self) -> None:
        """Send queued requests while the client is idle; else schedule a WAIT."""
        machine = self.machine
        if machine.state is not State.IDLE:
            return
        queue = self._queue
        while queue and machine.state is State.IDLE:
            event = queue.pop(0)
            if event.kind == GAME_OVER:
                self._game_over(event)
                return
            self._move_request(event)
        if machine.state is State.IDLE:
            self._schedule_wait()

    def _move_request(self, event: GameEvent) -> None:
        game = self.game
        if game.state != RUNNING:
            return
        # a WAIT timer still running fires harmlessly (no WAIT but while idle) and is
        # reset when the connection is idle again: no cancel and new timer per move
        self._turn = data = event.data
        pieces = self._pieces()
        timeleft = data.get("timeleft_ms") or game.view(self.seat).get("move_time_ms") or 3000
        self._write(codec.block_move(int(timeleft), self.adapter.capture_count(data), pieces))
        self.machine.move(Input.MOVE)

    def _pieces(self) -> Any:
        """The piece list now: the adapter's ``current_pieces`` where it provides
        :class:`~hub.optional_interfaces.IMNMCurrentPieces` (the same list without
        building the whole view), else its ``piece_list`` of the seat's view."""
        adapter, game = self.adapter, self.game
        if IMNMCurrentPieces.providedBy(adapter):
            return adapter.current_pieces(game.engine, self.seat)
        return adapter.piece_list(game.view(self.seat))

    def _game_over(self, event: GameEvent) -> None:
        self._cancel_wait()
        result = dict(event.data.get("result") or {})
        if result.get("reason") == "timeout" and result.get("loser") == self.seat:
            self.seat = None
            self.fail("TIMEOUT Be faster next time", "timeout")
            return
        self.send_lines(codec.lines_gameover(self._pieces(), self.adapter.winners(result)))
        self.seat = None
        self._end()

    def _over_due(self) -> None:
        self._wait_call = None
        if self.machine.allows(Input.OVERDUE):
            self.machine.move(Input.OVERDUE)
            self._pump()

    # -- WAIT -----------------------------------------------------------------------------

    def _schedule_wait(self) -> None:
        # (a wait of the last idle spell moves to the end of its queue: no new timer)
        waits = self._waits.waits.start(self, self._wait_interval)
        if self._wait_in is not None and self._wait_in is not waits:
            self._wait_in.cancel(self)
        self._wait_in = waits

    def send_wait(self) -> None:
        """The connection has been idle for its interval: ``WAIT``, if it still is."""
        self._wait_in = None
        if not self.machine.allows(Input.WAIT):
            return
        self.send(codec.WAIT)
        self.machine.move(Input.WAIT)
        self._wait_in = self._waits.answers.start(self, self._wait_timeout)

    def wait_expired(self) -> None:
        """The ``OKWAIT`` did not come in time: the connection loses."""
        self._wait_in = None
        if self.state is State.OKWAIT:
            self.fail("TIMEOUT You did not answer WAIT with OKWAIT in time", "timeout")

    def _cancel_routing(self) -> None:
        routing, self._routing = self._routing, None
        if routing is not None and not routing.called:
            routing.cancel()

    def _cancel_wait(self) -> None:
        if self._wait_in is not None:
            self._wait_in.cancel(self)
            self._wait_in = None
        if self._wait_call is not None and self._wait_call.active():
            self._wait_call.cancel()
        self._wait_call = None


class MNMFactory(Factory):
    """Builds :class:`MNMProtocol` for each connection to the MNM port."""

    #: the front end's metrics and refusal events (the hub sets its own)
    telemetry: FrontendTelemetry = DETACHED.frontend("mnm")

    def __init__(self, hub: IHub) -> None:
        self.hub = hub
        self._reactor = hub.reactor
        #: the settings every connection reads (made once)
        self.options = settings(hub)
        #: every connection's prolog deadline, checked by one sweep
        self.prolog = prolog_deadlines(self._reactor, self.options)
        #: every connection's WAIT timers
        self.waits = WaitTimers(self._reactor)
        self._adopting = 0
        self._adopted: MNMProtocol | None = None

    def buildProtocol(self, addr: Any) -> MNMProtocol:
        """A protocol bound to the hub and its reactor."""
        proto = MNMProtocol(self.hub, self._reactor, self.options, self.prolog, self.waits)
        proto.factory = self
        proto.telemetry = self.telemetry
        proto._mute, self._adopting = self._adopting, 0
        self._adopted = proto
        return proto

    def adopt(self, fd: int, family: int, replay: bytes, skip: int) -> None:
        """A connection another hub's door handed over (:mod:`hub.cluster.handoff`):
        its first ``skip`` lines are not written (the door said them), then
        ``replay`` (the client's ``VERSION`` and ``ID``, and what followed) is read."""
        self._adopting = skip
        try:
            self._reactor.adoptStreamConnection(fd, family, self)
        finally:
            self._adopting = 0
        proto, self._adopted = self._adopted, None
        if proto is not None and replay:
            proto.dataReceived(replay)
