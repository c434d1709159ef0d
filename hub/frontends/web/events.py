"""Live updates for the browser: server-sent event streams (``text/event-stream``).

``GET /api/games/<id>/events`` opens a :class:`GameStream`: an ``IGameObserver`` of the
game that sees the events the viewer's seat may see (a seated person's stream is their
connection: what it sends is recorded in the game's transcript as ``out``).  It first sends a ``snapshot``
(the game, the viewer's view and legal actions), then each game event as ``game``
and, after each burst of events, a fresh ``view``.  ``GET /api/lobby/events`` opens a
:class:`LobbyStream` with the list of games first and then every change.

Every stream sends a comment line as heartbeat, tells the browser to reconnect after
two seconds (``retry``), and is closed (``removed`` event) when its game is removed.
When the HTTP connection drops, the stream stops observing at once.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections.access import client_host
from hub.connections.chat import LOBBY
from hub.interfaces import IChatListener, IGameObserver, IHub, ILobbyListener
from hub.model import TURN

from .listing import GameIndex, Query

RETRY_MS = 2000
HEARTBEAT = 15.0


def sse_frame(event: str, data: Any) -> bytes:
    """One server-sent event; ``data`` is sent as one line of JSON."""
    text = json.dumps(data, default=str, separators=(",", ":"))
    return f"event: {event}\ndata: {text}\n\n".encode()


class EventStream:
    """One open ``text/event-stream`` response.

    :param streams: the :class:`Streams` that keeps it (it unregisters itself).
    """

    log = Logger()

    def __init__(self, request: Any, streams: Streams) -> None:
        self.request = request
        self.streams = streams
        self.open = True
        self.address = str(client_host(request) or "")
        request.setResponseCode(200)
        request.setHeader(b"content-type", b"text/event-stream; charset=utf-8")
        request.setHeader(b"cache-control", b"no-store")
        request.setHeader(b"x-accel-buffering", b"no")
        request.write(f"retry: {RETRY_MS}\n\n".encode())
        self._heartbeat = LoopingCall(self.heartbeat)
        self._heartbeat.clock = streams.clock
        self._heartbeat.start(streams.heartbeat, now=False)
        request.notifyFinish().addBoth(self._finished)
        streams.add(self)

    def send(self, event: str, data: Any) -> None:
        """Write one event (nothing once the stream is closed)."""
        if self.open:
            self.request.write(sse_frame(event, data))

    def write(self, frame: bytes) -> None:
        """Write one event made by :func:`sse_frame` once for many streams."""
        if self.open:
            self.request.write(frame)

    def heartbeat(self) -> None:
        """A comment line that keeps proxies and the browser's connection awake."""
        if self.open:
            self.request.write(b": ping\n\n")

    def close(self, event: str | None = None, data: Any = None) -> None:
        """Send a last event and end the response."""
        if not self.open:
            return
        if event is not None:
            self.send(event, data)
        self.request.finish()
        self._gone()

    def _finished(self, _: Any) -> None:
        self._gone()

    def _gone(self) -> None:
        if not self.open:
            return
        self.open = False
        if self._heartbeat.running:
            self._heartbeat.stop()
        self.streams.discard(self)
        self.detach()

    def detach(self) -> None:
        """Stop listening to the hub (subclasses)."""


@implementer(IGameObserver)
class GameStream(EventStream):
    """Events of one game as seen from ``seat`` (``None``: a spectator)."""

    def __init__(
        self,
        request: Any,
        streams: Streams,
        game: Any,
        seat: int | None,
        conn: str | None = None,
        player: str | None = None,
        owner: str | None = None,
        viewer: str | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        #: who watches (the browser session's name), listed among the game's watchers
        self.viewer = viewer
        #: who sits at ``seat``; the stream ends when the seat is no longer theirs
        self.player = player
        #: the player's connection name in the transcript (``None``: not recorded)
        self.conn = conn
        #: whose lines these are in the transcript (``Session.owner``)
        self.owner = owner
        self._refresh: Any = None
        super().__init__(request, streams)
        self.send("snapshot", streams.snapshot(game, seat, player, full=True))
        game.observe(self, seat)

    def _still_seated(self) -> bool:
        if self.seat is None or self.player is None:
            return True
        record = self.game.seats[self.seat]
        return record.player == self.player and record.present

    def game_event(self, game: Any, event: Any) -> None:
        """Forward the event, then (once the burst is over) a fresh view.

        A seated stream whose seat no longer belongs to its player (left, reopened,
        taken by someone else) ends with ``seat-lost`` before it could see anything
        meant for the seat; the page reconnects as a spectator.
        """
        if not self._still_seated():
            self.close("seat-lost", {"seat": self.seat})
            return
        data = {"kind": event.kind, "data": dict(event.data)}
        if event.kind == TURN:
            # the server's deadline: a page that redraws or reconnects shows the same clock
            data["data"].update(game.turn_clock())
        self.send("game", data)
        transcript = self.game.transcript
        if self.open and self.conn is not None and transcript is not None:
            text = json.dumps(data, default=str, separators=(",", ":"))
            private = self.seat if event.seats is not None else None
            transcript.record(self.conn, "out", text, owner=self.owner, seat=private)
        self.refresh()

    def refresh(self) -> None:
        """Send a fresh view once the current burst of changes is over."""
        if self.open and not self._still_seated():
            self.close("seat-lost", {"seat": self.seat})
            return
        if self.open and (self._refresh is None or not self._refresh.active()):
            self._refresh = self.streams.clock.callLater(0, self._send_view)

    def _send_view(self) -> None:
        self._refresh = None
        if self.open:
            self.send("view", self.streams.snapshot(self.game, self.seat, self.player))

    def detach(self) -> None:
        """Stop observing the game."""
        if self._refresh is not None and self._refresh.active():
            self._refresh.cancel()
        self._refresh = None
        self.game.unobserve(self)


class LobbyStream(EventStream):
    """One page of the list of games (``query``: :class:`.listing.Query`), then every
    change to the list (changes only: one game's JSON, or its removal)."""

    def __init__(self, request: Any, streams: Streams, query: Query | None = None) -> None:
        super().__init__(request, streams)
        index = streams.index
        if index is not None:
            page = index.page(query if query is not None else index.query({}))
            games = json.loads(page.body)
        else:
            games = [streams.game_json(g) for g in streams.hub.listed_games()]
        chat = [line.to_json() for line in streams.chat.history(LOBBY)]
        self.send("snapshot", {"games": games, "chat": chat})


@implementer(ILobbyListener, IChatListener)
class Streams:
    """Every open stream of the web front end; the lobby listener that feeds them.

    :param hub: the hub service (``lobby``, ``bound_ports``).
    :param clock: ``IReactorTime``.
    :param snapshot: ``(game, seat, player, full=False) → dict``: what a game stream
        sends as ``view`` (and, ``full``, as ``snapshot``).
    """

    def __init__(self, hub: IHub, clock: Any, snapshot: Any, heartbeat: float = HEARTBEAT):
        self.hub = hub
        self.lobby = hub.lobby
        self.chat = hub.chat
        self.clock = clock
        self.snapshot = snapshot
        self.heartbeat = heartbeat
        self._streams: set[EventStream] = set()
        self._per_address: Counter[str] = Counter()
        self._changed: dict[str, Any] = {}
        self._flush: Any = None
        #: the lobby list's index (:class:`.listing.GameIndex`): a lobby stream's
        #: snapshot is one page of it; ``None``: every listed game
        self.index: GameIndex | None = None
        hub.follow_games(self)
        self.chat.add_listener(self)

    def __len__(self) -> int:
        return len(self._streams)

    def game_json(self, game: Any) -> dict[str, Any]:
        """A game as the lobby list shows it."""
        return self.hub.game_json(game)

    def add(self, stream: EventStream) -> None:
        """Keep ``stream`` (until it is gone)."""
        if stream not in self._streams:
            self._streams.add(stream)
            self._per_address[stream.address] += 1

    def discard(self, stream: EventStream) -> None:
        """Forget ``stream``."""
        if stream in self._streams:
            self._streams.discard(stream)
            self._per_address[stream.address] -= 1
            if self._per_address[stream.address] <= 0:
                del self._per_address[stream.address]

    def from_address(self, address: str) -> int:
        """How many streams are open to ``address``."""
        return self._per_address.get(address, 0)

    def lobby_changed(self, change: str, game: Any) -> None:
        """Tell lobby streams and the game's streams (batched per reactor turn); close
        the streams of removed games; nothing of a sealed game (its streams cannot
        be opened)."""
        if game.id in self.lobby.sealed:
            return
        if change == "removed":
            self._changed.pop(game.id, None)
            frame = sse_frame("removed", {"id": game.id})
            for stream in list(self._streams):
                if isinstance(stream, GameStream) and stream.game is game:
                    stream.close("removed", {"id": game.id})
                elif isinstance(stream, LobbyStream):
                    stream.write(frame)
            return
        self._changed[game.id] = game
        if self._flush is None or not self._flush.active():
            self._flush = self.clock.callLater(0, self._send_changes)

    def _send_changes(self) -> None:
        self._flush = None
        changed, self._changed = self._changed, {}
        if not changed:
            return
        for stream in list(self._streams):
            if isinstance(stream, GameStream) and stream.game.id in changed:
                stream.refresh()  # seats or state changed, perhaps without a game event
        lobby_streams = [s for s in self._streams if isinstance(s, LobbyStream)]
        if not lobby_streams:
            return
        # each change is rendered once for the whole audience
        frames = [sse_frame("game", self.game_json(g)) for g in changed.values()]
        for stream in lobby_streams:
            for frame in frames:
                stream.write(frame)

    def chat_line(self, line: Any) -> None:
        """A chat line goes to the lobby's streams or to the streams of its game."""
        if not self._streams:
            return
        frame = sse_frame("chat", line.to_json())  # once for every stream of the room
        for stream in list(self._streams):
            if line.room == LOBBY and isinstance(stream, LobbyStream):
                stream.write(frame)
            elif isinstance(stream, GameStream) and stream.game.id == line.room:
                stream.write(frame)

    def close_all(self) -> None:
        """End every stream and stop listening (the front end stops)."""
        self.hub.unfollow_games(self)
        self.chat.remove_listener(self)
        if self._flush is not None and self._flush.active():
            self._flush.cancel()
        for stream in list(self._streams):
            stream.close()
