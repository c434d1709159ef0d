"""The XML front end: the protocol factory, the dispatch table, game ids, transcripts.

:class:`XMLFrontend` (one per hub) builds a protocol for each connection
(:class:`.protocol.XMLProtocol`, around the connection's session
:class:`.connection.Connection`).  Each frame the session hands it is decoded into a
request event (:mod:`.decoding`), checked against the connection's state
(:func:`.states.check`), and answered by the handler the dispatch table names for its
kind (:data:`.handlers.HANDLERS`, which get the narrow :class:`.context.HandlerContext`); the response is encoded
(:mod:`.encoding`) and recorded in the transcript.  Game events reach the
connections through their game sessions (:mod:`.sessions`), lobby and chat changes
through :meth:`XMLFrontend.lobby_changed` and :meth:`XMLFrontend.chat_line`.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any

from lxml import etree
from twisted.internet import defer, protocol
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections.limits import creation_limits
from hub.connections.transcript import escaped, record_tag
from hub.interfaces import IChatListener, IConnectionControl, IHub, ILobbyListener
from hub.model import Elsewhere, GameError
from hub.ops.telemetry import DETACHED, FrontendTelemetry, scrub
from hub.settings import boolean

from . import decoding, encoding, events, states
from .adapters import adapter_for
from .connection import Connection
from .errors import ProtocolError, Refused
from .handlers import HANDLERS, chat, lobby
from .payload import wire_game_id
from .protocol import Outbox, XMLProtocol
from .relay import Relayed, Relays, RelayTo
from .resume import Resumes
from .sessions import Sessions
from .shared import Shared

#: the lobby transcript of this front end (``lobby-xml``; admin only)
LOBBY_TRANSCRIPT = "xml"
#: wire ids of games no longer in the lobby remembered for ``lobby/history``
KNOWN_IDS = 10_000
#: game lists (by their rows and filters) and constant answers kept serialised
LISTINGS = 64
ANSWERS = 1024
#: long records (game lists) kept escaped for the transcripts, and from what length
ESCAPED = 64
ESCAPED_FROM = 512


def _deferred(answer: Any) -> Any:
    """A handler's answer, a coroutine made a Deferred (a callback's result)."""
    return defer.ensureDeferred(answer) if isinstance(answer, Coroutine) else answer


@implementer(ILobbyListener, IChatListener, IConnectionControl)
class XMLFrontend(protocol.ServerFactory):
    """The XML front end of one hub.

    :param hub: the root service (``lobby``, ``registry``, ``store``, ``transcripts``,
        ``reactor``, ``options``, ``bound_ports``).

    Options (``hub.options``): ``xml_max_frame`` (65536), ``xml_idle_timeout`` (600 s),
    ``xml_frame_deadline`` (30 s), ``xml_max_per_address`` (16), ``xml_max_connections``
    (4096), ``xml_max_pending`` (32),
    ``xml_close_grace`` (2 s: how long a refused connection stays half-closed),
    ``xml_rate`` / ``xml_burst`` (20 requests a second, bursts of 60),
    ``xml_max_backlog`` (1 MiB written to a client that does not read).
    """

    log = Logger()
    protocol = XMLProtocol
    #: the front end's metrics and refusal events (the hub sets its own)
    telemetry: FrontendTelemetry = DETACHED.frontend("xml")

    # -- listeners ------------------------------------------------------------------------

    #: the lobby's changes and the hub's chat lines, to the connections
    lobby_changed = lobby.lobby_changed
    chat_line = chat.chat_line

    def __init__(self, hub: IHub) -> None:
        self.hub = hub
        self.reactor = hub.reactor
        self.lobby = hub.lobby
        options = hub.options
        self.max_frame = int(options.get("xml_max_frame", 65536))
        self.idle_timeout = float(options.get("xml_idle_timeout", 600))
        self.frame_deadline = float(options.get("xml_frame_deadline", 30))
        self.max_per_address = int(options.get("xml_max_per_address", 16))
        self.max_connections = int(options.get("xml_max_connections", 4096))
        self.max_pending = int(options.get("xml_max_pending", 32))
        self.close_grace = float(options.get("xml_close_grace", 2))
        self.rate = float(options.get("xml_rate", 20))
        self.burst = float(options.get("xml_burst", 60))
        self.max_backlog = int(options.get("xml_max_backlog", 1 << 20))
        self.server_name = str(options.get("server_name", "gamehub"))
        #: validate every document we send against message.xsd (tests; a cost per frame)
        self.check_output = boolean(options.get("xml_check_output", False))
        self.create_limits = creation_limits(options, self.reactor)
        self.connections: set[Connection] = set()
        #: frames held while a client's chunk of requests is answered (one write each)
        self.outbox = Outbox(self.reactor.callLater)
        self.per_address: Counter[str] = Counter()
        self.sessions = Sessions(self)
        #: wire id → game id: the lobby's games, and the last KNOWN_IDS seen in history
        self._wire: dict[int, str] = {}
        self._known: OrderedDict[int, str] = OrderedDict()
        self._listening = False
        #: game lists and constant answers, serialised once for every session
        self.listings = Shared(self.encode, LISTINGS)
        self.answers = Shared(self.encode, ANSWERS)
        #: long records → their escaped form (:meth:`_escaped`)
        self._escapes: dict[bytes, bytes] = {}
        #: game id → its lobby row (:func:`.handlers.lobby.row`), until it changes
        self.rows: dict[str, encoding.GameRow] = {}
        #: (game type, variant) → a game list's rows and its key in :attr:`listings`,
        #: until the lobby changes (:func:`.handlers.lobby.game_list`)
        self.lists: dict[
            tuple[str | None, str | None], tuple[tuple[encoding.GameRow, ...], tuple[str, int]]
        ] = {}
        #: game sessions relayed to the other hubs of a cluster
        self.relays = Relays(self)
        #: resume tokens, and the seats of lost connections (:mod:`.resume`)
        self.resumes = Resumes(self)

    @property
    def following(self) -> bool:
        """Whether the front end hears of every change to the lobby now."""
        return self._listening

    def encode(self, root: etree._Element) -> bytes:
        """One of our documents as bytes: validated first when ``xml_check_output``."""
        return encoding.encode(root) if self.check_output else encoding.serialise(root)

    def encode_chat(self, gameid: int, sender: str, text: str, sessionid: int, type: int) -> bytes:
        """A chat line's ``stateupdate`` (:func:`.encoding.build_chat`) as bytes: made
        without lxml (:func:`.encoding.chat_document`, the same bytes) unless
        ``xml_check_output`` validates what we send."""
        if self.check_output:
            return encoding.encode(encoding.build_chat(gameid, sender, text, sessionid, type))
        return encoding.chat_document(gameid, sender, text, sessionid, type)

    # -- factory ------------------------------------------------------------------------

    def startFactory(self) -> None:
        """Follow the lobby and the chat while listening."""
        if not self._listening:
            self.hub.follow_games(self)
            self.hub.chat.add_listener(self)
            self._listening = True
            for game in self.hub.listed_games():  # made before (resumed): by wire id too
                self.wire_id(game)
            self.rows.clear()
            self.lists.clear()
        self.resumes.start()

    def stopFactory(self) -> None:
        """Tell every client the hub is going away; stop following the lobby."""
        self.outbox.release()  # what waits for the end of the turn goes first
        notice = encoding.encode(encoding.build_notice("the hub is shutting down"))
        for conn in list(self.connections):
            if not conn.closing:
                conn.send_update(notice)
        self.resumes.stop()
        if self._listening:
            self.hub.unfollow_games(self)
            self.hub.chat.remove_listener(self)
            self._listening = False
            self.rows.clear()
            self.lists.clear()

    def buildProtocol(self, addr: Any) -> XMLProtocol:
        """A protocol for a new connection (one that will refuse itself above the cap)."""
        peer = str(getattr(addr, "host", addr))  # foreign: a UNIX address has no host
        cluster = self.hub.cluster
        relay = cluster is not None and cluster.is_hub_address(peer)  # another hub's relays
        over = (self.per_address[peer] >= self.max_per_address and not relay) or len(
            self.connections
        ) >= self.max_connections
        proto = self.protocol(self, peer, over_cap=over)
        proto.factory = self
        self.per_address[peer] += 1
        self.connections.add(proto.connection)
        return proto

    def kick(self, player: str, reason: str) -> int:
        """(:class:`hub.interfaces.IConnectionControl`) refuse and close every
        connection logged in as ``player``."""
        kicked = [
            c
            for c in self.connections
            if c.account is not None and c.account.name == player and not c.closing
        ]
        for conn in kicked:
            self.resumes.revoke(conn)  # a kicked player resumes nothing
            conn.wire.fail(403, reason, notice=True)
        return len(kicked)

    def connection_lost(self, conn: Connection) -> None:
        """End the connection's sessions and forget it."""
        if conn in self.connections:
            self.connections.discard(conn)
            self.per_address[conn.peer] -= 1
            if self.per_address[conn.peer] <= 0:
                del self.per_address[conn.peer]
        games = [observer.game for observer in conn.game_sessions.values()]
        if not self.resumes.lost(conn):  # else its seats wait for a resume
            self.sessions.end_all(conn)
        for transcript in {id(t): t for t in map(self._transcript, [None, *games])}.values():
            if transcript is not None:
                transcript.end_connection(conn.conn_id)

    def greeting(self) -> etree._Element:
        """The ``info`` message every connection gets first."""
        ports = dict(self.hub.bound_ports)
        root = encoding.build_info(self.server_name, ports)
        server = root.find("info/parameters/server")
        server.set("version", str(self.hub.version))
        return root

    # -- game ids -------------------------------------------------------------------------

    def wire_id(self, game: Any) -> int:
        """The ``xs:long`` id of ``game`` on this wire."""
        wid = wire_game_id(game.id)
        self._wire[wid] = game.id
        return wid

    def _remember(self, wire_id: int, game_id: str) -> None:
        """Keep the wire id of a game seen in history (the last :data:`KNOWN_IDS`)."""
        self._known[wire_id] = game_id
        self._known.move_to_end(wire_id)
        while len(self._known) > KNOWN_IDS:
            self._known.popitem(last=False)

    def seen_in_history(self, game_id: str) -> int:
        """The wire id of a game a history lists (remembered if not in the lobby)."""
        wid = wire_game_id(game_id)
        if wid not in self._wire:
            self._remember(wid, game_id)
        return wid

    def forget_game(self, game: Any) -> None:
        """``game`` left the list: its wire id is remembered for history only (not when
        it is the other hub's row of a game that moved here: listed here still)."""
        if game.id in self.lobby:  # (a game the lobby removes is gone from it first)
            return
        wid = wire_game_id(game.id)
        if self._wire.pop(wid, None) is not None:
            self._remember(wid, game.id)

    def game_id(self, wire_id: int) -> str | None:
        """The lobby id of a game listed here (in the lobby or in a history)."""
        return self._wire.get(wire_id) or self._known.get(wire_id)

    def find_game(self, wire_id: int) -> Any:
        """The lobby game with wire id ``wire_id``; 404 if none, 400 if not hosted here
        (every listed game's wire id is known here: the lobby's changes give it)."""
        game_id = self._wire.get(wire_id)
        if game_id is None:
            raise Refused(404, f"no game with id {wire_id}")
        try:
            game = self.lobby.get(game_id)
        except Elsewhere as e:  # another hub of the cluster runs it: relayed on join
            if "xml" in e.routes and self.hub.cluster is not None:
                raise RelayTo(e) from None
            raise Refused(e.code, f"{e.reason}; over XML, connect to that hub") from None
        except GameError:
            raise Refused(404, f"no game with id {wire_id}") from None
        if adapter_for(game.factory) is None:
            raise Refused(400, f"game {wire_id} ({game.type}) cannot be played over XML")
        return game

    def locate(self, wire_id: int) -> Any:
        """As :meth:`find_game`; but a game this hub has not heard of (another hub of
        the cluster made it a moment ago) is looked up in the cluster's directory
        first: then a Deferred of the game (or of the refusal)."""
        try:
            return self.find_game(wire_id)
        except RelayTo:
            raise
        except Refused as e:
            cluster = self.hub.cluster
            if e.code != 404 or cluster is None or self.game_id(wire_id) is not None:
                raise
        looked = cluster.look_up_recent(f"xml:{wire_id}", lambda g: wire_game_id(g.id) == wire_id)

        async def found() -> Any:
            remote = await looked
            if remote is not None:  # (its directory's row: known by its wire id from now)
                self.wire_id(remote)
            return self.find_game(wire_id)

        return defer.ensureDeferred(found())

    def with_game(
        self, wire_id: int, then: Callable[[Any], Any], elsewhere: Callable[[RelayTo], Any]
    ) -> Any:
        """``then(game)`` for the game ``wire_id`` names, ``elsewhere(relay_to)`` for a
        game of another hub that is asked there: at once when it is known, else once
        :meth:`locate` looked it up (a Deferred)."""
        try:
            found = self.locate(wire_id)
        except RelayTo as e:
            return elsewhere(e)
        if not isinstance(found, defer.Deferred):
            return then(found)

        def relayed(failure: Any) -> Any:
            failure.trap(RelayTo)
            return defer.maybeDeferred(elsewhere, failure.value)

        return found.addCallbacks(lambda game: _deferred(then(game)), relayed)

    # -- transcripts ----------------------------------------------------------------------

    def _transcript(self, game: Any) -> Any:
        if game is not None:
            return game.transcript
        transcripts = self.hub.transcripts
        if transcripts is None:
            return None
        try:
            return transcripts.for_lobby(LOBBY_TRANSCRIPT)
        except Exception:
            return None

    def record(
        self,
        conn: Connection,
        direction: str,
        frame: bytes,
        game: Any = None,
        seat: int | None = None,
    ) -> None:
        """Write one frame to the game's transcript (or the XML lobby transcript).

        :param frame: what the transcript may keep: :attr:`.events.Request.record` of
            a request, :func:`.encoding.outgoing_record` of what we send.
        :param seat: the frame is private to this seat.
        """
        transcript = self._transcript(game)
        if transcript is None:
            return
        owner = conn.account.name if conn.account is not None else None
        try:
            if seat is not None:
                transcript.record(conn.conn_id, direction, frame, owner=owner, seat=seat)
                return
            # a public record: with the tag the connection keeps until it logs in or out
            if direction == "out":
                tag = conn.lobby_tag or self._lobby_tag(conn)
            elif conn.in_tag is not None:
                tag = conn.in_tag
            else:
                tag = conn.in_tag = record_tag(conn.conn_id, direction, owner)
            transcript.tagged(conn.conn_id, tag, self._escaped(frame))
        except Exception:
            self.log.failure("xml: transcript write failed")

    @staticmethod
    def _lobby_tag(conn: Connection) -> bytes:
        """The tag of what ``conn`` is sent in the lobby transcript, kept on the
        connection until it logs in or out."""
        owner = None if conn.account is None else conn.account.name
        tag = conn.lobby_tag = record_tag(conn.conn_id, "out", owner)
        return tag

    def _escaped(self, frame: bytes) -> bytes:
        """:func:`~hub.connections.transcript.escaped` of a record; a long one (a game
        list) is escaped once while it is among the last :data:`ESCAPED` of them."""
        if len(frame) < ESCAPED_FROM:
            return escaped(frame)
        memo = self._escapes
        text = memo.get(frame)
        if text is None:
            text = escaped(frame)
            if len(memo) >= ESCAPED:
                del memo[next(iter(memo))]
            memo[frame] = text
        return text

    def send_game(
        self, conn: Connection, game: Any, document: bytes, seat: int | None = None
    ) -> None:
        """Send a state update of ``game`` and record it (private to ``seat`` if given)."""
        self.record(conn, "out", encoding.outgoing_record(document), game, seat)
        conn.send_update(document)

    def send_lobby(self, audience: list[Connection], shared: bytes) -> None:
        """Send a document serialised once for many (with session id 1: a lobby
        update, a lobby chat line) to each connection of ``audience`` with its lobby
        session id, recorded once in the XML lobby transcript for all of them
        (:meth:`~hub.connections.transcript.Transcript.broadcast`)."""
        transcript = self._transcript(None)
        if transcript is not None:
            try:
                transcript.broadcast(len(audience), self._escaped(encoding.outgoing_record(shared)))
            except Exception:
                self.log.failure("xml: transcript write failed")
        head, tail = encoding.session_parts(shared)
        now, size = self.reactor.seconds(), len(head) + len(tail)
        for conn in audience:
            conn.send_lobby_copy(head, tail, size, now)

    # -- requests -------------------------------------------------------------------------

    def handle_frame(self, conn: Connection, frame: bytes) -> bytes | defer.Deferred:
        """Answer one frame: the response document (bytes), or a Deferred firing with it
        when the handler waits (the store); a request answered at once costs no Deferred.

        Only frames within the connection's rate limit are recorded (the 429 answers
        to the others are not), and only in their secret-free form.
        """
        try:
            request = decoding.decode(frame, max_size=self.max_frame)
        except ProtocolError as e:
            if not conn.take_token():
                self.telemetry.refused("429", "too many requests", conn.conn_id, peer=conn.peer)
                return self.encode(encoding.build_error(429, "too many requests"))
            self.record(conn, "in", e.record)
            # a schema complaint may quote a value the client sent: never one in the log
            self.telemetry.refused(str(e.code), scrub(e.reason), conn.conn_id, peer=conn.peer)
            return self._reply(conn, encoding.build_error(e.code, e.reason), None)
        if not conn.take_token():
            self.telemetry.refused("429", "too many requests", conn.conn_id, peer=conn.peer)
            error = encoding.build_refusal(request, 429, "too many requests; slow down")
            return self.encode(error)
        relayed = self.relays.session(conn, request.sessionid) if request.sessionid else None
        if relayed is not None:  # a game session of another hub's game (not recorded here)
            return self._relayed(conn, request, relayed, frame)
        game = None
        if isinstance(request, events.GameRequest) and request.gameid:
            try:
                game = self.find_game(request.gameid)
            except Refused:
                game = None
        self.record(conn, "in", request.record, game)

        def refusal(error: Refused | GameError) -> etree._Element:
            self.telemetry.refused(
                str(error.code),
                error.reason,
                conn.conn_id,
                game.id if game is not None else None,
                conn.peer,
            )
            return encoding.build_refusal(request, error.code, error.reason)

        def reply(answer: etree._Element | bytes) -> bytes:
            return self._reply(conn, answer, game, self._answer_seat(conn, request))

        try:
            answer = self.dispatch(conn, request)
        except (Refused, GameError) as error:
            return reply(refusal(error))
        if isinstance(answer, bytes | etree._Element):  # answered at once: most requests
            return reply(answer)
        if isinstance(answer, Coroutine):
            answer = defer.ensureDeferred(answer)
        if not isinstance(answer, defer.Deferred):
            return reply(answer)

        def refused(failure: Any) -> Any:
            if failure.check(Refused, GameError) is None:
                return failure
            return refusal(failure.value)

        answer.addErrback(refused)
        answer.addCallback(reply)
        return answer

    def _relayed(
        self, conn: Connection, request: events.Request, relayed: Relayed, frame: bytes
    ) -> defer.Deferred:
        """Send a request of a relayed session to its hub; its answer is the owner's."""

        def refused(failure: Any) -> bytes:
            failure.trap(Refused)
            error = failure.value
            self.telemetry.refused(str(error.code), error.reason, conn.conn_id, peer=conn.peer)
            return self.encode(encoding.build_refusal(request, error.code, error.reason))

        return self.relays.forward(relayed, request, frame).addErrback(refused)

    def dispatch(self, conn: Connection, request: events.Request) -> Any:
        """The response to ``request`` (or a Deferred/coroutine of it): refused unless
        the connection's state takes it (:func:`.states.check`) and its strings keep
        their rules (:func:`.decoding.check_fields`), else its handler's."""
        decoding.check_fields(request)
        states.check(conn, request)
        return HANDLERS[type(request)](self, conn, request)

    def _reply(
        self, conn: Connection, root: etree._Element | bytes, game: Any, seat: int | None = None
    ) -> bytes:
        """Encode (unless a handler gave bytes it encoded itself) and record an answer."""
        data = root if isinstance(root, bytes) else self.encode(root)
        self.record(conn, "out", encoding.outgoing_record(data), game, seat)
        return data

    def _answer_seat(self, conn: Connection, request: events.Request) -> int | None:
        """The seat the answer to ``request`` is private to in the transcript: a game's
        custom answer is made for the asker's seat (a poker hand history shows its hole
        cards), so it is that seat's; other answers are public."""
        if not isinstance(request, events.Custom):
            return None
        observer = conn.game_sessions.get(request.sessionid)
        return None if observer is None else observer.seat
