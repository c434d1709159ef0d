"""The games' journal, the reactor's side (issue 31): every input of every game is
written to the store as it happens, so that the game can be made again, exactly, on
this hub after a restart or on another hub after this one died or was drained.

Three parts:

- :class:`Funnel` (one per :class:`hub.play.game.GameInstance`): every input reaches the
  game through the instance (a seat taken or left, an action, chips added, a hand
  settled, a timer due: ``tick``), and the instance hands it to its funnel *before* the
  game sees it; an input the game refuses is taken back.  Inputs made while another is
  under way (the hub's own reaction to an event) are the outer input's, and inputs
  while replaying are not journaled again.
- :class:`JournalWriter`: gathers the entries of every game and writes what gathered
  in ``journal_flush_ms`` (20 ms) in one transaction (:meth:`hub.store.journal.JournalMixin.journal_write`),
  one at a time (a chip table's barrier writes at once); while the store is away they wait and go with the next write.  A game
  has at most ``journal_max_entries`` entries: past that its journal is dropped and the
  game runs on unjournaled (it would not survive its hub; a warning says so).  The
  journal is dropped when the game ends and its history is written, or when the game is
  removed before it ended.
- :mod:`hub.play.replay`: a game made again from its journal: the same factory, config, seats
  and seed (:class:`hub.play.seeded.SeededRandom`), the entries fed in order with its clock
  replaying (:mod:`hub.play.gameclock`: ``tick`` fires the timer of that number, no waiting),
  and then live, the clock running on from where it stood.  In-hub bots are re-attached
  (they are given the turn that waits); a person's seat keeps its player, who comes back
  to it under the game's ordinary time rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from types import TracebackType
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger

from hub.model import (
    GAME_OVER,
    HAND_OVER,
    SHUFFLE,
    TURN,
    BadAction,
    Conflict,
    GameConfig,
    GameContext,
    GameEvent,
)
from hub.play.gameclock import GameClock
from hub.play.seats import Seat
from hub.store.journal import Entry, Header, Journal

#: the refusal of an input to a game sealed for its hand-over (503: a door relaying
#: it to an XML client holds the request and sends it to the game's new hub)
SEALED = "this game is moving to another hub: try again in a moment"
#: the reason of the pause of a game sealed for its hand-over (its players see
#: ``paused: `` and this; a door relaying it to an XML client follows the game)
MOVING = "the game moves to another hub (or waits for this one to restart)"


class JournalStore(Protocol):
    """What the writer needs of the store (:class:`hub.store.journal.JournalMixin`)."""

    def journal_write(
        self, headers: Sequence[Header], entries: Sequence[tuple[str, Entry]], drops: Sequence[str]
    ) -> defer.Deferred[set[str]]:
        """One transaction."""
        ...


class Sink(Protocol):
    """Where a :class:`Funnel` puts its entries (:class:`JournalWriter`)."""

    def append(self, game_id: str, kind: str, seat: int | None, payload: str, at: float) -> int:
        """Journal one input; its number (``-1``: not journaled)."""
        ...

    def retract(self, game_id: str, n: int) -> None:
        """The input ``n`` was refused: it is no input."""
        ...


#: an entry's payload as JSON text (one encoder: ``json.dumps`` with these arguments
#: would make a new one for every input)
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


#: a text as JSON, quoted (what the encoder writes for it)
_quoted = json.encoder.encode_basestring_ascii
#: makes a named tuple from all its fields, without its ``__new__``'s keyword handling
#: (an :class:`Entry` is made for every input of every game)
_new = tuple.__new__


def _text(payload: Any) -> str:
    if type(payload) is dict:  # mostly an action of a few texts: {"move":"B3"}
        if len(payload) == 1:  # (a move: one key, one text, without a list and a join)
            ((key, value),) = payload.items()
            if type(key) is str and type(value) is str:
                return "{" + _quoted(key) + ":" + _quoted(value) + "}"
        parts = []
        for key, value in payload.items():
            if type(key) is not str or type(value) is not str:
                break
            parts.append(_quoted(key) + ":" + _quoted(value))
        else:
            return "{" + ",".join(parts) + "}"
    try:
        return _ENCODER.encode(payload)
    except (TypeError, ValueError):
        raise BadAction("an input of a game is JSON") from None


class _Input:
    """:meth:`Funnel.input`'s context (a class: a generator's context manager cost
    more than the rest of the journaling of a move)."""

    __slots__ = ("_funnel", "_n", "_sink")

    def __init__(self, funnel: Funnel, sink: Sink | None, n: int) -> None:
        self._funnel = funnel
        #: where the input went (``None``: nowhere), and its number there
        self._sink = sink
        self._n = n

    def __enter__(self) -> None:
        self._funnel.depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        funnel = self._funnel
        funnel.depth -= 1
        if kind is not None and self._n >= 0 and self._sink is not None:
            self._sink.retract(funnel.game_id, self._n)


class Funnel:
    """The journal of one game's inputs (see the module's text).

    :ivar replaying: the game is being made again from its journal.
    :ivar last: (replaying) the last turn and shuffle announced, for the bots.
    """

    def __init__(self, game_id: str, clock: GameClock, sink: Sink | None) -> None:
        self.game_id = game_id
        self.clock = clock
        self.sink = sink
        self.replaying = False
        #: the hub let the game go (:meth:`seal`): it takes no input but a seat left
        self.sealed = False
        self.depth = 0
        self.last: dict[str, GameEvent] = {}

    def input(self, kind: str, seat: int | None = None, payload: Any = None) -> _Input:
        """Around one input (``with funnel.input(...):``): journaled first, taken back
        when the game refuses it."""
        sink = self.sink
        n = -1
        if self.sealed and kind not in ("leave", "dismiss") and not self.depth:
            raise Conflict(SEALED, 503)
        if sink is not None and not self.replaying and not self.depth:
            text = _text({} if payload is None else payload)
            n = sink.append(self.game_id, kind, seat, text, self.clock.seconds())
        if self.replaying and kind == "act":  # the turn it answers waits no more
            turn = self.last.get(TURN)
            if turn is not None and turn.data.get("seat") == seat:
                del self.last[TURN]
        return _Input(self, sink, n)

    def tick(self, seq: int, fire: Callable[[], None]) -> None:
        """A timer of the game is due (:class:`hub.play.gameclock.GameClock`)."""
        with self.input("tick", None, {"n": seq}):
            fire()

    def seen(self, event: GameEvent) -> None:
        """(Replaying.)  Keep what the bots must be given when the game goes live: the
        last turn announced, unless its seat acted since (a bot given a turn it had
        answered would play it again, refused) or its hand or game ended."""
        if event.kind in (TURN, SHUFFLE, GAME_OVER, HAND_OVER):
            self.last[event.kind] = event
        if event.kind in (GAME_OVER, HAND_OVER):
            self.last.pop(TURN, None)

    def settled(self, hand: str) -> None:
        """(Replaying.)  The hand ``hand`` was settled: it is owed no settlement."""
        over = self.last.get(HAND_OVER)
        if over is not None and str(over.data.get("handid")) == hand:
            del self.last[HAND_OVER]

    def release(self) -> None:
        """Another hub took the game over (this one was cut off): nothing more is
        journaled here and it takes no input; its clock stops."""
        self.clock.pause()
        self.sink = None
        self.sealed = True

    def seal(self) -> None:
        """The hub lets the game go (it stops, or hands the game on): a ``pause`` entry
        at the game time it stands still at, then nothing more is journaled."""
        with self.input("pause"):
            self.clock.pause()
        self.sink = None
        self.sealed = True


class JournaledGame(Protocol):
    """What the journal reads of a game to make its header (:class:`hub.play.game.GameInstance`)."""

    @property
    def id(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def variant(self) -> str | None: ...
    @property
    def name(self) -> str: ...
    @property
    def config(self) -> GameConfig: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def creator(self) -> str | None: ...
    @property
    def bots_only(self) -> bool: ...
    @property
    def broke_bots(self) -> str: ...
    @property
    def clock_start(self) -> float: ...
    @property
    def created(self) -> float: ...
    @property
    def context(self) -> GameContext: ...


def header_of(game: JournaledGame) -> Header:
    """What ``game`` is made again from (:func:`resume`)."""
    seats = [s.spec if s.spec != "bot" else f"bot:{s.bot}" for s in game.seats]
    data = {
        "variant": game.variant,
        "name": game.name,
        "options": dict(game.config.options),
        "seats": seats,
        "creator": game.creator,
        "bots_only": game.bots_only,
        "broke_bots": game.broke_bots,
        "start": game.clock_start,
        "created": game.created,
    }
    return Header(game.id, game.type, data, game.context.seed.hex())


# -- the writer --------------------------------------------------------------------------


class JournalWriter:
    """Gathers every game's entries and writes them at most every ``interval``
    seconds, one write at a time (module text).

    :param store: the store (:class:`JournalStore`).
    :param reactor: ``IReactorTime``.
    :param max_entries: most entries a game's journal keeps (``journal_max_entries``).
    :param max_waiting: most entries waiting for the store (``journal_max_waiting``);
        past it the games with entries waiting are no longer journaled.
    :param interval: seconds between writes at most (``journal_flush_ms``): the
        entries of every game meanwhile go in one transaction; 0 writes every reactor
        turn.  A barrier (a hand to settle) writes at once.
    """

    log = Logger()

    def __init__(
        self,
        store: JournalStore,
        reactor: Any,
        max_entries: int = 100_000,
        max_waiting: int = 200_000,
        interval: float = 0.0,
    ) -> None:
        self.store = store
        self.reactor = reactor
        self.max_entries = max_entries
        self.max_waiting = max_waiting
        self.interval = max(0.0, interval)
        self._next: dict[str, int] = {}
        self._headers: dict[str, Header] = {}
        self._entries: list[tuple[str, Entry]] = []
        self._drops: list[str] = []
        self._timer: Any = None
        self._writing: defer.Deferred[Any] | None = None
        #: games given up (past the limit, or taken by another hub)
        self.given_up: set[str] = set()
        #: entries written, and writes (transactions)
        self.written = 0
        self.writes = 0
        #: who waits for the entries not taken by a write yet, and for the write under way
        self._next_waiters: list[defer.Deferred[None]] = []
        self._writing_waiters: list[defer.Deferred[None]] = []

    # -- Sink ---------------------------------------------------------------------------

    def open(self, game: JournaledGame) -> None:
        """A new game: its header goes with the next write."""
        self._headers[game.id] = header_of(game)
        self._next[game.id] = 0
        self._schedule()

    def reopen(self, game_id: str, count: int) -> None:
        """A resumed game whose journal has ``count`` entries."""
        self._next[game_id] = count

    def append(self, game_id: str, kind: str, seat: int | None, payload: str, at: float) -> int:
        """See :class:`Sink`."""
        n = self._next.get(game_id)
        if n is None:
            return -1
        if n >= self.max_entries or len(self._entries) >= self.max_waiting:
            self._give_up(
                game_id,
                "its journal is full" if n >= self.max_entries else "the store is away too long",
            )
            return -1
        self._next[game_id] = n + 1
        self._entries.append((game_id, _new(Entry, (n, kind, seat, payload, at))))
        if self._timer is None:  # (else the next write is planned already)
            self._schedule()
        return n

    def retract(self, game_id: str, n: int) -> None:
        """See :class:`Sink`."""
        for i in range(len(self._entries) - 1, -1, -1):
            game, entry = self._entries[i]
            if game == game_id and entry.n == n:
                del self._entries[i]
                if self._next.get(game_id) == n + 1:
                    self._next[game_id] = n
                return

    def drop(self, game_id: str) -> None:
        """The game ended (history written) or was removed: its journal goes."""
        self._next.pop(game_id, None)
        if self._headers.pop(game_id, None) is not None:
            self._entries = [e for e in self._entries if e[0] != game_id]
            return  # never written
        self._entries = [e for e in self._entries if e[0] != game_id]
        self._drops.append(game_id)
        self._schedule()

    def forget(self, game_id: str) -> None:
        """Stop journaling ``game_id`` without dropping its journal (it is handed on)."""
        self._next.pop(game_id, None)

    def barrier(self) -> defer.Deferred[None]:
        """Fires once every entry appended so far is in the store (a chip table's
        hand is settled only after the inputs that made it: a resumed table then
        deals the same hand again, never another one under its key)."""
        d: defer.Deferred[None] = defer.Deferred()
        if self._headers or self._entries or self._drops:
            self._next_waiters.append(d)
            self._schedule(at_once=True)
        elif self._writing is not None:
            self._writing_waiters.append(d)
        else:
            d.callback(None)
        return d

    def journaled(self, game_id: str) -> bool:
        """Whether ``game_id`` is journaled here now."""
        return game_id in self._next

    def _give_up(self, game_id: str, why: str) -> None:
        self.log.warn(
            "game {game}: not journaled any more ({why}); it would not survive this hub",
            game=game_id,
            why=why,
        )
        self.given_up.add(game_id)
        self.drop(game_id)

    # -- writing ------------------------------------------------------------------------

    def _schedule(self, at_once: bool = False) -> None:
        if self._writing is not None:
            return
        if at_once and self._timer is not None and self._timer.getTime() > self.reactor.seconds():
            self._timer.cancel()
            self._timer = None
        if self._timer is None:
            self._timer = self.reactor.callLater(0 if at_once else self.interval, self.flush)

    def flush(self) -> defer.Deferred[Any]:
        """Write what waits now (one transaction); fires when it is written."""
        self._timer = None
        if self._writing is not None:
            return self._writing
        if not (self._headers or self._entries or self._drops):
            return defer.succeed(None)
        headers, self._headers = list(self._headers.values()), {}
        entries, self._entries = self._entries, []
        drops, self._drops = self._drops, []
        d = self.store.journal_write(headers, entries, drops)
        self._writing = d
        waiters, self._next_waiters = self._next_waiters, []
        self._writing_waiters = waiters

        def written(lost: set[str]) -> None:
            self.written += len(entries)
            self.writes += 1
            for waiter in waiters:
                waiter.callback(None)
            for game_id in sorted(lost):
                if game_id in self._next:
                    self.log.warn("game {game}: its journal is another hub's now", game=game_id)
                    self.forget(game_id)

        def failed(failure: Any) -> bool:  # kept for the next write
            self._headers = {h.game_id: h for h in headers} | self._headers
            self._entries = entries + self._entries
            self._drops = drops + self._drops
            for waiter in waiters:  # (the store is away, say: they try again)
                waiter.errback(failure)
            self.log.warn("journal: not written now ({e}); kept", e=failure.getErrorMessage())
            return False

        def done(result: Any) -> Any:
            self._writing = None
            self._writing_waiters = []
            if self._headers or self._entries or self._drops:
                wait = (0.0 if self._next_waiters else self.interval) if result is None else 1.0
                self._timer = self.reactor.callLater(wait, self.flush)
            return result

        d.addCallbacks(written, failed)
        d.addBoth(done)
        return d

    @defer.inlineCallbacks
    def drain(self, timeout: float = 10.0) -> Any:
        """Write everything waiting (at most ``timeout`` seconds of tries)."""
        deadline = self.reactor.seconds() + timeout
        while self._headers or self._entries or self._drops or self._writing is not None:
            if self.reactor.seconds() > deadline:
                break
            if self._writing is not None:
                yield self._writing
            else:
                if self._timer is not None and self._timer.active():
                    self._timer.cancel()
                result = yield self.flush()
                if result is not None:  # it failed: wait a little
                    yield _sleep(self.reactor, 0.5)


def _sleep(reactor: Any, seconds: float) -> defer.Deferred[None]:
    d: defer.Deferred[None] = defer.Deferred()
    reactor.callLater(seconds, d.callback, None)
    return d


def payload_of(**fields: Any) -> Mapping[str, Any]:
    """A journal payload with its amounts as text (``Decimal`` is no JSON)."""
    return {k: (str(v) if isinstance(v, Decimal) else v) for k, v in fields.items()}


__all__ = [
    "Funnel",
    "Journal",
    "JournalStore",
    "JournalWriter",
    "JournaledGame",
    "Sink",
    "header_of",
    "payload_of",
]
