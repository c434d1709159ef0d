"""The hub half of the kit: :class:`Game`, an :class:`~hub.kit.engine.Engine` that is
also its own game type (``IGameFactory``), and :class:`KitGame`, the ``IGame`` it
creates, which does the seating, the turns, the move clock, the events and the end.

A kit game is played on every front end with no adapter code: the XML front end gets
the hub's JSON payloads (``<action>{"move": …}</action>`` in,
``<event kind=…>{json}</event>`` out, a fresh ``<view>`` after every move), the web
front end the generic page (the text view, the legal moves as buttons, the clock), and
any kit game is playable by the generic bots (``hub.kit.search``).

Events (``GameEvent.kind`` and data): ``seated`` {seat, name}, ``seat_open`` {seat},
``state`` {state}, ``turn`` {seat, legal, timeleft_ms}, ``moved`` {seat, move, label},
``left`` {seat}, ``timeout`` {seats}, ``over`` {result}.  A legal action is
``{"move": <the move as JSON>, "label": <its words>}`` (and ``"play"``: its ``PLAY``
text, in a game that declares a board, :mod:`hub.kit.board`); an action is
``{"move": …}`` (a ``label`` or ``play`` in it is ignored).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from zope.interface import alsoProvides, classImplements

from hub.interfaces import IGame, IGameFactory, IGameOptions
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    SEAT_OPEN,
    STATE,
    TURN,
    WAITING,
    BadAction,
    Conflict,
    GameEvent,
    IllegalAction,
)
from hub.optional_interfaces import IExhaustiveLegal, IFullViewAfter
from hub.web_seams import IGameRules

from .engine import (
    Engine,
    Json,
    KitError,
    Option,
    Options,
    check_options,
    jsonable,
    outcome_words,
    winners,
)
from .events import LEFT, MOVED, SEATED, TIMEOUT
from .seams import Config, Context, DelayedCall

S = TypeVar("S")
M = TypeVar("M")

#: the option every kit game has: a move's time, in milliseconds
MOVE_TIME = "move_time"
#: options the hub itself puts in a game's options (not the game's to check)
HUB_OPTIONS = frozenset({"bot_seed"})
#: the front ends a kit game is played on with no adapter code
FRONTENDS = ("xml", "web")

#: game type name → the kit game type loaded under it (what the generic bots play)
#: (each type its own state and move types: the registry cannot say them)
_TYPES: weakref.WeakValueDictionary[str, Game[Any, Any]] = weakref.WeakValueDictionary()


def loaded_types() -> list[str]:
    """The names of the kit game types loaded in this process."""
    return sorted(_TYPES)


def game_type(name: str) -> Game[Any, Any] | None:
    """The kit game type loaded as ``name``, or ``None``."""
    return _TYPES.get(name)


def move_time_option(move_ms: int) -> Option:
    """The ``move_time`` option of a game whose moves take ``move_ms`` by default."""
    return Option(
        MOVE_TIME, "int", move_ms, "time per move", 100, 3_600_000, unit="ms",
        for_people=max(move_ms, 60_000),
    )  # fmt: skip


class Game(Engine[S, M]):
    """A game written on the kit: subclass ``Game[State, Move]``, write the engine's
    methods (:class:`~hub.kit.engine.Engine`), and name the class as the ``.meta``'s
    ``server``.  The hub instantiates it with no arguments; it is the game type.

    ``frontends`` are those the game is played on (``xml`` and ``web`` by default: no
    adapter code); ``adapters`` may give a front end's adapter of the game's own (a
    web view with a page script, an MNM board): front end → a class of the plugin
    instantiated with no arguments."""

    variants: ClassVar[tuple[str, ...]] = ()
    frontends: ClassVar[tuple[str, ...]] = FRONTENDS
    adapters: ClassVar[Mapping[str, Callable[[], object]]] = {}
    #: an action names its move under this key; the legal moves are all of them
    #: (``IExhaustiveLegal``: a host may refuse any other move without asking the game)
    legal_key: ClassVar[str] = "move"
    #: over XML the whole view follows the start and every move (``IFullViewAfter``)
    snapshot_kinds: ClassVar[frozenset[str]] = frozenset({MOVED, STATE})

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.default_seats is None:
            cls.default_seats = cls.min_seats
        if cls.board is not None:  # played over MNM too: a two-player game only
            if (cls.min_seats, cls.max_seats) != (2, 2):
                raise KitError(f"{cls.__name__} declares a board: it must have two seats")
            if "mnm" not in cls.frontends:
                cls.frontends = (*cls.frontends, "mnm")
        if not any(o.name == MOVE_TIME for o in cls.options):
            cls.options = (*cls.options, move_time_option(cls.move_ms))

    def __init__(self) -> None:
        if self.rules is not None:
            alsoProvides(self, IGameRules)
        if self.name:
            _TYPES[self.name] = self

    def create(self, config: Config, context: Context) -> KitGame[S, M]:
        """A new game (the options checked: a :class:`hub.model.BadAction` if not)."""
        return KitGame(self, config, context)

    def adapter(self, frontend: str) -> object | None:
        """The adapter of ``frontend``: the game's own (``adapters``), else the kit's
        (over XML none: the generic payloads, a full view after every move,
        :class:`~hub.optional_interfaces.IFullViewAfter`)."""
        own = self.adapters.get(frontend)
        if own is not None:
            return own()
        if frontend == "mnm" and self.board is not None:
            from .mnm import KitMNMAdapter

            return KitMNMAdapter(self.board)
        return None


class KitGame(Generic[S, M]):
    """One game of a kit game type: the engine's state, the players, the clock.

    It starts when every seat is taken.  A player who leaves a running game, or whose
    move clock runs out, loses it (the others win); otherwise the engine's
    ``result`` ends it.
    """

    def __init__(self, engine: Engine[S, M], config: Config, context: Context) -> None:
        self.engine = engine
        self.seats = config.seats
        self._clock = context.clock
        self._emit = context.emit
        given = {k: v for k, v in config.options.items() if k not in HUB_OPTIONS}
        try:
            self.options: Options = check_options(engine.options, given)
            self.move_ms = self.options.integer(MOVE_TIME) if MOVE_TIME in self.options else 60_000
            self.position: S = engine.setup(self.options, self.seats, context.rng)
        except KitError as e:
            raise BadAction(e.reason) from None
        self.names: dict[int, str] = {}
        self.started = False
        self.moves = 0
        #: the seats that lost by leaving or by the clock, and how
        self.losers: tuple[int, ...] = ()
        self.ended_by = ""
        self._timer: DelayedCall | None = None
        self._deadline: float | None = None

    # -- IGame ----------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``waiting`` for players, ``running``, then ``over``."""
        if not self.started:
            return WAITING
        if self.losers or self.ended_by or self.engine.result(self.position) is not None:
            return OVER
        return RUNNING

    def seat_player(self, seat: int, name: str) -> None:
        """Seat ``name``; the game starts when every seat is taken."""
        if not 0 <= seat < self.seats:
            raise BadAction(f"this game has seats 0 to {self.seats - 1}, not {seat}")
        if seat in self.names:
            raise Conflict(f"seat {seat} is taken")
        if self.started:
            raise IllegalAction("the game has started")
        self.names[seat] = name
        self._emit(GameEvent(SEATED, {"seat": seat, "name": name}))
        if len(self.names) == self.seats:
            self.started = True
            self._emit(GameEvent(STATE, {"state": RUNNING}))
            self._next()

    def leave(self, seat: int) -> None:
        """Before the start the seat opens again; later the leaver loses."""
        if seat not in self.names or self.state == OVER:
            return
        if not self.started:
            del self.names[seat]
            self._emit(GameEvent(SEAT_OPEN, {"seat": seat}))
            return
        self._emit(GameEvent(LEFT, {"seat": seat}))
        self._lose((seat,), "left")

    def act(self, seat: int, action: Mapping[str, object]) -> None:
        """Make a move: ``{"move": <one of the seat's legal moves, as JSON>}``."""
        if (
            not isinstance(action, Mapping)
            or "move" not in action
            or set(action) - {"move", "label", "play"}
        ):
            raise BadAction('a move is {"move": …}, one of the legal moves')
        if self.state != RUNNING:
            raise IllegalAction(f"the game is {self.state}")
        legal = self.engine.legal(self.position, seat)
        if not legal:
            raise IllegalAction("it is not your turn")
        sent = action["move"]
        for move in legal:
            if jsonable(move) == sent:
                break
        else:
            raise IllegalAction(f"{sent!r} is not a legal move now")
        self.position = self.engine.apply(self.position, seat, move)
        self.moves += 1
        data = {"seat": seat, "move": jsonable(move), "label": self.engine.describe(move)}
        self._emit(GameEvent(MOVED, data))
        self._next()

    def legal_actions(self, seat: int) -> list[dict[str, Json]]:
        """``{"move", "label"}`` for each legal move of ``seat`` now (and ``play``,
        its ``PLAY`` text, in a game with a board)."""
        if self.state != RUNNING:
            return []
        engine = self.engine
        legal = engine.legal(self.position, seat)
        if engine.board is None:
            return [{"move": jsonable(m), "label": engine.describe(m)} for m in legal]
        return [
            {"move": jsonable(m), "label": engine.describe(m), "play": engine.board_move(m)}
            for m in legal
        ]

    def view(self, seat: int | None) -> dict[str, Json]:
        """What ``seat`` sees: the engine's ``view`` (``game``) and ``text``, the
        players, who is to move, the time left, the result once over."""
        engine, state = self.engine, self.state
        timeleft = None
        if self._deadline is not None and state == RUNNING:
            timeleft = max(0, round((self._deadline - self._clock.seconds()) * 1000))
        view: dict[str, Json] = {
            "state": state,
            "players": [self.names.get(s) for s in range(self.seats)],
            "to_move": list(self._to_move()) if state == RUNNING else [],
            "moves": self.moves,
            "timeleft_ms": timeleft,
            "text": engine.text(self.position, seat),
            "game": engine.view(self.position, seat),
            "result": self.result(),
        }
        board = engine.board
        if board is not None:  # the piece list of MNM
            rows = engine.board_pieces(self.position)
            if len(rows) != self.seats:
                raise KitError(f"board_pieces gives {len(rows)} rows, not one per seat")
            view["board"] = {"pieces": [list(board.row(r)) for r in rows]}
        return view

    def result(self) -> dict[str, Json] | None:
        """``winners``, ``scores`` (the engine's, or 1 for those who stayed and 0 for a
        leaver) and ``summary``, once over."""
        if self.state != OVER:
            return None
        names = [self.names.get(s, f"seat {s}") for s in range(self.seats)]
        if self.losers:
            scores: list[float] = [0 if s in self.losers else 1 for s in range(self.seats)]
            who = ", ".join(names[s] for s in self.losers)
            summary = f"{who} {self.ended_by}: " + outcome_words(scores, names)
        elif self.ended_by:
            scores = [0] * self.seats
            summary = self.ended_by
        else:
            scores = list(self.engine.result(self.position) or ())
            summary = self.engine.summary_of(self.position, names)
        return {"winners": list(winners(scores)), "scores": list(scores), "summary": summary}

    def stop(self) -> None:
        """Cancel the move clock."""
        self._cancel()

    # -- internals ----------------------------------------------------------------------

    def _to_move(self) -> list[int]:
        return self.engine.to_move(self.position, self.seats)

    def _next(self) -> None:
        """Announce the turn(s) of the new position, or the end."""
        self._cancel()
        if self.state == OVER:
            self._emit(GameEvent(GAME_OVER, {"result": self.result()}))
            return
        movers = self._to_move()
        if not movers:  # the engine's bug: nobody can move, yet it is not over
            self.ended_by = "nobody could move"
            self._emit(GameEvent(GAME_OVER, {"result": self.result()}))
            return
        self._deadline = self._clock.seconds() + self.move_ms / 1000
        self._timer = self._clock.callLater(self.move_ms / 1000, self._timed_out, self.moves)
        for seat in movers:
            data = {"seat": seat, "legal": self.legal_actions(seat), "timeleft_ms": self.move_ms}
            self._emit(GameEvent(TURN, data))

    def _timed_out(self, moves: int) -> None:
        self._timer = None
        if moves != self.moves or self.state != RUNNING:
            return
        late = tuple(self._to_move())
        self._emit(GameEvent(TIMEOUT, {"seats": list(late)}))
        self._lose(late, "ran out of time")

    def _lose(self, seats: Sequence[int], how: str) -> None:
        self.losers = tuple(seats)
        self.ended_by = how
        self._next()

    def _cancel(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self._deadline = None


# declared here, not by a class decorator: a game author's mypy (without the zope
# plugin) then still sees the classes as they are
classImplements(Game, IGameFactory, IGameOptions, IExhaustiveLegal, IFullViewAfter)
classImplements(KitGame, IGame)

__all__ = ["FRONTENDS", "MOVE_TIME", "Game", "KitGame", "game_type", "loaded_types"]
