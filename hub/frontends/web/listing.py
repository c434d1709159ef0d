"""``GET /api/games``: the lobby list in O(page), from an index kept by lobby changes.

The list is kept as an index (:class:`GameIndex`): every game the lobby lists
(:meth:`hub.service.GamehubService.listed_games`) has a sequence number in the order the
index learnt of it, and sorted lists of those numbers are kept for every type, every
state and every type with a state, updated on each lobby change (``ILobbyListener``).
A request reads one or a few of those lists from its cursor (a bisection) and renders
only the games of its page, each game's JSON rendered once per change and shared by
every page that shows it; the answer (bytes and ``ETag``) is kept until the next
change, so a repeated request costs a dictionary look-up and an ``If-None-Match``
that still matches is answered ``304 Not Modified`` without a body.

The body stays what it always was, a JSON list of games (spec web.md), here one page
of it; the paging is in the headers: ``Link: <...>; rel="next"`` and
``X-Next-Cursor`` when there is more, ``X-Total-Count`` (the games that match).

Query arguments (each optional; a bad value is a ``400`` that names it):

- ``limit``: games a page, 1 to :data:`MOST` (default :data:`DEFAULT_LIMIT`);
- ``cursor``: the ``X-Next-Cursor`` of the page before (opaque; bound to the order);
- ``type``: one game type; ``state``: ``waiting``, ``running`` or ``over``, or several
  separated by commas;
- ``order``: ``oldest`` (the default, as before) or ``newest`` first.

A cursor names the last game of its page by its sequence number, so games that are
added or removed between two pages neither repeat nor skip a game that stays.
"""

from __future__ import annotations

import base64
import heapq
import itertools
import json
import secrets
import zlib
from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from zope.interface import implementer

from hub.interfaces import IHub, ILobbyListener
from hub.model import GameError

#: most games a page
MOST = 500
#: games a page unless the query says: the most (clients of the unpaged list see up
#: to 500 games as before)
DEFAULT_LIMIT = MOST
#: the states a game is listed in
STATES = ("waiting", "running", "over")
#: rendered pages kept between two changes
CACHED_PAGES = 256
#: ``order`` values → whether the newest come first
ORDERS = {"oldest": False, "newest": True}


@dataclass
class _Entry:
    """One listed game: its sequence number, type and state as indexed, its JSON."""

    seq: int
    game: Any
    type: str
    state: str
    raw: bytes | None = None


@dataclass(frozen=True)
class Query:
    """One request's page: filters, order, where it starts and how long it is."""

    type: str | None
    states: tuple[str, ...]
    newest: bool
    after: int | None
    limit: int

    def arguments(self, cursor: str) -> str:
        """The query string of the next page (``cursor`` its start)."""
        args: list[tuple[str, str]] = [("limit", str(self.limit))]
        if self.type is not None:
            args.append(("type", self.type))
        if self.states:
            args.append(("state", ",".join(self.states)))
        if self.newest:
            args.append(("order", "newest"))
        args.append(("cursor", cursor))
        return urlencode(args)


#: the headers every page of the list is answered with, before its own
PAGE_HEADERS = (
    (b"content-type", b"application/json; charset=utf-8"),
    (b"cache-control", b"no-cache"),
)


@dataclass(frozen=True)
class Page:
    """A rendered page: its body, ``ETag`` and paging headers, and every header of its
    answer (:data:`PAGE_HEADERS`, the ``ETag``, the paging headers) in the order set."""

    body: bytes
    etag: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    answer: tuple[tuple[bytes, bytes], ...] = ()


def encode_cursor(seq: int, newest: bool) -> str:
    """The opaque cursor after the game numbered ``seq`` in one order."""
    text = f"{'n' if newest else 'o'}{seq}".encode("ascii")
    return base64.urlsafe_b64encode(text).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, newest: bool) -> int:
    """The sequence number a cursor of :func:`encode_cursor` names.

    :raises hub.model.GameError: 400, not such a cursor or one of the other order.
    """
    bad = GameError("cursor is not one this hub gave (X-Next-Cursor of the page before)", 400)
    if not 1 <= len(cursor) <= 32:
        raise bad
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        raise bad from None
    if text[:1] != ("n" if newest else "o") or not text[1:].isdigit():
        if text[:1] in ("n", "o") and text[1:].isdigit():
            raise GameError("cursor belongs to the other order", 400)
        raise bad
    return int(text[1:])


@implementer(ILobbyListener)
class GameIndex:
    """The listed games, indexed by type and state in the order they were listed.

    :param hub: the hub service (``listed_games``, ``follow_games``, ``game_json``).
    :param types: ``() → names``: the game types a ``type`` filter may name.
    """

    def __init__(self, hub: IHub, types: Callable[[], Any] | None = None) -> None:
        self.hub = hub
        self._types = types
        self._numbers = itertools.count(1)
        self._entries: dict[str, _Entry] = {}
        self._by_seq: dict[int, _Entry] = {}
        #: (type or None, state or None) → sorted sequence numbers
        self._lists: dict[tuple[str | None, str | None], list[int]] = {(None, None): []}
        #: changes so far: part of every ETag
        self.generation = 0
        self._epoch = secrets.token_hex(4)
        self._pages: OrderedDict[Query, Page] = OrderedDict()
        #: request URIs already read (a bounded cache: the same poll is parsed once)
        self._queries: dict[bytes, Query] = {}
        #: request URI → its page, until the next change (at most :data:`CACHED_PAGES`):
        #: a repeated poll is one look-up
        self._served: dict[bytes, Page] = {}
        for game in hub.listed_games():
            self._add(game)
        hub.follow_games(self)

    def close(self) -> None:
        """Stop following the lobby (the front end stops)."""
        self.hub.unfollow_games(self)

    def __len__(self) -> int:
        return len(self._entries)

    # -- keeping the index --------------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """A game was created, changed or removed: update its lists, forget pages
        (nothing of a sealed game: listed once it is unsealed, as a change)."""
        if game.id in self.hub.lobby.sealed:
            return
        self.generation += 1
        if self._pages:
            self._pages.clear()
        if self._served:
            self._served.clear()
        entry = self._entries.get(game.id)
        if change == "removed":
            if entry is not None:
                self._drop(entry)
            return
        if entry is None:
            self._add(game)
            return
        entry.game = game  # a remote game comes as a new record with each change
        entry.raw = None
        state = str(game.state)
        if state != entry.state:
            self._unlist(entry)
            entry.state = state
            self._list(entry)

    def _add(self, game: Any) -> None:
        entry = _Entry(next(self._numbers), game, str(game.type), str(game.state))
        self._entries[game.id] = entry
        self._by_seq[entry.seq] = entry
        self._lists[(None, None)].append(entry.seq)
        self._list(entry)

    def _drop(self, entry: _Entry) -> None:
        del self._entries[entry.game.id]
        del self._by_seq[entry.seq]
        _remove(self._lists[(None, None)], entry.seq)
        self._unlist(entry)

    def _keys(self, entry: _Entry) -> tuple[tuple[str | None, str | None], ...]:
        return ((entry.type, None), (None, entry.state), (entry.type, entry.state))

    def _list(self, entry: _Entry) -> None:
        for key in self._keys(entry):
            insort(self._lists.setdefault(key, []), entry.seq)

    def _unlist(self, entry: _Entry) -> None:
        for key in self._keys(entry):
            numbers = self._lists.get(key)
            if numbers is not None:
                _remove(numbers, entry.seq)
                if not numbers:
                    del self._lists[key]

    # -- reading it -----------------------------------------------------------------------

    def query(self, args: dict[bytes, list[bytes]]) -> Query:
        """The page a request's query arguments ask for.

        :raises hub.model.GameError: 400, a bad value (named).
        """

        def one(name: str) -> str | None:
            values = args.get(name.encode())
            return values[0].decode("utf-8", "replace") if values else None

        text = one("limit")
        limit = DEFAULT_LIMIT
        if text is not None:
            if not text.isdigit() or not 1 <= int(text) <= MOST:
                raise GameError(f"limit must be a whole number from 1 to {MOST}", 400)
            limit = int(text)
        order = one("order") or "oldest"
        if order not in ORDERS:
            raise GameError("order must be 'oldest' or 'newest'", 400)
        newest = ORDERS[order]
        type_name = one("type") or None
        if type_name is not None and not self._known_type(type_name):
            raise GameError(f"no game type {type_name[:40]!r} is listed or installed", 400)
        states: tuple[str, ...] = ()
        text = one("state")
        if text:
            wanted = set(text.split(","))
            if not wanted <= set(STATES):
                raise GameError(f"state must be one or more of {', '.join(STATES)}", 400)
            states = tuple(s for s in STATES if s in wanted)
            if len(states) == len(STATES):
                states = ()
        cursor = one("cursor")
        after = decode_cursor(cursor, newest) if cursor else None
        return Query(type_name, states, newest, after, limit)

    def _known_type(self, name: str) -> bool:
        if any(key[0] == name for key in self._lists):
            return True
        return self._types is not None and name in self._types()

    def page(self, query: Query) -> Page:
        """The rendered page of ``query``: kept until the next change."""
        cached = self._pages.get(query)
        if cached is not None:
            self._pages.move_to_end(query)
            return cached
        keys: list[tuple[str | None, str | None]] = [(query.type, s) for s in query.states]
        keys = keys or [(query.type, None)]
        lists = [self._lists.get(key, []) for key in keys]
        total = sum(len(numbers) for numbers in lists)
        merged = heapq.merge(
            *(_from(numbers, query.after, query.newest) for numbers in lists),
            reverse=query.newest,
        )
        shown = list(itertools.islice(merged, query.limit + 1))
        more = len(shown) > query.limit
        entries = [self._by_seq[seq] for seq in shown[: query.limit]]
        body = b"[" + b",".join(self._raw(e) for e in entries) + b"]\n"
        key = repr(query).encode("utf-8")
        etag = f'"{self._epoch}-{self.generation}-{zlib.crc32(key):08x}"'.encode("ascii")
        headers = [(b"x-total-count", str(total).encode("ascii"))]
        if more:
            cursor = encode_cursor(entries[-1].seq, query.newest)
            headers.append((b"x-next-cursor", cursor.encode("ascii")))
            link = f'</api/games?{query.arguments(cursor)}>; rel="next"'
            headers.append((b"link", link.encode("utf-8")))
        page = Page(body, etag, tuple(headers), (*PAGE_HEADERS, (b"etag", etag), *headers))
        self._pages[query] = page
        while len(self._pages) > CACHED_PAGES:
            self._pages.popitem(last=False)
        return page

    def _raw(self, entry: _Entry) -> bytes:
        if entry.raw is None:
            data = self.hub.game_json(entry.game)
            entry.raw = json.dumps(data, default=str, separators=(",", ":")).encode("utf-8")
        return entry.raw

    def serve(self, request: Any) -> bytes:
        """Answer ``GET /api/games`` (a page, ``304`` or a ``400``)."""
        uri = request.uri
        page = self._served.get(uri)
        if page is None:
            try:
                page = self.page(self._query(uri, request.args))
            except GameError as e:
                request.setResponseCode(e.code)
                request.setHeader(b"content-type", PAGE_HEADERS[0][1])
                request.setHeader(b"cache-control", b"no-store")
                request.refusal = e.reason
                return json.dumps({"error": e.reason}).encode("utf-8") + b"\n"
            if len(self._served) >= CACHED_PAGES:
                self._served.clear()
            self._served[uri] = page
        headers = request.responseHeaders
        for name, value in page.answer:
            headers.setRawHeaders(name, [value])  # request.setHeader, one call less
        sent = request.requestHeaders.getRawHeaders(b"if-none-match")
        if sent is not None and _matches(sent[0], page.etag):
            request.setResponseCode(304)
            return b""
        return page.body

    def _query(self, uri: bytes, args: dict[bytes, list[bytes]]) -> Query:
        """The query of a request URI (read once while it is remembered)."""
        query = self._queries.get(uri)
        if query is None:
            query = self.query(args)
            if len(self._queries) >= CACHED_PAGES:
                self._queries.clear()
            self._queries[uri] = query
        return query


def _from(numbers: list[int], after: int | None, newest: bool) -> Iterator[int]:
    """The numbers of a sorted list past ``after`` in the order asked."""
    if not newest:
        start = 0 if after is None else bisect_right(numbers, after)
        return (numbers[i] for i in range(start, len(numbers)))
    end = len(numbers) if after is None else bisect_left(numbers, after)
    return (numbers[i] for i in range(end - 1, -1, -1))


def _remove(numbers: list[int], seq: int) -> None:
    i = bisect_left(numbers, seq)
    if i < len(numbers) and numbers[i] == seq:
        del numbers[i]


def _matches(header: Any, etag: bytes) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak or strong, or ``*``)."""
    if not header:
        return False
    text = header.encode("latin-1") if isinstance(header, str) else bytes(header)
    for tag in text.split(b","):
        tag = tag.strip()
        if tag == b"*" or tag.removeprefix(b"W/") == etag:
            return True
    return False
