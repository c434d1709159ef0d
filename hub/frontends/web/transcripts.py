"""``GET /api/games/<id>/transcript[?tail=N]``: a transcript, by permission, streamed.

Who reads what (docs/privacy.md): an admin (the API token, or a session of an admin
account) reads everything; a player reads the lines of their own connections (XML
connections of their account, their web session); anyone else reads a game's
transcript only once the game is over, without the lines private to a seat.  Lobby
transcripts (``lobby-xml``) are for admins only.

The files are read block by block as the client takes them (a pull producer): a GET
never reads a whole transcript into memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from twisted.internet.interfaces import IPullProducer
from twisted.logger import Logger
from twisted.web.server import NOT_DONE_YET
from zope.interface import implementer

from hub.connections.transcript import is_lobby
from hub.connections.transcript_access import Access, stream
from hub.interfaces import IHub
from hub.model import OVER, GameError

MAX_TAIL = 100_000
#: blocks scanned in one reactor turn before the next turn is taken
SCAN_PER_TURN = 16


@implementer(IPullProducer)
class ChunkProducer:
    """Writes the chunks of an iterator to a request as the client reads them."""

    log = Logger()

    def __init__(self, request: Any, chunks: Iterator[bytes], clock: Any) -> None:
        self.request = request
        self.chunks = chunks
        self.clock = clock
        self.done = False
        self._later: Any = None
        request.notifyFinish().addErrback(lambda _: self.stopProducing())
        request.registerProducer(self, False)

    def resumeProducing(self) -> None:
        """Write the next chunk (finish at the end)."""
        self._later = None
        if self.done:
            return
        for _ in range(SCAN_PER_TURN):
            try:
                chunk = next(self.chunks)
            except StopIteration:
                self._finish()
                return
            except OSError:
                self.log.failure("reading a transcript failed")
                self._finish()
                return
            if chunk:
                self.request.write(chunk)
                return
        self._later = self.clock.callLater(0, self.resumeProducing)

    def _finish(self) -> None:
        self.done = True
        self.request.unregisterProducer()
        self.request.finish()

    def stopProducing(self) -> None:
        """The client went away."""
        self.done = True
        if self._later is not None and self._later.active():
            self._later.cancel()
        self._later = None
        close = getattr(self.chunks, "close", None)  # foreign: any iterable, a generator closes
        if close is not None:
            close()


def tail_of(request: Any) -> int | None:
    """The ``tail`` argument (1 to :data:`MAX_TAIL`), or ``None``.

    :raises hub.model.GameError: 400 for anything else.
    """
    values = request.args.get(b"tail")
    if not values:
        return None
    text = values[0].decode("ascii", "replace")
    if not text.isdigit() or not 1 <= int(text) <= MAX_TAIL:
        raise GameError(f"tail must be a whole number from 1 to {MAX_TAIL}", 400)
    return int(text)


def serve(hub: IHub, request: Any, name: str, admin: bool, owners: frozenset[str]) -> Any:
    """Answer a transcript GET (``NOT_DONE_YET``: it is being streamed).

    :raises hub.model.GameError: 400 bad ``tail``, 401 no credentials (no session,
        no token) for what needs some, 403 a session that is not an admin's for a lobby
        transcript, 404 none.
    """
    tail = tail_of(request)
    transcripts = hub.transcripts
    if name in hub.lobby.sealed and not admin:  # a sealed game: the operator's alone
        raise GameError("no such game or transcript", 404)
    try:
        game = hub.lobby.get(name)
    except GameError:
        game = None
    if is_lobby(name):
        if not admin:  # no credentials (401) or a session's that are not an admin's (403)
            raise GameError("lobby transcripts are for admins only", 403 if owners else 401)
        public = False
    else:
        public = game is None or game.state == OVER
    access = Access(admin=admin, owners=owners, public=public)
    live = game.transcript if game is not None else None
    parts = live.paths() if live is not None else None
    if live is None and transcripts is not None:
        parts = transcripts.paths(name)
    if not parts and game is None:
        raise GameError("no such game or transcript", 404)
    if access.nothing:  # no credentials at all: a session or the token would read
        raise GameError(
            "the transcript of a game in play is for its players and admins; "
            "everyone may read it once the game is over",
            401,
        )
    request.setResponseCode(200)
    request.setHeader(b"content-type", b"text/plain; charset=utf-8")
    request.setHeader(b"cache-control", b"no-store")
    ChunkProducer(request, stream(parts or [], access, tail), hub.reactor)
    return NOT_DONE_YET
