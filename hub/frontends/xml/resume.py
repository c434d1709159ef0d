"""Resuming a lost XML session with its resume token (``authentication/resume``).

A login answer carries a **resume token** (``resumetoken``: 256 random bits from
``secrets``, URL-safe text).  The store keeps its SHA-256 (:mod:`hub.store.resume`),
the account, the wire ids of the games the session follows and an expiry, so any hub
of a cluster sharing the database accepts it.  The token is in no log and no
transcript (:func:`.encoding.outgoing_record` blanks it, the request's ``token`` is a
secret field).

- While the connection lives its token's expiry moves on (every third of
  ``xml_resume_seconds``); joining or parting a game rewrites its games.
- A connection of a logged-in account that is lost (not logged out) keeps its seats
  in running games: each waits for the player under the game's own time rules, and is
  left after ``xml_resume_seconds`` (120 s) unless a connection of the account follows
  it again.  A seat in a game that has not begun is left at once, as before.
  Its token stays good until then.
- ``authentication/resume`` (``accountname``, ``token``) on a connection that is not
  logged in uses the token once: the account is logged in with a new lobby session,
  each game of the session is joined again (back at the seat the account holds, or
  watching), the answer lists them (``games/game``: ``gameid``, the new game
  ``sessionid``, ``description``) and carries the next token; a full state of each
  game follows it, and the turn again when the seat is to act.  A connection still open with the old token (on this hub) is
  closed first, its seats kept.
- A token that is unknown, forged, expired, already used, logged out or of another
  account: 403, and nothing changes.

``xml_resume_seconds`` = 0 turns this off: no token, and a lost connection leaves its
seats at once (as logging out does).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Collection, Sequence
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lxml import etree
from twisted.internet import defer, task
from twisted.internet.interfaces import IDelayedCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.model import GAME_OVER, OVER, RUNNING, TURN, GameEvent
from hub.store.errors import CommitUnknown, StoreUnavailable

from . import codec, encoding, events
from .adapters import adapter_for
from .errors import Refused
from .sessions import seat_back
from .states import State

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from hub.interfaces import GameLobby, IHub

    from .connection import Connection
    from .relay import Relays, RelayTo
    from .sessions import GameSession, Sessions

#: the answer to a token that resumes nothing (one text for every reason)
BAD_TOKEN = "unknown, expired or used resume token"
#: seconds before a resume token the database could not take is written again
RETRY_SECONDS = 1.0


@runtime_checkable
class ResumeStore(Protocol):
    """What the front end asks of the store (:class:`hub.store.resume.ResumeMixin`)."""

    def resume_issue(
        self, token_hash: str, account: str, games: Sequence[int], expires: float
    ) -> defer.Deferred[None]: ...

    def resume_save(
        self, token_hash: str, games: Sequence[int], expires: float
    ) -> defer.Deferred[bool]: ...

    def resume_touch(
        self, token_hashes: Sequence[str], expires: float
    ) -> defer.Deferred[set[str]]: ...

    def resume_take(
        self, token_hash: str, account: str, now: float, successor: str, expires: float
    ) -> defer.Deferred[list[int] | None]: ...

    def resume_drop(self, token_hash: str) -> defer.Deferred[None]: ...

    def resume_drop_account(
        self, account: str, keep: str | None = None
    ) -> defer.Deferred[None]: ...

    def resume_purge(self, now: float) -> defer.Deferred[int]: ...


class ResumesHost(Protocol):
    """What the resumes use of their front end (:class:`.server.XMLFrontend`, which
    imports this module)."""

    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def hub(self) -> IHub: ...
    @property
    def lobby(self) -> GameLobby: ...
    @property
    def sessions(self) -> Sessions: ...
    @property
    def relays(self) -> Relays: ...
    @property
    def connections(self) -> Collection[Connection]: ...
    def with_game(
        self, wire_id: int, then: Callable[[Any], Any], elsewhere: Callable[[RelayTo], Any]
    ) -> Any: ...
    def record(
        self,
        conn: Connection,
        direction: str,
        frame: bytes,
        game: Any = None,
        seat: int | None = None,
    ) -> None: ...
    def send_game(
        self, conn: Connection, game: Any, document: bytes, seat: int | None = None
    ) -> None: ...


def token_hash(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Resumes:
    """The resume tokens of one XML front end's connections, and the seats of lost
    ones (see the module docstring).

    :ivar seconds: ``xml_resume_seconds``.
    """

    log = Logger()

    def __init__(self, frontend: ResumesHost) -> None:
        self.frontend = frontend
        self.reactor = frontend.reactor
        self.seconds = float(frontend.hub.options.get("xml_resume_seconds", 120))
        #: token hash → the live connection it resumes
        self.live: dict[str, Connection] = {}
        self._dirty: set[Connection] = set()
        self._flush: IDelayedCall | None = None
        #: the timers that leave the seats of lost connections
        self._releases: dict[object, IDelayedCall] = {}
        #: token hash → its last write under way (a token's writes go in order)
        self._writing: dict[str, defer.Deferred[None]] = {}
        self._loop: task.LoopingCall | None = None
        #: listening (a stopped front end writes and schedules nothing more)
        self.running = False

    @property
    def store(self) -> ResumeStore | None:
        """The hub's store, when it keeps resume tokens (and they are on)."""
        found = self.frontend.hub.store
        if self.seconds <= 0 or not isinstance(found, ResumeStore):
            return None
        return found

    def _expires(self) -> float:
        return float(self.reactor.seconds()) + self.seconds

    # -- the life of the front end -----------------------------------------------------

    def start(self) -> None:
        """Keep the live tokens alive (and purge the expired) while listening."""
        self.running = True
        if self._loop is None and self.store is not None:
            self._loop = task.LoopingCall(self._keep_alive)
            self._loop.clock = self.reactor
            self._loop.start(max(1.0, self.seconds / 3), now=False).addErrback(
                lambda f: self.log.failure("xml: keeping resume tokens failed", f)
            )

    def stop(self) -> None:
        """Stop the timers (seats held for lost connections stay held: the tokens
        saved with their games let the players resume them where the games go)."""
        self.running = False
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None
        for call in (self._flush, *self._releases.values()):
            if call is not None and call.active():
                call.cancel()
        self._flush = None
        self._releases.clear()

    def _keep_alive(self) -> defer.Deferred[None]:
        store = self.store
        if store is None:
            return defer.succeed(None)
        hashes = list(self.live)

        def touched(used: set[str]) -> None:
            for h in used:
                conn = self.live.get(h)
                if conn is not None and not conn.closing:
                    self._resumed_elsewhere(conn)

        d = store.resume_touch(hashes, self._expires())
        d.addCallback(touched)
        d.addCallback(lambda _: store.resume_purge(float(self.reactor.seconds())))
        d.addErrback(self._not_kept)
        return d.addCallback(lambda _: None)

    def _not_kept(self, failure: Failure) -> None:
        """The database is away (an outage): the next round keeps the tokens, which
        live far longer than a round; anything else is an error."""
        if failure.check(StoreUnavailable):
            self.log.warn("xml: resume tokens not kept now: {e}", e=failure.value)
            return
        self.log.failure("xml: keeping resume tokens failed", failure)

    def _resumed_elsewhere(self, conn: Connection) -> None:
        """The session of ``conn`` was resumed on another connection: close this one,
        keeping its seats for the other."""
        if conn.resume_hash is not None:
            self.live.pop(conn.resume_hash, None)
        conn.resume_hash = None
        conn.resumable = False
        self.frontend.sessions.end_all(conn, leave=False)
        conn.wire.fail(409, "this session was resumed on another connection", notice=True)

    # -- tokens --------------------------------------------------------------------------

    async def issue(self, account: str) -> str | None:
        """A new token of ``account``'s new session (kept in the store), or ``None``
        (tokens off, or the store cannot keep one now)."""
        store = self.store
        if store is None:
            return None
        token = secrets.token_urlsafe(32)
        try:
            await store.resume_issue(token_hash(token), account, [], self._expires())
        except Exception:
            self.log.failure("xml: a resume token could not be kept")
            return None
        return token

    def logged_in(self, conn: Connection, token: str | None, ticket: bool = False) -> None:
        """``conn`` logged in with ``token`` (or with a ticket of another hub: a door
        relaying its client's game sessions, which the client may resume through
        another door); a lost connection of it will keep its seats."""
        conn.resumable = self.store is not None and (token is not None or ticket)
        if token is not None:
            conn.resume_hash = token_hash(token)
            self.live[conn.resume_hash] = conn

    def abandoned(self, token: str | None) -> None:
        """A token issued for a login that did not happen."""
        store = self.store
        if token is not None and store is not None:
            store.resume_drop(token_hash(token)).addErrback(
                lambda f: self.log.failure("xml: dropping a resume token failed", f)
            )

    async def logout(self, conn: Connection) -> None:
        """``conn`` logs out (or its account is deleted, or it is kicked): its token
        is dropped, and its seats are left as it goes."""
        conn.resumable = False
        h, conn.resume_hash = conn.resume_hash, None
        store = self.store
        if h is None:
            return
        self.live.pop(h, None)
        if store is not None:
            await store.resume_drop(h)

    async def password_changed(self, account: str, conn: Connection) -> None:
        """``account``'s password changed on ``conn``: every other session's token
        of it resumes nothing any more (``conn``'s own stays good)."""
        store = self.store
        if store is None:
            return
        keep = conn.resume_hash if conn.account is not None else None
        if keep is not None and conn.account.name.lower() != account.lower():
            keep = None
        await store.resume_drop_account(account, keep)
        for h, other in list(self.live.items()):
            if (
                h != keep
                and other.account is not None
                and other.account.name.lower() == account.lower()
            ):
                self.live.pop(h, None)
                other.resume_hash = None

    def revoke(self, conn: Connection) -> None:
        """:meth:`logout` without waiting (a kicked connection)."""
        defer.ensureDeferred(self.logout(conn)).addErrback(
            lambda f: self.log.failure("xml: dropping a resume token failed", f)
        )

    def games_of(self, conn: Connection) -> list[int]:
        """The wire ids of the games ``conn`` follows (here and relayed)."""
        wires = [o.wire_id for o in conn.game_sessions.values()]
        relays = self.frontend.relays.by_local.values()
        wires += [r.wire_id for r in relays if r.relay.conn is conn]
        return list(dict.fromkeys(wires))

    def changed(self, conn: Connection) -> None:
        """``conn`` joined or left a game: its token's games are written on the next
        turn (one write for every change of the turn)."""
        if conn.resume_hash is None or conn.closing or not self.running:
            return
        self._dirty.add(conn)
        if self._flush is None:
            self._flush = self.reactor.callLater(0, self._save)

    def _save(self) -> None:
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        store = self.store
        for conn in dirty:
            h = conn.resume_hash
            if store is None or h is None or conn.closing:
                continue
            save = partial(store.resume_save, h, self.games_of(conn), self._expires())
            self._write(h, save, conn)

    def _later(self, failure: Failure, conn: Connection | None) -> None:
        """A write the database could not take now is made again a second later
        while the connection lives (a lost one's last write is not: its token keeps
        the games saved before); anything else is logged as a failure."""
        if not failure.check(StoreUnavailable, CommitUnknown):
            self.log.failure("xml: saving a resume token failed", failure)
            return
        if conn is None or conn.closing:
            self.log.warn("xml: a lost connection's resume token not saved: {e}", e=failure.value)
            return
        self.log.warn("xml: a resume token not saved now (the database is unavailable); again soon")
        self._dirty.add(conn)
        if self._flush is None and self.running:
            self._flush = self.reactor.callLater(RETRY_SECONDS, self._save)

    def _write(
        self, h: str, run: Callable[[], defer.Deferred[Any]], conn: Connection | None = None
    ) -> None:
        """Write to ``h``'s row once its writes before are done (the store's pool
        runs them in several connections: in order only so)."""
        done: defer.Deferred[None] = defer.Deferred()

        def go(_: object) -> None:
            d = run()
            d.addErrback(self._later, conn)
            d.addBoth(lambda _: done.callback(None))

        def forget(_: object) -> None:
            if self._writing.get(h) is done:
                del self._writing[h]

        before = self._writing.get(h)
        self._writing[h] = done
        done.addCallback(forget)
        if before is None:
            go(None)
        else:
            before.addCallback(go)

    # -- a lost connection ---------------------------------------------------------------

    def lost(self, conn: Connection) -> bool:
        """``conn`` is gone: ``True`` when its seats wait for it (its sessions are then
        ended here, without leaving), ``False`` when they are to be left now."""
        if not conn.resumable or conn.account is None:
            return False
        name = conn.account.name
        held: list[tuple[Any, int]] = []
        for sid, observer in list(conn.game_sessions.items()):
            if observer.game.state != RUNNING:  # a game not begun (or over): left now
                self.frontend.sessions.end_game(sid)
            elif (seat := observer.held_seat()) is not None:
                held.append((observer.game, seat))
        h = conn.resume_hash
        store = self.store
        if h is not None:
            self.live.pop(h, None)
            if store is not None and self.running:
                save = partial(store.resume_save, h, self.games_of(conn), self._expires())
                self._write(h, save, conn)
        self.frontend.sessions.end_all(conn, leave=False)
        if held and self.running:
            key = object()
            self._releases[key] = self.reactor.callLater(
                self.seconds, self._release, name, held, key
            )
        return True

    def _release(self, name: str, held: list[tuple[Any, int]], key: object) -> None:
        """The seats of a lost connection that nobody came back to are left."""
        self._releases.pop(key, None)
        lobby = self.frontend.lobby
        for game, seat in held:
            if game.id not in lobby or not 0 <= seat < len(game.seats):
                continue
            if game.seats[seat].player != name or self._followed(game, seat, name):
                continue
            try:
                game.leave_seat(seat)
            except Exception:
                self.log.failure("xml: leaving game {game} failed", game=game.id)

    def _followed(self, game: Any, seat: int, name: str) -> bool:
        for conn in self.frontend.connections:
            if conn.closing or conn.account is None or conn.account.name != name:
                continue
            if any(o.game is game and o.seat == seat for o in conn.game_sessions.values()):
                return True
        return False

    # -- authentication/resume -----------------------------------------------------------

    async def resume(self, conn: Connection, r: events.Resume) -> Any:
        """``authentication/resume`` (see the module docstring)."""
        store = self.store
        accounts = self.frontend.hub.store
        if store is None or accounts is None:
            raise Refused(503, "sessions cannot be resumed on this hub")
        successor = secrets.token_urlsafe(32)
        writing = self._writing.get(token_hash(r.token))
        if writing is not None:  # what this hub still writes of the session comes first
            await writing
        now = float(self.reactor.seconds())
        games = await store.resume_take(
            token_hash(r.token), r.accountname, now, token_hash(successor), self._expires()
        )
        if games is None:
            raise Refused(403, BAD_TOKEN)
        try:
            account = await accounts.get_account(r.accountname)
        except Exception:
            self.abandoned(successor)
            raise Refused(403, BAD_TOKEN) from None
        if conn.state is not State.CONNECTED:  # logged in or gone meanwhile
            self.abandoned(successor)
            raise Refused(409, "already logged in")
        old = self.live.pop(token_hash(r.token), None)
        if old is not None and not old.closing:
            self._resumed_elsewhere(old)
        conn.log_in(account, self.frontend.sessions.open_lobby(conn))
        self.logged_in(conn, successor)
        self.log.info(
            "xml {conn}: {name} resumed a session from {peer}",
            conn=conn.conn_id, name=account.name, peer=conn.peer,
        )  # fmt: skip
        back: list[tuple[int, int, str]] = []
        for wid in games:
            try:
                found = self._back(conn, wid)
                entry = (await found) if isinstance(found, defer.Deferred) else found
            except Refused:  # the game
                continue
            except Exception:
                self.log.failure(
                    "xml {conn}: resuming game {game} failed", conn=conn.conn_id, game=wid
                )
                continue
            if entry is not None and not conn.closing:
                back.append(entry)
        root = encoding.build_response(
            "authentication", "resume", sessionid=conn.lobby_session, name=account.name,
            type=account.type_code, balance=encoding.money(Decimal(account.balance)),
            resumetoken=successor,
        )  # fmt: skip
        node = root.find("response/authentication/resume")
        listed = encoding.sub(node, "games")
        for wid, sid, text in back:
            encoding.sub(listed, "game", gameid=wid, sessionid=sid, description=text)
        self.changed(conn)
        return root

    def _back(self, conn: Connection, wid: int) -> Any:
        """Follow the game ``wid`` again: here, or relayed to its hub."""

        def relayed(e: Any) -> defer.Deferred:
            return self._relay(conn, wid, e)

        return self.frontend.with_game(wid, lambda game: self._rejoin(conn, game), relayed)

    def _rejoin(self, conn: Connection, game: Any) -> tuple[int, int, str] | None:
        """Follow a game of this hub again: from the seat the account holds there, else
        as a watcher; its full state follows the answer."""
        adapter = adapter_for(game.factory)
        if adapter is None or any(s.game is game for s in conn.game_sessions.values()):
            return None
        observer = self.frontend.sessions.open_game(conn, game, adapter)
        seat = seat_back(game, conn.account.name)
        observer.follow(seat)
        snapshot = observer.snapshot()
        if not conn.send_first(snapshot):
            conn.send_update(snapshot)
        self.frontend.record(conn, "out", encoding.outgoing_record(snapshot), game, seat)
        self.turn_again(observer, seat)
        text = "watching" if seat is None else f"back at seat {seat}"
        return observer.wire_id, observer.session_id, text

    def back(self, observer: GameSession, seat: int | None) -> None:
        """A relayed session whose game moved to this hub (:meth:`.relay.Relays.follow`)
        follows it here: from ``seat`` (the one the account holds), else as a
        watcher; its full state is sent, and the turn again when the seat is to act."""
        game, conn = observer.game, observer.conn
        observer.follow(seat)
        snapshot = observer.snapshot()
        self.frontend.send_game(conn, game, snapshot, seat)
        self.turn_again(observer, seat)
        self.end_again(observer, seat)

    def end_again(self, observer: GameSession, seat: int | None) -> None:
        """The game ended while the session was away (it followed the game to a hub
        where it ended before the session joined it again): the end is told after the
        state, as it came to those who were there."""
        game = observer.game
        if game.state != OVER:
            return
        events = game.events_for(seat, observer.viewer)
        last = next((e for e in reversed(events) if e.kind == GAME_OVER), None)
        if last is not None:
            observer.game_event(game, GameEvent(GAME_OVER, last.data, last.seats))

    def turn_again(self, observer: GameSession, seat: int | None) -> None:
        """The seat is to act now: its turn is announced again after the state (the
        client may have missed it), as when it came (a resume; a join back at a seat,
        :func:`.handlers.games.join_game`)."""
        game = observer.game
        turn = game.current_turn()
        if seat is None or turn is None or turn.get("seat") != seat:
            return
        name = observer.viewer
        last = next((e for e in reversed(game.events_for(seat, name)) if e.kind == TURN), None)
        if last is not None:
            observer.game_event(game, GameEvent(TURN, last.data, last.seats))

    def _relay(self, conn: Connection, wid: int, e: Any) -> defer.Deferred:
        """Join again a game another hub of the cluster runs (a relayed session)."""
        join = events.JoinGame(conn.lobby_session, wid)

        def answered(answer: bytes) -> tuple[int, int, str] | None:
            root = etree.fromstring(answer, codec.hardened_parser())
            node = root.find("response/game/join[@success='true']")
            if node is None:
                return None
            return wid, int(root.get("sessionid") or 0), node.findtext("description") or ""

        return self.frontend.relays.join(conn, join, e.elsewhere).addCallback(answered)
