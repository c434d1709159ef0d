"""Game sessions relayed to the hub of the cluster that runs their game.

One XML connection carries a login, a lobby session and several game sessions, so
it is not spliced whole (as an MNM connection is, :mod:`hub.cluster.splice`): the
door keeps the client's connection, its lobby session and its session ids, and
relays each game session of a game another hub runs.

- ``game/join`` of such a game (``find_game`` raises :class:`RelayTo`) opens, or
  reuses, the door's connection to the owner's XML front end *for this client
  connection* (:class:`Relay`: one per client connection and owner hub), logged in as
  the client's account with a ticket (:mod:`hub.cluster.credential`), never its
  password.  The join is sent there; the owner's session id is mapped to a new
  session id of the door's, which the client gets.
- A request naming a relayed session (after the door's own decoding and rate limit)
  is sent to the owner with the owner's session id; the owner's answer comes back as
  the door's answer to it, with the client's session id.  The owner's state updates
  of that session go to the client the same way; its lobby updates are dropped (the
  door's lobby tells the client).  What the owner sends is what it sends that
  account: a seat's own hole cards, to that seat only.
- ``lobby/gamedetails`` and ``game/delete`` of such a game, and a ``game/create``
  placed on another hub, are asked of the owner over the same relay with the relay's
  lobby session (:meth:`Relays.ask`: the request rebuilt by the door from what it
  decoded, never the client's bytes); the owner's answer is the door's, with the
  client's lobby session id.
- ``game/part`` (answered) ends the relayed session; logging out or closing the
  client's connection closes the relay (the owner ends its sessions as for any
  closed connection); an owner that is too slow or sends what the door cannot read is
  dropped: its relayed sessions end with an ``updatedgamestate`` that fails and says
  why, and the request waiting is refused.
- **A game that moves** (issue 31: its hub drained, stopped, or dead and the game
  resumed elsewhere from its journal): the owner's pause ``paused: <MOVING>`` (passed
  on), then its end of the session, a request refused as sealed (``SEALED``), or the
  owner's connection closing, make the door follow the game (:meth:`Relays.follow`):
  it asks :mod:`hub.cluster.moves` where the game runs now (bounded by
  ``cluster_follow_seconds``), holding the session's requests meanwhile (at most
  ``xml_max_pending``), and joins it there again under the client's same session id
  (:meth:`Relay.rejoin`; at the door itself the session becomes its own,
  :meth:`.sessions.Sessions.adopt`); the held requests then go there.  A game that
  moved nowhere ends the session as before.

Bounds: connecting, the greeting and the login take at most
``cluster_connect_seconds`` (5 s); an answer at most ``cluster_relay_answer_seconds``
(30 s), else the relay is dropped; a frame from the owner at most ``xml_max_backlog``
bytes; at most ``xml_relay_max`` (1024) relays per door.  The owner's own limits
apply to the door's connection (its rate and per-address limits).  The door keeps no
transcript of the relayed frames (the owner's game transcript has them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from lxml import etree
from twisted.internet import defer, protocol
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver

from hub.cluster.splice import Route
from hub.cluster.splice import settings as splice_settings
from hub.model import Elsewhere, GameError
from hub.play.journal import MOVING
from hub.tls import ClientTLS, client_endpoint

from . import codec, encoding, events
from .errors import Refused
from .relay_documents import (
    game_state,
    head,
    refused,
    request_frame,
    sealed_refusal,
    with_session,
)
from .sessions import seat_back

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from hub.interfaces import GameLobby, IHub

    from .connection import Connection
    from .sessions import GameSession, Sessions


# -- what the relays use of the parts above them (they import this module) ------------


class _Backs(Protocol):
    """The resumes (:class:`.resume.Resumes`): a relayed session whose game came here
    follows it here."""

    def back(self, observer: GameSession, seat: int | None) -> None: ...


class RelaysHost(Protocol):
    """What the relays use of their front end (:class:`.server.XMLFrontend`)."""

    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def hub(self) -> IHub: ...
    @property
    def lobby(self) -> GameLobby: ...
    @property
    def sessions(self) -> Sessions: ...
    @property
    def resumes(self) -> _Backs: ...
    @property
    def max_frame(self) -> int: ...
    @property
    def max_pending(self) -> int: ...
    @property
    def max_backlog(self) -> int: ...
    def encode(self, root: etree._Element) -> bytes: ...
    def game_id(self, wire_id: int) -> str | None: ...
    def handle_frame(self, conn: Connection, frame: bytes) -> bytes | defer.Deferred[Any]: ...


class RelayTo(Refused):
    """The game runs on another hub that can be reached over XML (a relayed session).

    Handlers other than ``game/join`` answer it as the refusal it is.
    """

    def __init__(self, elsewhere: Any) -> None:
        super().__init__(elsewhere.code, f"{elsewhere.reason}; over XML, connect to that hub")
        self.elsewhere = elsewhere


@dataclass(eq=False)
class Relayed:
    """One relayed game session: the client's id and the owner's.

    :ivar game_id: the game's id (what :mod:`hub.cluster.moves` follows).
    :ivar moving: the owner said the game moves (its pause, or a refusal because it
        is sealed for its hand-over).
    :ivar held: while the door follows the game to its new hub, the client's requests
        of this session, sent there once it is joined again (``None``: not following).
    :ivar ending: what the client gets should the game not be found elsewhere (the
        owner's end of the session, with the client's id).
    """

    relay: Relay
    local: int
    remote: int
    wire_id: int
    game_id: str = ""
    moving: bool = False
    held: list[Held] | None = None
    ending: bytes | None = None


@dataclass(eq=False)
class Held:
    """A request of a relayed session held while the door follows its game."""

    frame: bytes
    part: bool
    done: defer.Deferred[bytes]


#: seconds between the questions where a followed game went, while not found yet
RETRY_SECONDS = 0.5
#: the description of a game's pause when its hub lets it go (:mod:`hub.play.resume`)
PAUSED_MOVING = f"paused: {MOVING}"


class _Wire(Int32StringReceiver):
    """The door's connection to the owner's XML front end."""

    def __init__(self, relay: Relay, max_length: int) -> None:
        self.relay = relay
        self.MAX_LENGTH = max_length

    def connectionMade(self) -> None:  # noqa: N802
        self.relay._made(self)

    def stringReceived(self, frame: bytes) -> None:  # noqa: N802
        self.relay._received(frame)

    def lengthLimitExceeded(self, length: int) -> None:  # noqa: N802
        self.relay._drop(f"the hub of that game sent a frame of {length} bytes")

    def connectionLost(self, reason: Any = protocol.connectionDone) -> None:  # noqa: N802
        self.relay._lost("the hub that runs that game closed the connection")


class Relay:
    """The door's one connection to an owner hub for one client connection."""

    log = Logger()

    def __init__(self, relays: Relays, conn: Connection, hub_id: str, route: Any) -> None:
        self.relays = relays
        self.conn = conn
        self.hub_id = hub_id
        self.route = route
        self.wire: _Wire | None = None
        self.lobby = 0  #: the owner's lobby session id
        self.sessions: dict[int, Relayed] = {}  #: the owner's session id → relayed
        self._pending: deque[tuple[defer.Deferred, Callable[[bytes], Any]]] = deque()
        self._ready: list[defer.Deferred] | None = []
        self._timer: Any = None
        self._connecting: defer.Deferred | None = None
        self.closed = False

    # -- connecting ---------------------------------------------------------------------

    def start(self) -> None:
        """Connect to the owner; the login follows its greeting."""
        host, port, tls = self.route
        reactor = self.relays.reactor
        seconds = self.relays.connect_seconds
        endpoint = client_endpoint(reactor, host, port, ClientTLS() if tls else None, seconds)
        self._arm(seconds, f"the hub that runs that game did not answer within {seconds:g} s")
        factory = protocol.Factory.forProtocol(lambda: _Wire(self, self.relays.max_length))
        self._connecting = endpoint.connect(factory)
        self._connecting.addErrback(self._not_connected)

    def ready(self) -> defer.Deferred:
        """Fires once logged in on the owner (fails with :class:`Refused` if not)."""
        if self.closed:
            return defer.fail(Refused(502, "the hub that runs that game cannot be reached"))
        if self._ready is None:
            return defer.succeed(self)
        d: defer.Deferred = defer.Deferred()
        self._ready.append(d)
        return d

    def _made(self, wire: _Wire) -> None:
        if self.closed:
            transport: Any = wire.transport
            transport.loseConnection()
            return
        self.wire = wire

    def _not_connected(self, failure: Any) -> None:
        name = type(failure.value).__name__
        self._lost(f"the hub that runs that game cannot be reached ({name})")

    def _greeted(self) -> None:
        account = self.conn.account
        if account is None:
            self._drop("logged out meanwhile")
            return
        ticket = self.relays.ticket(self.hub_id, account.name)
        login = codec.element("authentication")
        codec.sub(login, "login", accountname=account.name, password=ticket)
        self._send(request_frame(login, 0), self._logged_in, timed=False).addErrback(lambda _: None)

    def _logged_in(self, answer: bytes) -> bytes:
        root = etree.fromstring(answer, codec.hardened_parser())
        node = root.find("response/authentication/login")
        if node is None or node.get("success") != "true":
            self._lost("the hub that runs that game refused the door's login")
            return answer
        self.lobby = int(root.get("sessionid") or 0)
        self._cancel_timer()
        waiting, self._ready = self._ready or [], None
        for d in waiting:
            d.callback(self)
        return answer

    # -- requests -----------------------------------------------------------------------

    def join(
        self, r: events.JoinGame, local: Callable[[], int], game_id: str = ""
    ) -> defer.Deferred:
        """Send ``game/join`` of ``r``'s game; fires with the answer, with the
        client's new session id (``local()``) when it succeeded."""
        join = codec.element("game", gameid=r.gameid)
        codec.sub(join, "join")

        def answered(answer: bytes) -> bytes:
            root = etree.fromstring(answer, codec.hardened_parser())
            remote = int(root.get("sessionid") or 0)
            if root.find("response/game/join[@success='true']") is None or not remote:
                return with_session(answer, r.sessionid)
            relayed = Relayed(self, local(), remote, r.gameid, game_id)
            self.sessions[remote] = relayed
            self.relays.opened(relayed)
            return with_session(answer, relayed.local)

        return self._send(request_frame(join, self.lobby), answered)

    def rejoin(self, relayed: Relayed) -> defer.Deferred[str | None]:
        """Join ``relayed``'s game here again (its game moved to this relay's hub):
        the session is this relay's from the answer on, with the client's id; fires
        with the owner's description (``None``: refused)."""
        join = codec.element("game", gameid=relayed.wire_id)
        codec.sub(join, "join")

        def answered(answer: bytes) -> str | None:
            root = etree.fromstring(answer, codec.hardened_parser())
            remote = int(root.get("sessionid") or 0)
            node = root.find("response/game/join[@success='true']")
            if node is None or not remote:
                return None
            relayed.relay.sessions.pop(relayed.remote, None)
            relayed.relay, relayed.remote = self, remote
            self.sessions[remote] = relayed
            return node.findtext("description") or ""

        return self._send(request_frame(join, self.lobby), answered)

    def ask(self, body: etree._Element, sessionid: int) -> defer.Deferred:
        """Send a lobby-session request (``body``: its ``request`` child, made by the
        door from the decoded request); fires with the owner's answer, with the
        client's session id ``sessionid``."""
        return self._send(request_frame(body, self.lobby), lambda a: with_session(a, sessionid))

    def forward(self, relayed: Relayed, frame: bytes, part: bool) -> defer.Deferred:
        """Send the client's ``frame`` of ``relayed``'s session; fires with the answer."""
        root = etree.fromstring(frame, codec.hardened_parser())
        root.set("sessionid", str(relayed.remote))
        data = etree.tostring(root, xml_declaration=True, encoding="UTF-8")

        def answered(answer: bytes) -> bytes:
            root = etree.fromstring(answer, codec.hardened_parser())
            if part and root.find("response/game/part[@success='true']") is not None:
                self._end(relayed)
            return with_session(answer, relayed.local)

        return self._send(data, answered)

    def _send(
        self, data: bytes, answered: Callable[[bytes], Any], timed: bool = True
    ) -> defer.Deferred:
        if self.closed or self.wire is None:
            return defer.fail(Refused(502, "the hub that runs that game closed the connection"))
        if len(self._pending) >= self.relays.max_pending:
            return defer.fail(Refused(429, "too many requests waiting for the game's hub"))
        d: defer.Deferred = defer.Deferred()
        self._pending.append((d, answered))
        if timed and len(self._pending) == 1:
            seconds = self.relays.answer_seconds
            self._arm(seconds, f"the hub that runs that game did not answer within {seconds:g} s")
        self.wire.sendString(data)
        return d

    # -- from the owner -----------------------------------------------------------------

    def _received(self, frame: bytes) -> None:
        if self.closed:
            return
        try:
            kind, sid, root = head(frame)
        except (etree.Error, ValueError, IndexError):
            self._drop("the hub of that game sent a frame that is not XML")
            return
        if kind == "info":
            if self._ready is not None and self.lobby == 0 and not self._pending:
                self._greeted()
        elif kind == "response":
            if not self._pending:
                return  # an answer to nothing of ours (the owner refusing raw bytes)
            d, answered = self._pending.popleft()
            self._cancel_timer()
            if self._pending:
                seconds = self.relays.answer_seconds
                self._arm(
                    seconds, f"the hub that runs that game did not answer within {seconds:g} s"
                )
            try:
                answer = answered(frame)
            except Exception:  # an answer we cannot read: refuse, never leave it waiting
                self.log.failure("xml {conn}: unreadable answer from hub {hub}",
                                 conn=self.conn.conn_id, hub=self.hub_id)  # fmt: skip
                d.errback(Refused(502, "the hub that runs that game sent an unreadable answer"))
                self._drop("the hub that runs that game sent an unreadable answer")
                return
            d.callback(answer)
        elif kind == "stateupdate":
            relayed = self.sessions.get(sid)
            if relayed is None:  # the owner's lobby updates: the door's lobby tells
                return
            state = game_state(root)
            if state is not None and state[1] == PAUSED_MOVING:
                relayed.moving = True  # the client sees the pause; the door follows
            elif state is not None and not state[0] and relayed.moving:
                # the owner ended the session of a game it let go: follow the game
                self.sessions.pop(sid, None)
                relayed.ending = with_session(frame, relayed.local)
                self.relays.follow(relayed)
                return
            self.conn.send_update(with_session(frame, relayed.local))

    # -- the end ------------------------------------------------------------------------

    def _end(self, relayed: Relayed) -> None:
        self.sessions.pop(relayed.remote, None)
        self.relays.ended(relayed)

    def close(self) -> None:
        """The client logged out or went: close the relay (the owner ends its sessions)."""
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        for relayed in list(self.sessions.values()):
            self._end(relayed)
        self._fail_pending("the connection closed")
        if self.wire is not None and self.wire.transport is not None:
            self.wire.transport.loseConnection()
        elif self._connecting is not None:
            self._connecting.cancel()
        self.relays.forget(self)

    def _drop(self, reason: str) -> None:
        transport: Any = None if self.wire is None else self.wire.transport
        if transport is not None:
            transport.abortConnection()
        self._lost(reason, follow=False)

    def _lost(self, reason: str, follow: bool = True) -> None:
        """The owner's side is gone (or refused): tell the client, once.  When the
        owner closed (it stopped, or died), each session follows its game
        (:meth:`Relays.follow`): the client is told only if it moved nowhere."""
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        self.log.info(
            "xml {conn}: relay to hub {hub} ended: {reason}",
            conn=self.conn.conn_id, hub=self.hub_id, reason=reason,
        )  # fmt: skip
        if self.wire is not None and self.wire.transport is not None:
            self.wire.transport.loseConnection()
        elif self._connecting is not None and not self._connecting.called:
            self._connecting.cancel()
        for relayed in list(self.sessions.values()):
            doc = encoding.build_game_state(
                relayed.wire_id, [], relayed.local, description=reason, success=False
            )
            notice = self.relays.frontend.encode(doc)
            if follow and relayed.game_id and not self.conn.closing:
                self.sessions.pop(relayed.remote, None)
                relayed.ending = relayed.ending or notice
                self.relays.follow(relayed)
                continue
            self._end(relayed)
            if not self.conn.closing:
                self.conn.send_update(notice)
        self._fail_pending(reason)
        self.relays.forget(self)

    def _fail_pending(self, reason: str) -> None:
        waiting, self._ready = self._ready or [], None
        pending, self._pending = self._pending, deque()
        error = Refused(502, reason)
        for d in waiting:
            d.errback(error)
        for d, _ in pending:
            d.errback(error)

    def _arm(self, seconds: float, reason: str) -> None:
        self._cancel_timer()
        self._timer = self.relays.reactor.callLater(seconds, self._too_slow, reason)

    def _too_slow(self, reason: str) -> None:
        self._timer = None
        self._drop(reason)

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None


class Relays:
    """Every relay of one XML front end, and its relayed sessions by the client's id."""

    log = Logger()

    def __init__(self, frontend: RelaysHost) -> None:
        self.frontend = frontend
        self.reactor = frontend.reactor
        options = frontend.hub.options
        conf = splice_settings(options)
        self.connect_seconds = float(conf["cluster_connect_seconds"])
        self.answer_seconds = float(options.get("cluster_relay_answer_seconds", 30.0))
        #: how long a relayed session's game is looked for once its hub let it go
        self.follow_seconds = float(options.get("cluster_follow_seconds", 20.0))
        self.max_relays = int(options.get("xml_relay_max", 1024))
        self.max_length = max(int(frontend.max_backlog), int(frontend.max_frame))
        self.max_pending = int(frontend.max_pending)
        self._relays: dict[tuple[int, str], Relay] = {}
        self.by_local: dict[int, Relayed] = {}
        #: the client's session id → a relayed session whose game the door follows
        self.following: dict[int, Relayed] = {}

    def ticket(self, hub_id: str, name: str) -> str:
        """A login for ``name`` on ``hub_id`` (the cluster's)."""
        cluster = self.frontend.hub.cluster
        if cluster is None:  # (a single hub relays nothing)
            raise Refused(503, "this hub is not in a cluster")
        return cluster.ticket(hub_id, name)

    def session(self, conn: Connection, sessionid: int) -> Relayed | None:
        """The relayed session ``sessionid`` of ``conn`` (``None``: not one)."""
        relayed = self.by_local.get(sessionid)
        return relayed if relayed is not None and relayed.relay.conn is conn else None

    def _relay(self, conn: Connection, elsewhere: Any) -> Relay:
        """The open relay of ``conn`` to the hub ``elsewhere`` names (made now if none)."""
        if "xml" not in elsewhere.routes:
            raise Refused(409, f"{elsewhere.reason}; it has no XML front end to ask")
        key = (id(conn), str(elsewhere.hub))
        relay = self._relays.get(key)
        if relay is None or relay.closed:
            if len(self._relays) >= self.max_relays:
                raise Refused(503, "too many games relayed to other hubs; try again later")
            relay = Relay(self, conn, str(elsewhere.hub), elsewhere.routes["xml"])
            self._relays[key] = relay
            relay.start()
        return relay

    def join(self, conn: Connection, r: events.JoinGame, elsewhere: Any) -> defer.Deferred:
        """``game/join`` of a game that ``elsewhere`` names: relayed to its hub."""
        if any(s.wire_id == r.gameid and s.relay.conn is conn for s in self.by_local.values()):
            raise Refused(409, "you have joined this game already")
        relay = self._relay(conn, elsewhere)

        def local() -> int:
            return self.frontend.sessions.open_relayed(conn)

        game_id = self.frontend.game_id(r.gameid) or ""
        return relay.ready().addCallback(lambda _: relay.join(r, local, game_id))

    def ask(
        self, conn: Connection, elsewhere: Any, body: etree._Element, sessionid: int
    ) -> defer.Deferred:
        """A lobby-session request about a game of the hub ``elsewhere`` names (its
        details, its deletion, a creation placed there): asked of that hub over
        ``conn``'s relay, as the client's account; fires with the owner's answer."""
        relay = self._relay(conn, elsewhere)
        return relay.ready().addCallback(lambda _: relay.ask(body, sessionid))

    def forward(self, relayed: Relayed, request: events.Request, frame: bytes) -> defer.Deferred:
        """A request of a relayed session, to its hub; fires with the answer.  Held
        (at most ``xml_max_pending``) while the door follows the game, as is one the
        owner refused as moving or left unanswered: the new hub gets it."""
        part = isinstance(request, events.PartGame)
        if relayed.held is not None:
            return self._hold(relayed, frame, part)

        def answered(answer: bytes) -> bytes | defer.Deferred[bytes]:
            if relayed.local not in self.by_local:
                return answer
            if sealed_refusal(answer):
                relayed.moving = True
                held = self._hold(relayed, frame, part)
                self.follow(relayed)
                return held
            if relayed.local in self.following and refused(answer):
                return self._hold(relayed, frame, part)
            return answer

        def unanswered(failure: Any) -> Any:
            if failure.check(Refused) and relayed.local in self.following:
                return self._hold(relayed, frame, part)
            return failure

        d = relayed.relay.forward(relayed, frame, part)
        return d.addCallbacks(answered, unanswered)

    def _hold(self, relayed: Relayed, frame: bytes, part: bool) -> defer.Deferred[bytes]:
        held = relayed.held if relayed.held is not None else []
        if len(held) >= self.max_pending:
            return defer.fail(Refused(429, "too many requests waiting for the game's hub"))
        relayed.held = held
        done: defer.Deferred[bytes] = defer.Deferred()
        held.append(Held(frame, part, done))
        return done

    def opened(self, relayed: Relayed) -> None:
        self.by_local[relayed.local] = relayed

    def ended(self, relayed: Relayed) -> None:
        self.by_local.pop(relayed.local, None)
        self.following.pop(relayed.local, None)
        self.frontend.sessions.end_game(relayed.local)
        held, relayed.held = relayed.held or [], None
        for request in held:
            request.done.errback(Refused(502, "the game's session ended"))

    # -- following a game that moves ---------------------------------------------------------

    def follow(self, relayed: Relayed, old_hub: str | None = None) -> None:
        """The owner (``old_hub``: the relay's) let ``relayed``'s game go: ask where it
        runs now (:mod:`hub.cluster.moves`, at most ``cluster_follow_seconds``),
        holding the session's requests meanwhile, and join it there again with the
        client's session id (here: :meth:`_here`).  Moved nowhere (it ended, was
        aborted, or the wait ran out): the session ends as before."""
        if relayed.local in self.following or relayed.local not in self.by_local:
            return
        if relayed.held is None:
            relayed.held = []
        old_hub = old_hub or relayed.relay.hub_id
        self.following[relayed.local] = relayed
        self.log.info(
            "xml {conn}: following game {game} from hub {hub}",
            conn=relayed.relay.conn.conn_id, game=relayed.game_id, hub=old_hub,
        )  # fmt: skip
        self._ask(relayed, old_hub, float(self.reactor.seconds()) + self.follow_seconds)

    def _ask(self, relayed: Relayed, old_hub: str, deadline: float) -> None:
        """Ask where the game went (the directory too, should this hub's view lack
        it), again while before ``deadline``: a view that lists the game as aborted,
        its hub gone before the notice of its hand-over came, learns better soon."""
        if self.following.get(relayed.local) is not relayed:
            return
        lobby = self.frontend.lobby
        where: Callable[..., defer.Deferred[Any]] | None = lobby.follow
        if where is None or not relayed.game_id:
            d: defer.Deferred[Any] = defer.succeed(None)
        else:
            d = where(relayed.game_id, None, old_hub, "xml")
            if lobby.look_up is not None:  # the directory itself, should the view lack it
                lobby.look_up(relayed.game_id).addErrback(lambda _: None)
        d.addCallback(self._moved, relayed, old_hub, deadline)
        d.addErrback(self._not_followed, relayed)

    def _moved(
        self, place: tuple[str, Route] | None, relayed: Relayed, old_hub: str, deadline: float
    ) -> Any:
        conn = relayed.relay.conn
        if self.following.get(relayed.local) is not relayed or conn.closing:
            return None
        if conn.account is None:
            return self._unfollowed(relayed, "logged out meanwhile")
        try:
            game = self.frontend.lobby.get(relayed.game_id)
        except GameError:  # not here: on the hub the directory names, if any
            game = None
        if game is not None:  # (on the next turn: it was told while the game goes live)
            here = relayed.relay.hub_id if place is None else place[0]
            self.reactor.callLater(0, self._here, relayed, game, here)
            return None
        if place is None:  # (or the game ended on the hub it moved to: its end is told there)
            place = self._ended_elsewhere(relayed, old_hub)
        if place is None:
            if float(self.reactor.seconds()) + RETRY_SECONDS < deadline:
                self.reactor.callLater(RETRY_SECONDS, self._ask, relayed, old_hub, deadline)
                return None
            return self._unfollowed(relayed, "the game moved nowhere")
        hub_id, route = place
        try:
            relay = self._relay(
                conn, Elsewhere(f"game runs on hub {hub_id}", hub_id, {}, {"xml": route})
            )
        except Refused as e:
            return self._unfollowed(relayed, e.reason)
        d = relay.ready().addCallback(lambda _: relay.rejoin(relayed))
        d.addCallback(self._rejoined, relayed)
        d.addErrback(self._not_followed, relayed)
        return d

    def _ended_elsewhere(self, relayed: Relayed, old_hub: str) -> tuple[str, Route] | None:
        """Where the game ended, when it ended on another hub than ``old_hub`` (it moved
        and ended there before this session followed it): joined there again, the
        session is told the end as a client that stayed was."""
        try:
            self.frontend.lobby.get(relayed.game_id)
        except Elsewhere as e:
            route = e.routes.get("xml")
            if e.hub != old_hub and route is not None:
                return e.hub, route
        except GameError:
            pass
        return None

    def _rejoined(self, description: str | None, relayed: Relayed) -> None:
        if self.following.get(relayed.local) is not relayed:
            return
        if description is None:
            self._unfollowed(relayed, "the game's new hub refused the join")
            return
        del self.following[relayed.local]
        relayed.moving, relayed.ending = False, None
        relay = relayed.relay
        self.log.info(
            "xml {conn}: game {game} followed to hub {hub} ({what})",
            conn=relay.conn.conn_id, game=relayed.game_id, hub=relay.hub_id, what=description,
        )  # fmt: skip
        held, relayed.held = relayed.held or [], None
        for request in held:
            relay.forward(relayed, request.frame, request.part).chainDeferred(request.done)

    def _here(self, relayed: Relayed, game: Any, here: str) -> None:
        """The game moved to this hub (``here``): the session becomes one of its own
        (the same id), back at the seat the account holds, its full state sent; the
        requests held are answered here.  Should this hub already let the game go
        again (it is drained too), the door follows it on from here."""
        conn = relayed.relay.conn
        if self.following.get(relayed.local) is not relayed or conn.closing:
            return
        try:
            seat = seat_back(game, conn.account.name) if conn.account is not None else None
        except GameError:  # sealed again: it moves on
            del self.following[relayed.local]
            self.follow(relayed, here)
            return
        observer = self.frontend.sessions.adopt(relayed.local, game)
        if observer is None:
            self._unfollowed(relayed, "the game cannot be played over XML here")
            return
        del self.following[relayed.local]
        self.by_local.pop(relayed.local, None)
        relayed.relay.sessions.pop(relayed.remote, None)
        self.frontend.resumes.back(observer, seat)
        self.log.info(
            "xml {conn}: game {game} followed to this hub", conn=conn.conn_id, game=game.id
        )
        held, relayed.held = relayed.held or [], None
        for request in held:
            answer = defer.maybeDeferred(self.frontend.handle_frame, conn, request.frame)
            answer.addCallbacks(request.done.callback, request.done.errback)

    def _not_followed(self, failure: Any, relayed: Relayed) -> None:
        error = failure.value
        reason = error.reason if isinstance(error, Refused) else type(error).__name__
        if not isinstance(error, Refused):
            self.log.failure("xml: following a relayed game failed", failure)
        self._unfollowed(relayed, reason)

    def _unfollowed(self, relayed: Relayed, reason: str) -> None:
        """The game was not found elsewhere: the session ends as it would have (the
        owner's end of it, or why), the requests held refused."""
        if self.following.pop(relayed.local, None) is not relayed:
            return
        conn = relayed.relay.conn
        self.log.info(
            "xml {conn}: game {game} not followed: {reason}",
            conn=conn.conn_id, game=relayed.game_id, reason=reason,
        )  # fmt: skip
        relay = relayed.relay
        if not relay.closed and relay.sessions.get(relayed.remote) is relayed:
            # (a refusal because it was moving, and it moved nowhere: the session goes on)
            held, relayed.held = relayed.held or [], None
            for request in held:
                relay.forward(relayed, request.frame, request.part).chainDeferred(request.done)
            return
        relay.sessions.pop(relayed.remote, None)
        ending = relayed.ending
        self.ended(relayed)
        if not conn.closing:
            if ending is None:
                doc = encoding.build_game_state(
                    relayed.wire_id, [], relayed.local, description=reason, success=False
                )
                ending = self.frontend.encode(doc)
            conn.send_update(ending)

    def forget(self, relay: Relay) -> None:
        key = (id(relay.conn), relay.hub_id)
        if self._relays.get(key) is relay:
            del self._relays[key]

    def drop(self, conn: Connection) -> None:
        """``conn`` logged out or went: close its relays (and stop following)."""
        for key, relay in list(self._relays.items()):
            if key[0] == id(conn) and relay.conn is conn:
                relay.close()
        for relayed in list(self.following.values()):
            if relayed.relay.conn is conn:
                relayed.relay.sessions.pop(relayed.remote, None)
                self.ended(relayed)
