"""The domino front end: the connection's protocol and the factory that forms games.

:class:`DominoProtocol` is a plain Protocol around the sans-I/O
:class:`.codec.LineFramer`.  Life of a connection (the table of :mod:`.states`):
``connected`` (``CONNECT`` sent) → ``waiting`` (logged in, queued) → ``playing``
(seated in a game) → ``removed`` (out of its game or the queue) or ``over`` (its game
ended), then ``closed`` when the transport is gone; a connection that is not seated
after all goes from ``playing`` back to ``waiting``.  A command its state does not
take is answered ``ERROR`` by that table.

Every command the game accepts is answered ``OK`` before any line it causes (the
front end's, not the game's: ``IDominoAdapter`` only renders lines).

How players reach games: logged-in players wait in a queue, first come first served.
They first fill the free ``open`` seats of games of the configured type (default:
the first installed game type the domino front end hosts) that are waiting in the lobby, oldest game first, but only a game whose
free seats are all ``open`` and can all be filled from the queue at once, so that it
starts right away (nobody sits in a game that may never start).  That is how one
network client plays a game created with ``POST /api/games`` with three ``bot:`` seats.
When four players wait and no such game fits, the front end creates a game with four
open seats and seats them; later logins wait for the next game.

In a cluster the queue is the cluster's: every hub passes its logins through to the
hub where the cluster's players meet (``IHub.place(gather=True)``: the oldest live
hub) with a byte splice (:mod:`hub.cluster.splice`): the ``LOGIN`` line is replayed
there, the owner's ``CONNECT`` dropped (the client had the door's), and from then on
the owner queues, seats and plays the client.

A game that moved (its hub stopped or handed it over, and this hub resumed it from its
journal) keeps its network clients' seats for their players: a ``LOGIN`` with such a
player's name is seated back there, not queued (``OK``, then the lines of what the seat
missed since the game went live here: :meth:`DominoProtocol._come_back`), and a door
passes such a login through to the hub whose game keeps that name's seat.  A door that
spliced the client follows the game there by itself (:mod:`.rejoin`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.cluster.moves import Place
from hub.cluster.splice import Follow, Splice
from hub.connections import names
from hub.connections.sockets import no_delay, write_now
from hub.connections.states import Machine
from hub.connections.transcript import ConnectionRecord
from hub.interfaces import IGameObserver, ILobbyListener
from hub.model import GAME_OVER, RUNNING, WAITING, Elsewhere, GameError
from hub.ops.telemetry import DETACHED, FrontendTelemetry
from hub.optional_interfaces import IFollowsMoves
from hub.seatops import SeatingHub

from . import codec
from .rejoin import Session
from .states import REFUSALS, TRANSITIONS, Input, State

#: Defaults of the settings a hub may override through ``hub.options``.
DEFAULTS = {
    "domino_game": None,  # the first installed game type this front end hosts
    "domino_answer_seconds": 2.0,
    "domino_max_invalid": 100,
    "domino_login_seconds": 60.0,
    "domino_idle_seconds": 600.0,
}


@implementer(IGameObserver, IFollowsMoves)
class DominoProtocol(Protocol):
    """One client connection of the domino line protocol."""

    log = Logger()
    factory: DominoFactory

    def __init__(self) -> None:
        self.conn_id = "d?"
        self.machine: Machine[State, Input] = Machine(TRANSITIONS, State.CONNECTED)
        self.login: str | None = None
        self.game: Any = None
        self.seat: int | None = None
        self.adapter: Any = None
        self.invalid = 0
        self._framer = codec.LineFramer(codec.MAX_LENGTH)
        self.records = ConnectionRecord(self.conn_id)
        self._pending_ok = False
        self._login_timer: Any = None
        self._idle_timer: Any = None
        self.splice: Splice | None = None
        self._session: Session | None = None  # (passed through) what a new owner must hear
        self._owner_hub = ""  # (passed through) the hub that plays the client's game
        self._routing: Any = None  # a routed login (hub.play.routes) waiting for its game

    @property
    def state(self) -> State:
        """Where the connection is (:class:`.states.State`)."""
        return self.machine.state

    # -- connection ------------------------------------------------------------------

    def connectionMade(self) -> None:
        """Say ``CONNECT`` at once (a client may already have sent ``LOGIN``)."""
        no_delay(self.transport)
        self.conn_id = self.records.conn_id = self.factory.next_connection_id()
        self.factory.telemetry.opened()
        self._login_timer = self.factory.reactor.callLater(
            self.factory.login_seconds, self._login_timeout
        )
        self.send("CONNECT")

    def connectionLost(self, reason: Any = None) -> None:
        """Leave the queue or the game."""
        self.factory.telemetry.closed()
        if self.splice is not None:
            self.splice.client_lost()
        if self._login_timer is not None and self._login_timer.active():
            self._login_timer.cancel()
        self._login_timer = None
        self._cancel_idle()
        self._cancel_routing()
        was = self.state
        self.machine.move(Input.LOST)
        if was is State.WAITING:
            self.factory.dequeue(self)
        elif was is State.PLAYING and self.game is not None:
            self.game.unobserve(self)
            self._note("disconnected")
            if self.seat is not None:
                self.game.leave_seat(self.seat)
        self.records.end()

    def close(self, why: str) -> None:
        """Close the connection (after what was written)."""
        if self.transport is not None and not self._disconnecting():
            self._note(f"closing: {why}")
            self.transport.loseConnection()

    def _disconnecting(self) -> bool:
        # foreign: a transport need not have ``disconnecting`` (ITransport lacks it)
        return bool(getattr(self.transport, "disconnecting", False))

    # -- bytes in --------------------------------------------------------------------

    def dataReceived(self, data: bytes) -> None:
        """Cut lines with a bounded buffer; an overlong message is dropped as it streams.
        Passed through: the bytes go on to the hub that has the client."""
        if self.splice is not None:
            self._to_owner(data)
            return
        tokens = self._framer.feed(data)
        for index, token in enumerate(tokens):
            if self.state is State.CLOSED or self._disconnecting():
                return
            if self.splice is not None:  # the lines after the LOGIN line go on, unread
                self._to_owner(self._rest(tokens[index:]))
                return
            if isinstance(token, codec.Overlong):
                self._record("in", token.head + b"...(discarded: over 250 characters)")
                self.invalid_command("message longer than 250 characters")
            else:
                self._line(token.data)
        if self.splice is not None:  # passed through by the last line: what is left of it
            self._to_owner(self._framer.drain())

    def _to_owner(self, data: bytes) -> None:
        """(Passed through) the client's bytes go on; the session keeps what a new
        owner of the game must hear (:mod:`.rejoin`)."""
        assert self.splice is not None and self._session is not None
        self.splice.client_data(self._session.client(data))

    def _line(self, line: bytes) -> None:
        """One line: a login or a game command, if the state takes it now."""
        self.factory.telemetry.message_in()
        self._record("in", line)
        message = codec.parse(line)
        if isinstance(message, codec.Invalid):
            self.invalid_command(message.reason)
            return
        move = Input.LOGIN if isinstance(message, codec.Login) else Input.COMMAND
        if not self.machine.allows(move):
            self.invalid_command(REFUSALS[move])
        elif isinstance(message, codec.Login):
            self._login(message.name)
        else:
            self._command(message)

    def _rest(self, tokens: list[Any]) -> bytes:
        """The stream after the LOGIN line, as the owner's framer would cut it (a line
        over the limit as one just over it: the owner refuses it as this hub would)."""
        over = b"x" * (codec.MAX_LENGTH + 2)
        cut = [t.data if isinstance(t, codec.Line) else over for t in tokens]
        return b"".join(line + b"\n" for line in cut) + self._framer.drain()

    def _login(self, name: str) -> None:
        why = names.reserved(name)
        if why is not None:  # a bot's, a program's, a guest's or an admin's name
            self.invalid_command(f"login {name}: {why}")
            return
        routes = self.factory.routes
        routing = routes.route("domino", name) if routes is not None else None
        owner = _routed_elsewhere(routing)
        if owner is not None:  # an entrant of another hub's tournament: to that hub
            self._pass_through(owner, name)
            return
        if routing is None and self._back_or_on(name):
            return
        if self.factory.login_waiting(name):
            if routing is not None:
                routing.cancel()
            self.invalid_command(f"login {name} is already waiting")
            return
        self._logged_in(name)
        self._idle_timer = self.factory.reactor.callLater(
            self.factory.idle_seconds, self._idle_timeout
        )
        if routing is None:
            self.factory.enqueue(self)
            return
        self._routing = routing
        routing.addCallbacks(self._on_routed, self._not_routed)

    def _logged_in(self, name: str) -> None:
        """``name``'s login is taken (its wait for a login ends): ``OK``."""
        if self._login_timer is not None and self._login_timer.active():
            self._login_timer.cancel()
        self._login_timer = None
        self.login = name
        self.machine.move(Input.LOGIN)
        self.ok()

    def _back_or_on(self, name: str) -> bool:
        """(Not an entrant of this hub's.)  Back to the seat a resumed game here keeps
        for ``name``; else on to the hub of the cluster whose game keeps one, or to the
        cluster's queue on the gathering hub; ``False``: queued here.  A second login
        of a player who plays here, at a hub that does not gather, is refused rather
        than passed on (a hub whose view of this one is behind would pass it back)."""
        factory = self.factory
        kept = factory.kept_seat(name)
        if kept is not None:
            self._come_back(name, *kept)
            return True
        elsewhere, gathering = factory.kept_elsewhere(name), factory.gathering()
        if gathering is not None and factory.playing(name):
            self.invalid_command(f"login {name} plays a game on this hub")
            return True
        place = elsewhere or gathering
        if place is None:
            return False
        self._pass_through(place, name)
        return True

    def _come_back(self, name: str, game: Any, seat: int) -> None:
        """``name`` logs in again: a game resumed here (its hub stopped, or handed it
        over) keeps its seat for that player.  ``OK``, and back in that seat, not in
        the queue; then the lines of what the seat missed since the game went live
        here (:meth:`hub.play.game.GameInstance.missed`: the turn in effect then — its
        prompt, when it is this seat's — and the moves made since), as they would have
        come.  A door that follows the game drops what its client already had
        (:mod:`.rejoin`)."""
        self._logged_in(name)
        self._note(f"back at seat {seat} of game {game.id}")
        seating = defer.ensureDeferred(self.factory.seat(self, game, seat))
        seating.addCallback(self._back, game, seat, name)
        seating.addErrback(
            lambda f: self.log.failure("domino: seating {name} again failed", f, name=name)
        )

    def _back(self, seated: bool, game: Any, seat: int, name: str) -> None:
        """Seated again (``seated``; else back in the queue, as a refused seat is):
        what the seat missed, as lines."""
        if not seated:
            self.factory.enqueue(self)
            return
        for event in game.missed(seat, name):
            if self.state is not State.PLAYING or self.game is not game:
                return
            self.game_event(game, event)

    def _on_routed(self, routed: Any) -> None:
        """The routed login's game is there: take its seat (``hub.play.routes``)."""
        self._routing = None
        if self.state is State.WAITING:
            defer.ensureDeferred(self.factory.seat(self, routed.game, routed.seat))

    def _not_routed(self, failure: Any) -> None:
        self._routing = None
        if failure.check(defer.CancelledError) or self.state is not State.WAITING:
            return
        reason = failure.value.reason if failure.check(GameError) else "no game"
        self._refused("routed", reason)
        self.send("ERROR")
        self.remove(reason)

    def _pass_through(self, gathering: Place, name: str) -> None:
        """Splice the connection to the hub where the cluster's players meet (or to the
        hub whose game keeps the player's seat, or runs its tournament); should the game it
        plays there move to another hub, the splice follows it (by the player's name:
        :mod:`hub.cluster.moves`; what the new owner must hear: :mod:`.rejoin`)."""
        if self._login_timer is not None and self._login_timer.active():
            self._login_timer.cancel()
        self._login_timer = None
        self.login = name
        self.machine.move(Input.PASS)
        owner, route = gathering
        self._owner_hub = owner
        self._note(f"passed through to {route[0]}:{route[1]}")

        def failed(reason: str) -> None:
            self._refused("unreachable", reason)
            self.send("ERROR")
            self.remove(f"the cluster's queue: {reason}")

        def where_now() -> defer.Deferred[Any]:
            d = self.factory.follow(None, name, self._owner_hub, "domino")
            return d.addCallback(self._moved)

        login = codec.encode(f"LOGIN {name}")
        session = self._session = Session(login)
        follow = Follow(
            where=where_now,
            replay=session.rejoin,
            final=lambda tail: session.ended,
            seen=session.owner,
        )
        self.splice = Splice(
            self.factory.reactor,
            self.transport,
            route,
            login,
            1,  # CONNECT
            failed,
            self.factory.options,
            follow=follow,
        )
        self.splice.start()

    def _moved(self, place: Place | None) -> tuple[str, int, bool] | None:
        if place is None:
            return None
        self._owner_hub, route = place
        return route

    def _command(self, command: codec.Command) -> None:
        if command.verb not in self.adapter.verbs:
            self.invalid_command(f"unknown command {command.verb}")
            return
        try:
            action = self.adapter.parse_command(command.verb, list(command.args))
            self._pending_ok = True
            self.game.act(self.seat, action)
        except GameError as e:
            self._pending_ok = False
            if e.code != 503:  # (503: the game moves to another hub: no answer here)
                self.invalid_command(e.reason)
            return
        if self._pending_ok:
            self.ok()

    def _login_timeout(self) -> None:
        self._login_timer = None
        if self.state is State.CONNECTED:
            self._refused("timeout", "no LOGIN in time")
            self.close("no LOGIN in time")

    def _idle_timeout(self) -> None:
        """Logged in, but no game came within ``domino_idle_seconds``: ERROR, close."""
        self._idle_timer = None
        if self.state is State.WAITING:
            self._refused("timeout", f"no game within {self.factory.idle_seconds:g} seconds")
            self.send("ERROR")
            self.remove(f"no game within {self.factory.idle_seconds:g} seconds")

    def _cancel_routing(self) -> None:
        routing, self._routing = self._routing, None
        if routing is not None and not routing.called:
            routing.cancel()

    def _cancel_idle(self) -> None:
        if self._idle_timer is not None and self._idle_timer.active():
            self._idle_timer.cancel()
        self._idle_timer = None

    # -- bytes out -------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Write one line and record it in the transcript."""
        if self.state is State.CLOSED or self.transport is None or self._disconnecting():
            return
        self._record("out", text)
        self.factory.telemetry.message_out()
        write_now(self.transport, codec.encode(text))

    def ok(self) -> None:
        """A valid command: ``OK``; the count of invalid commands starts again."""
        self._pending_ok = False
        self.invalid = 0
        self.send("OK")

    def invalid_command(self, reason: str) -> None:
        """``ERROR``; more than ``max_invalid`` in a row removes the client."""
        self.invalid += 1
        self._refused("invalid", reason)
        self.send("ERROR")
        if self.invalid > self.factory.max_invalid:
            self.remove(f"more than {self.factory.max_invalid} invalid commands in a row")

    def _refused(self, kind: str, reason: str) -> None:
        game = self.game.id if self.game is not None else None
        self.factory.telemetry.refused(kind, reason, self.conn_id, game)

    def remove(self, why: str) -> None:
        """Take the client out of its game (or the queue) and close the connection."""
        self._note(f"removed: {why}")
        was = self.state
        if self.machine.allows(Input.REMOVE):
            self.machine.move(Input.REMOVE)
        if was is State.WAITING:
            self.factory.dequeue(self)
            self._cancel_routing()
        elif was is State.PLAYING and self.game is not None and self.seat is not None:
            self.game.unobserve(self)
            self.game.leave_seat(self.seat)
        self.close(why)

    # -- the game --------------------------------------------------------------------

    def joining(self, game: Any, seat: int) -> None:
        """About to be seated at ``seat`` of ``game``: follow its events."""
        self._cancel_idle()
        self.machine.move(Input.SEATED)
        self.game, self.seat = game, seat
        self.adapter = game.factory.adapter("domino")
        self.records.attach(game.transcript)
        game.observe(self, seat)

    def not_joined(self) -> None:
        """Seating failed: back to waiting."""
        if self.game is not None:
            self.game.unobserve(self)
        self.game, self.seat, self.adapter = None, None, None
        self.records.detach()
        if self.machine.allows(Input.UNSEATED):
            self.machine.move(Input.UNSEATED)
            self._idle_timer = self.factory.reactor.callLater(
                self.factory.idle_seconds, self._idle_timeout
            )

    def game_moved(self, game: Any) -> None:
        """The game runs on another hub now: close without a word, leaving no seat (a
        door that spliced this connection follows the game there)."""
        if self.state is State.PLAYING:
            self.seat = None
            self.machine.move(Input.REMOVE)
            self.close("the game moved to another hub")

    def game_event(self, game: Any, event: Any) -> None:
        """Turn a game event into lines; close when removed or when the game is over."""
        if self.state is not State.PLAYING:
            return
        if self._pending_ok:
            self.ok()  # our own command succeeded: OK before its consequences
        for line in self.adapter.render_event(event, self.seat):
            self.send(line)
        if self.adapter.removes(event, self.seat):
            reason = event.data.get("reason", "removed")
            self.machine.move(Input.REMOVE)
            game.unobserve(self)
            self.close(f"removed from the game ({reason})")
        elif event.kind == GAME_OVER:
            self.machine.move(Input.GAME_OVER)
            game.unobserve(self)
            self.close("game over")

    # -- transcript ------------------------------------------------------------------

    def _record(self, direction: str, text: str | bytes) -> None:
        self.records.record(direction, text)

    def _note(self, text: str) -> None:
        self.records.note(text)


@implementer(ILobbyListener)
class DominoFactory(ServerFactory):
    """Accepts domino clients, queues logged-in players and seats them in games.

    :param lobby: the hub's :class:`hub.play.lobby.Lobby` (its games, its changes).
    :param seating: the hub (:class:`hub.seatops.SeatingHub`): games are created and
        players seated only through it, as every front end does.
    :param reactor: for timers (``task.Clock``/``MemoryReactorClock`` in tests).
    :param options: ``domino_game``, ``domino_answer_seconds``, ``domino_max_invalid``,
        ``domino_login_seconds``, ``domino_idle_seconds`` (see :data:`DEFAULTS`).
    :param routes: the hub's :class:`hub.play.routes.Routes`: a login routed there (a
        tournament's entrant) plays the game it leads to, not one of the queue.
    """

    protocol = DominoProtocol  # type: ignore[assignment]
    log = Logger()
    #: the front end's metrics and refusal events (the hub sets its own)
    telemetry: FrontendTelemetry = DETACHED.frontend("domino")

    def __init__(
        self,
        lobby: Any,
        reactor: Any,
        options: dict[str, Any] | None = None,
        place: Callable[..., Any] | None = None,
        routes: Any = None,
        *,
        seating: SeatingHub,
    ) -> None:
        settings: dict[str, Any] = dict(DEFAULTS)
        settings.update({k: v for k, v in (options or {}).items() if k in DEFAULTS})
        self.lobby = lobby
        #: how its games are created and its players seated: the hub's one way
        self.seating = seating
        self.reactor = reactor
        self.options = dict(options or {})
        self._place = place
        #: the hub's routes (``hub.play.routes.Routes``): logins that lead to a game of theirs
        self.routes = routes
        self._game_type: str | None = settings["domino_game"]
        self.answer_seconds = float(settings["domino_answer_seconds"])
        self.max_invalid = int(settings["domino_max_invalid"])
        self.login_seconds = float(settings["domino_login_seconds"])
        self.idle_seconds = float(settings["domino_idle_seconds"])
        self.waiting: list[DominoProtocol] = []
        self._connections = 0
        self._match_call: Any = None
        lobby.add_listener(self)

    @property
    def game_type(self) -> str:
        """The game type the queue plays: the ``domino_game`` setting, else the first
        installed game type whose front ends include ``domino`` (``""``: none)."""
        if self._game_type:
            return str(self._game_type)
        for factory in self.lobby.registry.game_types():
            if "domino" in tuple(factory.frontends):
                return str(factory.name)
        return ""

    def follow(
        self, game_id: str | None, player: str | None, old_hub: str, frontend: str
    ) -> defer.Deferred[Any]:
        """Where a spliced client's game runs now (``None``: it did not move; the lobby's
        :attr:`~hub.play.lobby.Lobby.follow`, set in a cluster)."""
        follow = self.lobby.follow
        if follow is None:
            return defer.succeed(None)
        return follow(game_id, player, old_hub, frontend)

    def gathering(self) -> Place | None:
        """The hub where the cluster's players meet and its domino route, when that is
        another hub (``None``: here, or a single hub)."""
        if self._place is None:
            return None
        try:
            elsewhere = self._place(gather=True)
        except GameError:
            return None
        route = None if elsewhere is None else elsewhere.routes.get("domino")
        return None if route is None else (elsewhere.hub, route)

    def kept_seat(self, name: str) -> tuple[Any, int] | None:
        """The running game (one this front end hosts) resumed here whose network
        client seat waits for ``name`` to come back (:attr:`hub.play.game.GameInstance.awaiting`),
        and that seat; ``None``: none.  (Not a web player's seat: a Domino login
        proves nothing.)"""
        for game in self.lobby.kept_for(name):
            if game.state != RUNNING or "domino" not in tuple(game.factory.frontends):
                continue
            if game.id in self.lobby.sealed:
                continue
            for seat, player in game.awaiting.items():
                if player == name and game.seats[seat].kind == "client":
                    return game, seat
        return None

    def kept_elsewhere(self, name: str) -> Place | None:
        """The other hub of the cluster whose running game (one this front end hosts)
        keeps a seat for ``name``, and its domino route (the lobby's
        :attr:`~hub.play.lobby.Lobby.kept_seat`; ``None``: none, or a single hub).  A
        player whose hub stopped or handed its game over logs in again at any door:
        the hub that resumed the game seats it back (:meth:`kept_seat` there)."""
        kept = self.lobby.kept_seat
        return None if kept is None else kept(name, "domino")

    def playing(self, name: str) -> bool:
        """Whether ``name`` plays (seated, present) in a running game here that this
        front end hosts."""
        return any(
            game.state == RUNNING
            and "domino" in tuple(game.factory.frontends)
            and game.seat_of(name) is not None
            for game in self.lobby.listed()
        )

    def next_connection_id(self) -> str:
        """``d1``, ``d2``... for the transcripts."""
        self._connections += 1
        return f"d{self._connections}"

    def login_waiting(self, name: str) -> bool:
        """Whether a waiting player already uses ``name``."""
        return any(p.login == name for p in self.waiting)

    def enqueue(self, player: DominoProtocol) -> None:
        """A player logged in: queue and try to seat."""
        self.waiting.append(player)
        self.match()

    def dequeue(self, player: DominoProtocol) -> None:
        """A waiting player left."""
        if player in self.waiting:
            self.waiting.remove(player)

    def lobby_changed(self, change: str, game: Any) -> None:
        """A game that waits for players appeared or changed: maybe waiting players fit
        (checked a moment later, never from inside the lobby's own call; a running
        game's changes, its seats' or observers', do not make a look at every game)."""
        if (
            self.waiting
            and change != "removed"
            and game.state == WAITING
            and game.type == self.game_type
        ):
            if self._match_call is None or not self._match_call.active():
                self._match_call = self.reactor.callLater(0, self.match)

    def match(self) -> None:
        """Seat waiting players: open lobby games first (oldest first), then new games
        (created and seated through the hub, :attr:`seating`)."""
        defer.ensureDeferred(self._match()).addErrback(
            lambda failure: self.log.failure("domino: matching players failed", failure)
        )

    async def _match(self) -> None:
        for game in self.lobby.games(self.game_type):
            if not self.waiting:
                return
            if game.state != WAITING or "domino" not in tuple(game.factory.frontends):
                continue
            free = game.free_seats("client")
            if not free or len(free) > len(self.waiting) or game.free_seats("human") != free:
                continue  # seat players only where the game then starts at once
            for seat in free:
                player = self.waiting.pop(0)
                if not await self.seat(player, game, seat):
                    self.waiting.insert(0, player)
                    break
        while len(self.waiting) >= 4:
            players, self.waiting = self.waiting[:4], self.waiting[4:]
            try:
                game = await self.seating.create_game(
                    self.game_type,
                    seats=["open"] * 4,
                    options={"answer_seconds": self.answer_seconds},
                    creator="domino",
                )
            except GameError as e:
                self.waiting[:0] = players
                self.log.error(
                    "cannot create a {type} game: {reason}", type=self.game_type, reason=e.reason
                )
                return
            for index, player in enumerate(players):
                if not await self.seat(player, game, index):
                    self.waiting.insert(0, player)

    async def seat(self, player: DominoProtocol, game: Any, seat: int) -> bool:
        """Seat ``player`` at ``seat`` of ``game`` through the hub; ``False``: refused
        (back to waiting)."""
        player.joining(game, seat)
        try:
            await self.seating.take_seat(game, str(player.login), seat, kind="client")
        except GameError as e:
            self.log.warn(
                "cannot seat {login} in game {game}: {reason}",
                login=player.login,
                game=game.id,
                reason=e.reason,
            )
            player.not_joined()
            return False
        return True

    def stopFactory(self) -> None:
        """Stop listening to the lobby and cancel a pending match."""
        if self._match_call is not None and self._match_call.active():
            self._match_call.cancel()
        self.lobby.remove_listener(self)


def _routed_elsewhere(routing: defer.Deferred[Any] | None) -> Place | None:
    """The hub to pass a login through to when its route answered at once that
    another hub of the cluster routes it (:class:`hub.model.Elsewhere` with a Domino
    route: a tournament another hub runs), else ``None`` (the route is left as it
    was)."""
    if routing is None or not routing.called:
        return None
    found: list[Elsewhere] = []

    def keep(failure: Failure) -> Failure | None:
        error = failure.value
        if isinstance(error, Elsewhere) and error.routes.get("domino") is not None:
            found.append(error)
            return None
        return failure

    routing.addErrback(keep)
    if not found:
        return None
    return found[0].hub, found[0].routes["domino"]
