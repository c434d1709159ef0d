"""The MNM front end's connection: a thin line receiver around :mod:`.codec`.

One :class:`MNMProtocol` per client.  The server drives: after the prolog the client
only answers (``OKWAIT`` to ``WAIT``, ``THINKING`` to a move request, ``PLAY`` after
``OKTHINK``).  While the server waits for such an answer it sends nothing else: game
events that arrive meanwhile are queued and sent once the answer is in, so a client
that reads strictly line by line never sees two requests cross.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver
from twisted.protocols.policies import TimeoutMixin
from zope.interface import implementer

from hub.interfaces import IGameObserver
from hub.model import GAME_OVER, OVER, RUNNING, TURN, GameError, GameEvent

from . import codec
from .codec import ProtocolError

DEFAULTS: dict[str, Any] = {
    "mnm_version": "3.1",
    "mnm_announcement": "Announcement: welcome to Gamehub",
    "mnm_prolog_timeout": 30.0,  # seconds for each prolog answer
    "mnm_wait_interval": 1.0,  # seconds idle before a WAIT
    "mnm_wait_timeout": 5.0,  # seconds to answer WAIT
}

_conn_ids = itertools.count(1)


@implementer(IGameObserver)
class MNMProtocol(LineOnlyReceiver, TimeoutMixin):
    """One MNM client connection (see the module docstring)."""

    delimiter = b"\n"
    MAX_LENGTH = codec.MAX_LINE + 1  # the line may end with \r
    log = Logger()

    def __init__(self, hub: Any, clock: Any) -> None:
        self.hub = hub
        self._reactor = clock
        self.callLater = clock.callLater  # type: ignore[method-assign]  # TimeoutMixin uses it
        self.options = dict(DEFAULTS)
        self.options.update({k: v for k, v in dict(hub.options).items() if k in DEFAULTS})
        self.version = str(self.options["mnm_version"])
        self.conn_id = f"mnm{next(_conn_ids)}"
        self.state = "version"
        self.game: Any = None
        self.adapter: Any = None
        self.seat: int | None = None
        self._transcript_buffer: list[tuple[str, str]] = []
        self._queue: list[GameEvent] = []
        self._turn: Mapping[str, Any] | None = None
        self._wait_call: Any = None
        self._wait_interval = float(self.options["mnm_wait_interval"])
        self._wait_timeout = float(self.options["mnm_wait_timeout"])
        self._closed = False

    # -- connection life ------------------------------------------------------------------

    def connectionMade(self) -> None:
        """Send the banner (and for major ≥ 3 the announcement); expect ``VERSION``."""
        self.setTimeout(float(self.options["mnm_prolog_timeout"]))
        self.send(codec.banner_line(self.version))
        if int(codec.version_major(self.version)) >= 3:
            self.send(codec.announcement_line(str(self.options["mnm_announcement"])))

    def connectionLost(self, reason: Any = None) -> None:
        """Stop timers; a player who vanishes mid-game loses it."""
        self._closed = True
        self.setTimeout(None)
        self._cancel_wait()
        self._leave()
        if self.game is not None:
            self.game.unobserve(self)
            transcript = getattr(self.game, "transcript", None)
            if transcript is not None:
                transcript.end_connection(self.conn_id)

    def send(self, line: str) -> None:
        """Write one server line now, and keep it in the transcript."""
        if self._closed or self.transport is None:
            return
        self._record("out", line)
        self.transport.write(line.encode("ascii", "replace") + b"\n")

    def fail(self, reason: str) -> None:
        """``- <reason>``, close, and forfeit the game if one is running."""
        if self._closed:
            return
        self.send(codec.error_line(reason))
        self._end()
        self._leave()

    def _end(self) -> None:
        self.state = "closed"
        self.setTimeout(None)
        self._cancel_wait()
        self._queue.clear()
        if self.transport is not None:
            self.transport.loseConnection()
        self._closed = True

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
        self.fail("TIMEOUT Be faster next time")

    def lineLengthExceeded(self, line: bytes) -> None:
        """A line (or a buffer without newline) longer than 1024 bytes."""
        self._record("in", line[:200] + b"...")
        self.fail(f"Line too long: more than {codec.MAX_LINE} bytes")

    # -- transcript -----------------------------------------------------------------------

    def _record(self, direction: str, content: str | bytes) -> None:
        transcript = getattr(self.game, "transcript", None)
        if transcript is None:
            if self.game is None:
                self._transcript_buffer.append((direction, content))  # type: ignore[arg-type]
            return
        transcript.record(self.conn_id, direction, content)

    def _flush_transcript(self) -> None:
        transcript = getattr(self.game, "transcript", None)
        buffered, self._transcript_buffer = self._transcript_buffer, []
        if transcript is not None:
            for direction, content in buffered:
                transcript.record(self.conn_id, direction, content)

    # -- client lines ---------------------------------------------------------------------

    def lineReceived(self, line: bytes) -> None:
        """Parse one line and hand it to the handler of the current state."""
        if self._closed:
            return
        self._record("in", line)
        try:
            command = codec.parse_line(line)
            handler = getattr(self, f"_in_{self.state}")
            handler(command)
        except ProtocolError as e:
            self.fail(e.reason)

    def _in_version(self, cmd: codec.Command) -> None:
        if cmd.verb != "VERSION":
            raise ProtocolError("We expected VERSION <major>.<minor>")
        codec.check_client_version(cmd.arg, self.version)
        self.send(codec.VERSION_ACCEPTED)
        self.state = "id"
        self.resetTimeout()

    def _in_id(self, cmd: codec.Command) -> None:
        if cmd.verb != "ID":
            raise ProtocolError("We expected ID <Game-ID>")
        gid = codec.check_game_id(cmd.arg, self.version)
        try:
            game = self.hub.lobby.get(gid)
        except GameError:
            raise ProtocolError("Not a valid game ID") from None
        adapter = game.factory.adapter("mnm")
        if adapter is None:
            raise ProtocolError("Not a valid game ID: that game is not played over MNM")
        if game.state == OVER:
            raise ProtocolError("Not a valid game ID: that game is over")
        self.game, self.adapter = game, adapter
        options = game.config.options
        if isinstance(options.get("wait_interval_ms"), int):
            self._wait_interval = options["wait_interval_ms"] / 1000.0
        if isinstance(options.get("wait_timeout_ms"), int):
            self._wait_timeout = options["wait_timeout_ms"] / 1000.0
        self._flush_transcript()
        for line in codec.lines_prolog_game(adapter.kind, game.name):
            self.send(line)
        self.state = "player"
        self.resetTimeout()

    def _in_player(self, cmd: codec.Command) -> None:
        if cmd.verb != "PLAYER":
            raise ProtocolError("We expected PLAYER [number]")
        game = self.game
        wish = codec.parse_player(cmd.arg, len(game.seats))
        free = game.free_seats("client")
        seat = wish if wish is not None else (free[0] if free else None)
        if seat is None or seat not in free:
            raise ProtocolError("No free player")
        name = self._default_name(seat)
        if game.seat_of(name) is not None:
            name = f"{name}{seat}"
        game.observe(self, seat)
        self.state = "joining"
        try:
            game.take_seat(name, seat, kind="client")
        except GameError as e:
            game.unobserve(self)
            raise ProtocolError(f"No free player: {e.reason}") from None
        self.seat = seat
        self.setTimeout(None)
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
        for line in codec.lines_players(seat, codec.wire_name(name, name), len(game.seats), others):
            self.send(line)
        self.state = "idle"
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
        names = getattr(self.adapter, "default_names", ("white", "black"))
        return names[seat] if seat < len(names) else f"player{seat}"

    def _in_joining(self, cmd: codec.Command) -> None:
        raise ProtocolError(f"Unexpected command {cmd.verb}: the server has the word")

    def _in_idle(self, cmd: codec.Command) -> None:
        if cmd.verb == "PLAY":
            raise ProtocolError("It is not your turn to PLAY")
        if cmd.verb == "THINKING":
            raise ProtocolError("We did not ask you for a move")
        raise ProtocolError(f"Unexpected command {cmd.verb}: the server has the word")

    def _in_okwait(self, cmd: codec.Command) -> None:
        if cmd.verb != "OKWAIT":
            raise ProtocolError("We expected OKWAIT")
        self._cancel_wait()
        self.state = "idle"
        self._pump()

    def _in_think(self, cmd: codec.Command) -> None:
        if cmd.verb != "THINKING":
            raise ProtocolError("We expected you to THINK!")
        self.send(codec.OKTHINK)
        self.state = "play"

    def _in_play(self, cmd: codec.Command) -> None:
        if cmd.verb != "PLAY":
            raise ProtocolError("We expected PLAY <move>")
        if not cmd.arg:
            raise ProtocolError("Invalid move: PLAY needs a move")
        assert self._turn is not None
        if self.game.state == OVER or self.seat is None:
            self.send(codec.MOVEOK)  # the game ended meanwhile; GAMEOVER follows
            self.state = "idle"
            self._pump()
            return
        try:
            action = self.adapter.parse_move(cmd.arg, self._turn)
        except GameError as e:
            raise ProtocolError(e.reason) from None
        self.state = "acting"
        try:
            self.game.act(self.seat, action)
        except GameError as e:
            raise ProtocolError(e.reason) from None
        if self._closed:
            return
        self.send(codec.MOVEOK)
        self.state = "idle"
        self._pump()

    def _in_acting(self, cmd: codec.Command) -> None:
        raise ProtocolError(f"Unexpected command {cmd.verb}")

    def _in_gameover(self, cmd: codec.Command) -> None:
        raise ProtocolError("The game is over")

    # -- game events ----------------------------------------------------------------------

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Queue the events that need lines; send them when the client may listen."""
        if self._closed:
            return
        if event.kind == GAME_OVER:
            result = event.data.get("result") or {}
            if result.get("reason") == "timeout" and result.get("loser") == self.seat:
                self._game_over(event)
                return
            self._queue.append(event)
            if self.state in ("think", "play"):
                # The client is in the middle of a move exchange: let it finish
                # (OKTHINK, MOVEOK; the move itself is moot), so that a strict client
                # reads GAMEOVER where it expects the next request.  Bounded.
                self._cancel_wait()
                self._wait_call = self._reactor.callLater(self._wait_timeout, self._over_due)
                return
        elif event.kind == TURN and event.data.get("seat") == self.seat:
            self._queue.append(event)
        else:
            return
        self._pump()

    def _pump(self) -> None:
        """Send queued requests while the client is idle; else schedule a WAIT."""
        if self._closed or self.state != "idle":
            return
        while self._queue and self.state == "idle":
            event = self._queue.pop(0)
            if event.kind == GAME_OVER:
                self._game_over(event)
                return
            self._move_request(event)
        if self.state == "idle":
            self._schedule_wait()

    def _move_request(self, event: GameEvent) -> None:
        if self.game.state != RUNNING:
            return
        self._cancel_wait()
        self._turn = event.data
        view = self.game.view(self.seat)
        pieces = self.adapter.piece_list(view)
        capture = self.adapter.capture_count(event.data)
        timeleft = event.data.get("timeleft_ms") or view.get("move_time_ms") or 3000
        for line in codec.lines_move(int(timeleft), capture, pieces):
            self.send(line)
        self.state = "think"

    def _game_over(self, event: GameEvent) -> None:
        self._cancel_wait()
        result = dict(event.data.get("result") or {})
        if result.get("reason") == "timeout" and result.get("loser") == self.seat:
            self.seat = None
            self.fail("TIMEOUT Be faster next time")
            return
        pieces = self.adapter.piece_list(self.game.view(self.seat))
        for line in codec.lines_gameover(pieces, self.adapter.winners(result)):
            self.send(line)
        self.seat = None
        self._end()

    def _over_due(self) -> None:
        self._wait_call = None
        if self.state in ("think", "play"):
            self.state = "idle"
            self._pump()

    # -- WAIT -----------------------------------------------------------------------------

    def _schedule_wait(self) -> None:
        if self._wait_call is None or not self._wait_call.active():
            self._wait_call = self._reactor.callLater(self._wait_interval, self._send_wait)

    def _send_wait(self) -> None:
        self._wait_call = None
        if self._closed or self.state != "idle":
            return
        self.send(codec.WAIT)
        self.state = "okwait"
        self._wait_call = self._reactor.callLater(self._wait_timeout, self._wait_expired)

    def _wait_expired(self) -> None:
        self._wait_call = None
        if self.state == "okwait":
            self.fail("TIMEOUT You did not answer WAIT with OKWAIT in time")

    def _cancel_wait(self) -> None:
        if self._wait_call is not None and self._wait_call.active():
            self._wait_call.cancel()
        self._wait_call = None


class MNMFactory(Factory):
    """Builds :class:`MNMProtocol` for each connection to the MNM port."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self._reactor = hub.reactor

    def buildProtocol(self, addr: Any) -> MNMProtocol:
        """A protocol bound to the hub and its reactor."""
        proto = MNMProtocol(self.hub, self._reactor)
        proto.factory = self
        return proto
