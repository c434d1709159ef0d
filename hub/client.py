"""A Python client for the hub's XML protocol (Twisted, Deferred-based).

Used by the tests, by network bots and by ``gamehub xml-client``::

    client = yield HubClient.connect(reactor, "127.0.0.1", 4000)
    # or, to a hub's ssl: front end, checking its certificate against a private CA:
    client = yield HubClient.connect(reactor, "hub.example.org", 4443, tls=ClientTLS("ca.pem"))
    yield client.create_account("ann", "secret")
    yield client.login("ann", "secret")
    gameid = yield client.create_game("hello", "my table")
    yield client.join(gameid)
    yield client.act(gameid, "<hello>hi</hello>")

Every method returns a ``Deferred`` that fires with the parsed answer, or fails with
:class:`RequestFailed` (``code``, ``description``) when the server says
``success="false"``.  Unsolicited state updates go to the callbacks (``on_state``,
``on_chat``, ``on_lobby``, ``on_notice``) and into :attr:`HubClient.updates`.

Every document the server sends is validated against the published ``message.xsd``;
a document that does not validate is kept in :attr:`HubClient.invalid` (and logged).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from lxml import etree
from twisted.internet import defer, error, protocol, task
from twisted.internet.endpoints import connectProtocol
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.python.failure import Failure

from hub.frontends.xml import codec
from hub.tls import ClientTLS, client_endpoint, describe


class RequestFailed(Exception):
    """The server answered ``success="false"``.

    :ivar code: the ``errorcode`` (HTTP meanings: 400, 401, 403, 404, 409, 413, 422...).
    :ivar description: the server's reason.
    """

    def __init__(self, code: int, description: str) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description


@dataclass
class Answer:
    """One response document.

    :ivar root: the ``<message>`` element; :ivar node: the operation element
        (``response/<group>/<op>`` or ``response/general``).
    """

    root: Any
    node: Any
    sessionid: int
    success: bool
    code: int | None
    description: str

    @classmethod
    def of(cls, root: Any) -> Answer:
        """Read a ``<message><response>…`` document."""
        group = root[0][0]
        node = group if group.tag == "general" or not len(group) else group[0]
        code = node.get("errorcode")
        success = node.get("success", "true") == "true"
        return cls(
            root=root,
            node=node,
            sessionid=int(root.get("sessionid", "0")),
            success=success,
            code=int(code) if code else None,
            description=node.findtext("description") or "",
        )


@dataclass
class GameUpdate:
    """One ``stateupdate/game`` received: the game's wire id, the session, and either a
    payload element (``updatedgamestate``) or a chat line."""

    gameid: int
    sessionid: int
    payload: Any = None
    sender: str | None = None
    text: str | None = None
    success: bool = True
    description: str = ""


class XMLClientProtocol(Int32StringReceiver):
    """The client side of the framing: requests go out, answers are matched in order.

    :ivar pending: the requests sent and not answered yet (their Deferred and bytes).
    :ivar adopted: whether this is the client's connection (not yet while a session
        is being resumed on it).
    """

    log = Logger()
    MAX_LENGTH = 1 << 20

    def __init__(self, client: HubClient, adopted: bool = True) -> None:
        self.client = client
        self.adopted = adopted
        self.pending: deque[tuple[defer.Deferred, bytes]] = deque()
        self.greeted: defer.Deferred = defer.Deferred()

    def connectionMade(self) -> None:  # noqa: N802
        self.client._connected(self)

    def stringReceived(self, frame: bytes) -> None:  # noqa: N802
        self.client._received(frame, self)

    def lengthLimitExceeded(self, length: int) -> None:  # noqa: N802
        self.log.warn("server frame of {length} bytes is too large", length=length)
        if self.transport is not None:
            self.transport.loseConnection()

    def connectionLost(self, reason: Any = protocol.connectionDone) -> None:  # noqa: N802
        pending, self.pending = self.pending, deque()
        self.client._lost(reason, self, list(pending))


class HubClient:
    """A connection to a hub's XML front end.

    :ivar info: the greeting's ``parameters`` element (after :meth:`connect`).
    :ivar session: the lobby session id (after :meth:`login`).
    :ivar game_sessions: wire game id → game session id.
    :ivar updates: wire game id → list of :class:`GameUpdate` received.
    :ivar lobby_changes: ``(change, gameid)`` pairs received.
    :ivar invalid: server documents that did not validate (should stay empty).
    """

    log = Logger()
    #: how many times an action the hub refused as too fast (429) is sent again, the
    #: first after :attr:`SLOW_DOWN` seconds and each later one after twice as long
    #: (0.25 + 0.5 + 1 + 2 + 4 s: within any move clock)
    RETRIES = 5
    SLOW_DOWN = 0.25
    #: with ``reconnect``: tries to connect again after a lost connection, the first
    #: after :attr:`RECONNECT_DELAY` seconds, each later one after twice as long (at
    #: most :attr:`RECONNECT_MAX_DELAY`), going round the hub addresses
    RECONNECTS = 8
    RECONNECT_DELAY = 0.1
    RECONNECT_MAX_DELAY = 5.0

    def __init__(
        self,
        validate: bool = True,
        reactor: Any = None,
        reconnect: bool = False,
        hubs: Iterable[tuple[str, int]] = (),
    ) -> None:
        self.validate = validate
        #: resume the session by itself when the connection is lost (see :meth:`connect`)
        self.reconnect = reconnect
        #: where to connect again: the first address, then these
        self.hubs: list[tuple[str, int]] = list(hubs)
        #: how many times the session was resumed on a new connection
        self.reconnected = 0
        self._tls: ClientTLS | None = None
        self._timeout = 10.0
        self._closing = False
        self._resuming = False
        #: requests waiting for the session to be resumed (their bytes and Deferred)
        self._queue: list[tuple[bytes, defer.Deferred]] = []
        #: for the pauses before an action is sent again (set by :meth:`connect`)
        self.reactor = reactor
        self.proto: XMLClientProtocol | None = None
        self.info: Any = None
        self.session = 0
        self.account: dict[str, Any] | None = None
        #: the token that resumes this session once it is lost (after :meth:`login`)
        self.resume_token: str | None = None
        self.game_sessions: dict[int, int] = {}
        self.updates: dict[int, list[GameUpdate]] = {}
        self.lobby_changes: list[tuple[str, int]] = []
        self.notices: list[str] = []
        self.invalid: list[tuple[bytes, str]] = []
        #: responses that answered no request of ours (errors about raw bytes we wrote)
        self.unmatched: list[Answer] = []
        self.received: list[bytes] = []
        self.on_state: Callable[[GameUpdate], Any] | None = None
        self.on_chat: Callable[[GameUpdate], Any] | None = None
        self.on_lobby: Callable[[str, int, Any], Any] | None = None
        self.on_notice: Callable[[str], Any] | None = None
        self.on_close: Callable[[Any], Any] | None = None
        self._greeted: defer.Deferred = defer.Deferred()
        self._closed: defer.Deferred = defer.Deferred()
        self._waiters: list[tuple[Callable[[GameUpdate], bool], defer.Deferred]] = []

    # -- connecting -----------------------------------------------------------------------

    @classmethod
    def connect(
        cls,
        reactor: Any,
        host: str,
        port: int,
        timeout: float = 10,
        tls: ClientTLS | None = None,
        **kw: Any,
    ) -> defer.Deferred:
        """Connect and wait for the greeting; fires with the :class:`HubClient`.

        :param timeout: seconds for the connection, and then for the greeting.
        :param reconnect: (keyword) once logged in, a lost connection is made again
            and the session resumed with its resume token, unnoticed by the caller:
            requests made meanwhile (and those that were under way) wait and are sent
            once it is back (with the new session ids); after :attr:`RECONNECTS`
            failed tries, or a token the hub refuses, they fail and :attr:`closed`
            fires.  A request under way when the connection broke is sent again: an
            action the hub had taken is then refused (422).
        :param hubs: (keyword) more ``(host, port)`` addresses to try, in turn, after
            ``host:port`` (the doors of a cluster).

        :param tls: connect with TLS and check the hub's certificate (:mod:`hub.tls`);
            a certificate that does not verify fails the Deferred with
            ``ConnectionLost("closed before the greeting: TLS failed: ...")``.
        """
        client = cls(**kw)
        client.reactor = reactor
        client.hubs.insert(0, (host, port))
        client._tls, client._timeout = tls, timeout
        endpoint = client_endpoint(reactor, host, port, tls, timeout)
        d = connectProtocol(endpoint, XMLClientProtocol(client))

        def greeted(proto: XMLClientProtocol) -> defer.Deferred:
            def silent(result: Any, seconds: float) -> Any:
                transport: Any = proto.transport
                if transport is not None:
                    transport.abortConnection()
                hint = "" if tls else " (a TLS port? connect with TLS)"
                return Failure(error.TimeoutError(f"no greeting within {seconds:g} s{hint}"))

            return client._greeted.addTimeout(timeout, reactor, onTimeoutCancel=silent)

        d.addCallback(greeted)
        d.addCallback(lambda _: client)
        return d

    def _connected(self, proto: XMLClientProtocol) -> None:
        if proto.adopted:
            self.proto = proto

    def _lost(self, reason: Any, proto: XMLClientProtocol, pending: list[Any]) -> None:
        lost = error.ConnectionLost("the hub closed the connection")
        if not proto.adopted:  # a try at resuming: the next one follows
            if not proto.greeted.called:
                proto.greeted.errback(lost)
            for d, _ in pending:
                d.errback(lost)
            return
        self.proto = None
        if self._resumable():
            self._queue[:0] = [(data, d) for d, data in pending]
            self._resuming = True
            self._again(self.RECONNECTS, self.RECONNECT_DELAY, 1)
            return
        for d, _ in pending:
            d.errback(lost)
        if not self._greeted.called:
            why = describe(reason) if reason is not None else ""
            clean = why in ("", "Connection was closed cleanly.")
            text = "closed before the greeting" + ("" if clean else f": {why}")
            self._greeted.errback(error.ConnectionLost(text))
        if not self._closed.called:
            self._closed.callback(None)
        if self.on_close is not None:
            self.on_close(reason)

    def _resumable(self) -> bool:
        return (
            self.reconnect
            and not self._closing
            and self.resume_token is not None
            and self.account is not None
            and self.reactor is not None
        )

    def _again(self, tries: int, delay: float, index: int) -> None:
        """Connect to the next hub address, and resume the session there."""
        if self._closing:
            self._give_up("closed")
            return
        host, port = self.hubs[index % len(self.hubs)]
        attempt = XMLClientProtocol(self, adopted=False)
        endpoint = client_endpoint(self.reactor, host, port, self._tls, self._timeout)
        d = connectProtocol(endpoint, attempt)
        d.addCallback(lambda _: attempt.greeted.addTimeout(self._timeout, self.reactor))
        d.addCallback(lambda _: self._resume_on(attempt))

        def failed(failure: Failure) -> None:
            transport: Any = attempt.transport
            if transport is not None:
                transport.abortConnection()
            refused = isinstance(failure.value, RequestFailed) and failure.value.code == 403
            if refused or tries <= 1 or self._closing:
                self._give_up(describe(failure))
                return
            later = min(delay * 2, self.RECONNECT_MAX_DELAY)
            self.reactor.callLater(delay, self._again, tries - 1, later, index + 1)

        d.addErrback(failed)

    def _resume_on(self, attempt: XMLClientProtocol) -> defer.Deferred:
        name, token = str((self.account or {}).get("name")), str(self.resume_token)
        outer, _ = self._group("authentication", "resume", accountname=name, token=token)
        data = _document(outer, 0)
        d: defer.Deferred = defer.Deferred()
        attempt.pending.append((d, data))
        attempt.sendString(data)

        def resumed(answer: Answer) -> None:
            before, lobby = dict(self.game_sessions), self.session
            self.game_sessions = {
                int(g.get("gameid")): int(g.get("sessionid"))
                for g in answer.node.iterfind("games/game")
            }
            self._logged_in(answer)
            renamed = {lobby: self.session}
            for gameid, sid in before.items():
                if gameid in self.game_sessions:
                    renamed[sid] = self.game_sessions[gameid]
            attempt.adopted, self.proto, self._resuming = True, attempt, False
            self.reconnected += 1
            queue, self._queue = self._queue, []
            for data, waiting in queue:
                root = etree.fromstring(data, codec.hardened_parser())
                sid = int(root.get("sessionid") or 0)
                if sid in renamed:
                    root.set("sessionid", str(renamed[sid]))
                again = etree.tostring(root, encoding="UTF-8", xml_declaration=True)
                attempt.pending.append((waiting, again))
                attempt.sendString(again)

        return d.addCallback(_checked).addCallback(resumed)

    def _give_up(self, why: str) -> None:
        """The session could not be resumed: what waits fails, and the client is closed."""
        self._resuming, self._closing = False, True
        queue, self._queue = self._queue, []
        for _, d in queue:
            d.errback(error.ConnectionLost(f"the session could not be resumed: {why}"))
        self._lost(None, XMLClientProtocol(self), [])

    def close(self) -> defer.Deferred:
        """Close the connection; fires when it is closed."""
        self._closing = True
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.loseConnection()
        return self._closed

    @property
    def resuming(self) -> bool:
        """Whether the connection was lost and the session is being resumed (requests
        made now wait for it)."""
        return self._resuming

    @property
    def closed(self) -> defer.Deferred:
        """Fires when the connection is gone."""
        return self._closed

    # -- receiving ------------------------------------------------------------------------

    def _received(self, frame: bytes, proto: XMLClientProtocol) -> None:
        self.received.append(frame)
        try:
            root = codec.parse_document(frame) if self.validate else _parse_unchecked(frame)
        except codec.ProtocolError as e:
            self.invalid.append((frame, e.reason))
            self.log.error("invalid document from the hub: {reason}", reason=e.reason)
            try:
                root = _parse_unchecked(frame)
            except codec.ProtocolError:
                return
        kind = root[0].tag
        if kind == "info":
            self.info = root.find("info/parameters")
            if not proto.greeted.called:
                proto.greeted.callback(self)
            if not self._greeted.called:
                self._greeted.callback(self)
        elif kind == "response":
            if proto.pending:
                proto.pending.popleft()[0].callback(Answer.of(root))
            else:
                self.unmatched.append(Answer.of(root))
        elif kind == "stateupdate":
            self._state_update(root)

    def _state_update(self, root: Any) -> None:
        sid = int(root.get("sessionid", "0"))
        node = root[0][0]
        if node.tag == "game":
            gameid = int(node.get("gameid", "0"))
            inner = node[0]
            if inner.tag == "chat":
                update = GameUpdate(
                    gameid, sid, sender=inner.get("sender"), text=inner.findtext("message")
                )
                callback = self.on_chat
            else:
                parameters = inner.find("parameters")
                payload = parameters[0] if parameters is not None and len(parameters) else None
                update = GameUpdate(
                    gameid,
                    sid,
                    payload=payload,
                    success=inner.get("success", "true") == "true",
                    description=inner.findtext("description") or "",
                )
                if not update.success:
                    self.game_sessions.pop(gameid, None)
                callback = self.on_state
            self.updates.setdefault(gameid, []).append(update)
            if callback is not None:
                callback(update)
            for waiter in list(self._waiters):
                predicate, d = waiter
                if predicate(update):
                    self._waiters.remove(waiter)
                    d.callback(update)
        elif node.tag == "lobby":
            change = node.find(".//change")
            if change is not None:
                pair = (change.get("type", ""), int(change.get("gameid", "0")))
                self.lobby_changes.append(pair)
                if self.on_lobby is not None:
                    self.on_lobby(pair[0], pair[1], change.find("game"))
        else:
            text = node.findtext("description") or ""
            self.notices.append(text)
            if self.on_notice is not None:
                self.on_notice(text)

    def wait_for(self, predicate: Callable[[GameUpdate], bool]) -> defer.Deferred:
        """Fires with the first game update (already received or later) that satisfies
        ``predicate``."""
        for updates in self.updates.values():
            for update in updates:
                if predicate(update):
                    return defer.succeed(update)
        d: defer.Deferred = defer.Deferred()
        self._waiters.append((predicate, d))
        return d

    # -- requests -------------------------------------------------------------------------

    def send_frame(self, data: bytes) -> defer.Deferred:
        """Send one frame of arbitrary bytes (tests of hostile input); fires with the
        :class:`Answer` to it (no check)."""
        return self._send(data)

    def _send(self, data: bytes) -> defer.Deferred:
        """Send one frame (or keep it while the session is being resumed)."""
        d: defer.Deferred = defer.Deferred()
        if self.proto is None:
            if not self._resuming:
                return defer.fail(error.ConnectionLost("not connected"))
            self._queue.append((data, d))
            return d
        self.proto.pending.append((d, data))
        self.proto.sendString(data)
        return d

    def write_raw(self, data: bytes) -> None:
        """Write bytes to the stream as they are, without framing (tests)."""
        if self.proto is None or self.proto.transport is None:
            raise error.ConnectionLost("not connected")
        self.proto.transport.write(data)

    def request(
        self, body: Any, sessionid: int | None = None, check: bool = True
    ) -> defer.Deferred:
        """Send ``<request>body</request>`` (an element or XML text); fires with the
        :class:`Answer` (failing with :class:`RequestFailed` if ``check`` and refused)."""
        sid = self.session if sessionid is None else sessionid
        d = self._send(_document(body, sid))
        if check:
            d.addCallback(_checked)
        return d

    def _group(self, group: str, op: str, game: int | None = None, **attrs: Any) -> Any:
        outer = codec.element(group, gameid=game)
        inner = codec.sub(outer, op, **attrs)
        return outer, inner

    # accounts

    def create_account(self, name: str, password: str, accounttype: int = 0) -> defer.Deferred:
        """``accountmanagement/create``."""
        outer, _ = self._group(
            "accountmanagement", "create", accountname=name, password=password,
            accounttype=accounttype,
        )  # fmt: skip
        return self.request(outer)

    def delete_account(self, name: str, password: str) -> defer.Deferred:
        """``accountmanagement/delete``."""
        outer, _ = self._group("accountmanagement", "delete", accountname=name, password=password)
        return self.request(outer)

    def change_password(self, name: str, old: str, new: str) -> defer.Deferred:
        """``accountmanagement/changepassword``."""
        outer, _ = self._group(
            "accountmanagement", "changepassword", accountname=name, oldpassword=old,
            newpassword=new,
        )  # fmt: skip
        return self.request(outer)

    @defer.inlineCallbacks
    def login(self, name: str, password: str) -> Any:
        """``authentication/login``; fires with ``{"name", "type", "balance": Decimal}``."""
        outer, _ = self._group("authentication", "login", accountname=name, password=password)
        answer = yield self.request(outer, sessionid=0)
        return self._logged_in(answer)

    def _logged_in(self, answer: Answer) -> dict[str, Any]:
        self.session = answer.sessionid
        self.resume_token = answer.node.get("resumetoken")
        self.account = {
            "name": answer.node.get("name"),
            "type": int(answer.node.get("type")),
            "balance": Decimal(answer.node.get("balance", "0")),
        }
        return self.account

    @defer.inlineCallbacks
    def resume(self, name: str, token: str) -> Any:
        """``authentication/resume``: a lost session back with its resume token (see
        docs/xml.md); fires with the account, as :meth:`login`.  The games it followed
        are followed again (:attr:`game_sessions`: their new session ids)."""
        outer, _ = self._group("authentication", "resume", accountname=name, token=token)
        answer = yield self.request(outer, sessionid=0)
        self.game_sessions = {
            int(g.get("gameid")): int(g.get("sessionid"))
            for g in answer.node.iterfind("games/game")
        }
        return self._logged_in(answer)

    @defer.inlineCallbacks
    def logout(self) -> Any:
        """``authentication/logout``: every session of this connection ends."""
        outer, _ = self._group("authentication", "logout")
        answer = yield self.request(outer)
        self.session = 0
        self.account = None
        self.resume_token = None
        self.game_sessions.clear()
        return answer

    # lobby

    @defer.inlineCallbacks
    def available_games(self) -> Any:
        """``lobby/availablegames`` → list of dicts (type, clientgame, variants...)."""
        outer, _ = self._group("lobby", "availablegames")
        answer = yield self.request(outer)
        return [
            dict(g.attrib, variants=[s.text or "" for s in g.iterfind("variants/string")])
            for g in answer.node.iterfind("game")
        ]

    @defer.inlineCallbacks
    def game_list(self, gametype: str | None = None, variant: str | None = None) -> Any:
        """``lobby/gamelist`` → list of dicts (gameid int, name, players list...)."""
        outer, _ = self._group("lobby", "gamelist", gametype=gametype, gamevariant=variant)
        answer = yield self.request(outer)
        return [_row(g) for g in answer.node.iterfind("games/game")]

    @defer.inlineCallbacks
    def game_details(self, gameid: int) -> Any:
        """``lobby/gamedetails`` → ``{"players": [...], "rules": [...]}``."""
        outer, _ = self._group("lobby", "gamedetails", gameid=gameid)
        answer = yield self.request(outer)
        players = [
            {child.tag: child.text for child in p.iterfind("info/parameters/*")}
            for p in answer.node.iterfind("players/player")
        ]
        rules = [s.text or "" for s in answer.node.iterfind("rules/string")]
        return {"players": players, "rules": rules}

    @defer.inlineCallbacks
    def find_player(self, name: str) -> Any:
        """``lobby/findplayer`` → list of dicts (player, seat, gameid, name...)."""
        outer, _ = self._group("lobby", "findplayer", name=name)
        answer = yield self.request(outer)
        return [
            dict(g.attrib, gameid=int(g.get("gameid")), seat=int(g.get("seat")))
            for g in answer.node.iterfind("game")
        ]

    @defer.inlineCallbacks
    def history(
        self, gameid: int | None = None, accountname: str | None = None, limit: int = 20
    ) -> Any:
        """``lobby/history`` → list of dicts (id, gameid, players, summary...)."""
        outer, _ = self._group(
            "lobby", "history", gameid=gameid, accountname=accountname, limit=limit
        )
        answer = yield self.request(outer)
        return [
            dict(
                e.attrib,
                players=[dict(p.attrib) for p in e.iterfind("player")],
                summary=e.findtext("summary"),
            )
            for e in answer.node.iterfind("entry")
        ]

    # games

    @defer.inlineCallbacks
    def create_game(
        self,
        gametype: str,
        name: str,
        variant: str | None = None,
        seats: int | Iterable[str] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """``game/create`` → the new game's wire id."""
        outer, create = self._group("game", "create", gametype=gametype, name=name)
        if variant is not None or seats is not None or options:
            parameters = codec.sub(create, "parameters")
            if variant is not None:
                codec.sub(parameters, "variant", variant)
            if isinstance(seats, int):
                codec.sub(parameters, "seats", seats)
            elif seats is not None:
                for seat in seats:
                    codec.sub(parameters, "seat", seat)
            for key, value in (options or {}).items():
                codec.sub(parameters, "option", value, name=key)
        answer = yield self.request(outer)
        return int(answer.node.get("gameid"))

    def delete_game(self, gameid: int) -> defer.Deferred:
        """``game/delete`` (creator or admin)."""
        outer, _ = self._group("game", "delete", game=gameid)
        return self.request(outer)

    @defer.inlineCallbacks
    def join(self, gameid: int) -> Any:
        """``game/join`` → the game session id (kept in :attr:`game_sessions`)."""
        outer, _ = self._group("game", "join", game=gameid)
        answer = yield self.request(outer)
        self.game_sessions[gameid] = answer.sessionid
        return answer

    def _game_session(self, gameid: int) -> int:
        try:
            return self.game_sessions[gameid]
        except KeyError:
            raise RequestFailed(403, f"not joined to game {gameid}") from None

    def act(self, gameid: int, payload: Any) -> defer.Deferred:
        """``game/action`` with ``payload`` (an element or XML text) as its parameters."""
        try:
            sid = self._game_session(gameid)
        except RequestFailed as e:
            return defer.fail(e)
        outer, action = self._group("game", "action", game=gameid)
        parameters = codec.sub(action, "parameters")
        parameters.append(payload if not isinstance(payload, str) else etree.fromstring(payload))
        return self._slowing_down(lambda: self.request(outer, sessionid=sid), self.RETRIES)

    def _slowing_down(self, send: Callable[[], defer.Deferred], tries: int) -> defer.Deferred:
        """``send()``; a 429 answer (the hub's rate limit: "slow down") sends it again
        after a pause, ``tries`` times at most, each pause twice the one before."""
        delay = self.SLOW_DOWN * 2 ** (self.RETRIES - tries)

        def refused(failure: Failure) -> Any:
            failure.trap(RequestFailed)
            code = getattr(failure.value, "code", None)
            if code != 429 or tries <= 0 or self.reactor is None:
                return failure
            return task.deferLater(self.reactor, delay, self._slowing_down, send, tries - 1)

        return send().addErrback(refused)

    def chat(self, gameid: int, text: str) -> defer.Deferred:
        """``game/chat``; the server sets the sender."""
        try:
            sid = self._game_session(gameid)
        except RequestFailed as e:
            return defer.fail(e)
        outer, chat = self._group("game", "chat", game=gameid, sender=self._me())
        codec.sub(chat, "message", text)
        return self.request(outer, sessionid=sid)

    def custom(self, gameid: int, payload: Any) -> defer.Deferred:
        """``game/custom`` with one payload element."""
        try:
            sid = self._game_session(gameid)
        except RequestFailed as e:
            return defer.fail(e)
        outer, custom = self._group("game", "custom", game=gameid)
        custom.append(payload if not isinstance(payload, str) else etree.fromstring(payload))
        return self.request(outer, sessionid=sid)

    @defer.inlineCallbacks
    def part(self, gameid: int) -> Any:
        """``game/part``: leave the game (and its seat)."""
        sid = self._game_session(gameid)
        outer, _ = self._group("game", "part", game=gameid)
        answer = yield self.request(outer, sessionid=sid)
        self.game_sessions.pop(gameid, None)
        return answer

    def _me(self) -> str:
        return str((self.account or {}).get("name") or "-")


def _document(body: Any, sessionid: int) -> bytes:
    """``<message sessionid=…><request>body</request></message>`` as bytes."""
    root = etree.Element("message")
    if sessionid:
        root.set("sessionid", str(sessionid))
    request = etree.SubElement(root, "request")
    request.append(body if not isinstance(body, str) else etree.fromstring(body))
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True)


def _checked(answer: Answer) -> Answer:
    if not answer.success:
        raise RequestFailed(answer.code or 0, answer.description)
    return answer


def _parse_unchecked(frame: bytes) -> Any:
    """Parse without the schema (to read a document that failed validation)."""
    try:
        return etree.fromstring(frame, codec.hardened_parser())
    except (etree.Error, ValueError) as e:
        raise codec.ProtocolError(str(e)) from None


def _row(game: Any) -> dict[str, Any]:
    return {
        "gameid": int(game.get("gameid")),
        "name": game.get("name"),
        "gametype": game.get("gametype"),
        "gamevariant": game.get("gamevariant"),
        "maxplayers": int(game.get("maxplayers")),
        "players": [p.text or "" for p in game.iterfind("additionalinfo/players/player")],
        "state": game.get("state"),
        "paused": game.findtext("additionalinfo/other/parameters/paused"),
    }
