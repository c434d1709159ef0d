"""Nine Men's Morris as a hub game plugin: :class:`MorrisGameFactory` (``nmmorris``).

Actions are ``{"move": TEXT}`` with the MNM protocol's move syntax: ``"B3"`` places a
piece, ``"A1:B1"`` moves (or flies) one, and while a capture is pending (after a mill;
the ``turn`` event says ``"capture": n``) ``"C5"`` names the opponent piece to remove.
A capture is a decision of its own: the player who closed the mill gets a second
``turn`` event before the turn passes.

Events: ``seated``, ``state``, ``turn`` (``seat``, ``legal``, ``timeleft_ms``,
``capture``), ``moved`` (``seat``, ``move``, ``kind``, ``piece``, ``mills``, ``capture``;
the position after it is the view's, or the moves made one by one: a replay does
that), ``over`` (``result``).

Options (all optional): ``move_time_ms`` (3000; the time a player has for each
decision, announced in ``turn`` events), ``grace_ms`` (500; added for network
latency before a timeout is declared), ``double_mill_captures`` (1 or 2),
``max_turns`` (200; 0 = no limit), ``repetitions`` (3; 0 = no rule),
``wait_interval_ms`` and ``wait_timeout_ms`` (for the MNM front end's ``WAIT``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from zope.interface import implementer

from hub.interfaces import IGame, IGameFactory, IGameOptions, IGameRules
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    STATE,
    TURN,
    WAITING,
    BadAction,
    Conflict,
    EventData,
    GameConfig,
    GameContext,
    GameEvent,
    GameOption,
    IllegalAction,
)

from . import rules

#: a text as JSON, quoted (what ``json.dumps`` writes for it)
_quoted = json.encoder.encode_basestring_ascii

#: the options a game accepts (whole numbers), declared on the factory
OPTIONS: tuple[GameOption, ...] = (
    GameOption(
        "move_time_ms", "int", 3000, "time per move", 100, 600_000, unit="ms",
        for_people=120_000, help="each decision; the MNM clients of the course expect 3000",
    ),
    GameOption("grace_ms", "int", 500, "network grace", 0, 60_000, unit="ms",
               help="added before a late move is declared a timeout"),
    GameOption("double_mill_captures", "int", 1, "captures for a double mill", 1, 2),
    GameOption("max_turns", "int", 200, "turn limit", 0, 100_000, help="0: no limit; then a draw"),
    GameOption("repetitions", "int", 3, "repetitions for a draw", 0, 100, help="0: no rule"),
    GameOption("wait_interval_ms", "int", 1500, "MNM WAIT interval", 10, 3_600_000, unit="ms"),
    GameOption("wait_timeout_ms", "int", 5000, "MNM WAIT timeout", 100, 600_000, unit="ms"),
)  # fmt: skip
_BY_NAME = {o.name: o for o in OPTIONS}


def check_options(options: Mapping[str, Any]) -> dict[str, int]:
    """The game's settings from ``options``, defaults filled in.

    :raises hub.model.BadAction: an unknown option or a value out of range.
    """
    settings = {o.name: o.default for o in OPTIONS}
    for name, value in options.items():
        if name not in _BY_NAME:
            known = ", ".join(sorted(_BY_NAME))
            raise BadAction(f"nmmorris has no option {name!r} (options: {known})")
        low, high = _BY_NAME[name].minimum, _BY_NAME[name].maximum
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadAction(f"option {name} must be a whole number from {low} to {high}")
        settings[name] = value
    return settings


@implementer(IGame)
class MorrisGame:
    """One game of Nine Men's Morris between seat 0 (white, moves first) and seat 1."""

    seats = 2

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        if config.seats != 2:
            raise BadAction("Nine Men's Morris is played by two")
        self.settings = check_options(config.options)
        #: the move clock: each decision's time, and when a late one times out (s)
        self._move_ms: int = self.settings["move_time_ms"]
        self._delay = (self._move_ms + self.settings["grace_ms"]) / 1000.0
        self._context = context
        self._clock = context.clock
        self.engine = rules.MorrisState(
            rules.MorrisRules(
                double_mill_captures=self.settings["double_mill_captures"],
                max_turns=self.settings["max_turns"],
                repetitions=self.settings["repetitions"],
            )
        )
        #: the wire texts of ``engine.history``, formatted as the moves come
        self._texts: list[str] = []
        self.names: list[str | None] = [None, None]
        self._started = False
        self._timer: Any = None
        #: the turn the move clock runs for: its seat and the moves played before it
        self._timing: tuple[int, int] = (0, 0)
        #: the data of the last ``turn`` event (its moves are let go when the next comes)
        self._turn: TurnData | None = None
        self._loser: int | None = None
        self._deadline: float | None = None
        #: the piece list after ``n`` moves, as ``(n, list)``: made once a position
        #: (the ``moved`` event and the MNM move request share it)
        self._pieces: tuple[int, tuple[tuple[str, ...], ...]] | None = None

    # -- IGame ----------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``waiting`` until both seats are taken, ``running``, then ``over``."""
        if self.engine.outcome is not None:
            return OVER
        return RUNNING if self._started else WAITING

    def seat_player(self, seat: int, name: str) -> None:
        """Seat ``name``; the game starts when both seats are taken."""
        if seat not in (0, 1):
            raise BadAction(f"Nine Men's Morris has seats 0 and 1, not {seat}")
        if self.names[seat] is not None:
            raise Conflict(f"seat {seat} is taken")
        if self.state != WAITING:
            raise IllegalAction("the game has already started")
        self.names[seat] = name
        self._emit(GameEvent("seated", {"seat": seat, "name": name}))
        if all(n is not None for n in self.names):
            self._started = True
            self._emit(GameEvent(STATE, {"state": RUNNING}))
            self._announce()

    def leave(self, seat: int) -> None:
        """A player who leaves (or disconnects, or is thrown out) loses the game."""
        if self.state == OVER or seat not in (0, 1):
            return
        self._emit(GameEvent("left", {"seat": seat}))
        self._finish_by(seat, "forfeit")

    def act(self, seat: int, action: Any) -> None:
        """Play ``{"move": "B3" | "A1:B1" | "C5"}`` for ``seat``."""
        if type(action) is not dict and not isinstance(action, Mapping):
            raise BadAction('a morris action is {"move": "B3"}, {"move": "A1:B1"} or a capture')
        if len(action) != 1 or "move" not in action:
            raise BadAction('a morris action is {"move": "B3"}, {"move": "A1:B1"} or a capture')
        text = action["move"]
        if not isinstance(text, str):
            raise BadAction("the move must be a text such as B3 or A1:B1")
        engine = self.engine
        if engine.outcome is not None or not self._started:
            raise IllegalAction(
                "The game is over" if engine.outcome is not None else "The game has not started yet"
            )
        if seat != engine.to_move:
            raise IllegalAction("It is not your turn")
        try:
            move = engine.parse(text)
        except rules.MorrisError as e:
            raise BadAction(e.reason) from None
        try:
            record = engine.apply(move)
        except rules.MorrisError as e:
            raise IllegalAction(e.reason) from None
        # the move clock runs on: the next turn resets it, the game's end cancels it
        self._context.emit(GameEvent("moved", MovedData(record)))
        if engine.outcome is not None:
            self._game_over()
        else:
            self._announce()

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """The moves of ``seat`` now (empty when it is not its turn)."""
        if self.state != RUNNING or seat != self.engine.to_move:
            return []
        return [{"move": m.wire} for m in self.engine.legal_moves()]

    def view(self, seat: int | None) -> dict[str, Any]:
        """The whole position (morris has no secrets)."""
        e = self.engine
        timeleft = None
        if self._deadline is not None and self.state == RUNNING:
            timeleft = max(0, int((self._deadline - self._clock.seconds()) * 1000))
        return {
            "state": self.state,
            "names": list(self.names),
            "seat": seat,
            "to_move": e.to_move,
            "capture": e.pending_captures,
            "phase": e.phase(),
            "pieces": e.piece_list(),
            "board": [None if c is None else c[0] for c in e.board],
            "in_hand": [e.in_hand(0), e.in_hand(1)],
            "turns": e.turns,
            "history": self._history_texts(),
            "move_time_ms": self.settings["move_time_ms"],
            "timeleft_ms": timeleft,
            "rules": {
                "double_mill_captures": e.rules.double_mill_captures,
                "max_turns": e.rules.max_turns,
                "repetitions": e.rules.repetitions,
            },
            "result": self.result(),
        }

    def current_pieces(self) -> tuple[tuple[str, ...], ...]:
        """The engine's piece list now (``view()["pieces"]``, as tuples), made once a
        position and shared."""
        moves = len(self.engine.history)
        made = self._pieces
        if made is None or made[0] != moves:
            made = self._pieces = (moves, self.engine.piece_rows())
        return made[1]

    def _history_texts(self) -> list[str]:
        """The moves' wire texts, each formatted once (a view is not rebuilt from the
        whole history on every move)."""
        texts = self._texts
        records = self.engine.history
        if len(texts) > len(records):
            texts.clear()  # a new engine
        if len(texts) < len(records):
            texts.extend(r.move.text() for r in records[len(texts) :])
        return list(texts)

    def result(self) -> dict[str, Any] | None:
        """``winners`` ([] for a draw), ``draw``, ``reason``, ``loser``, ``scores``."""
        outcome = self.engine.outcome
        if outcome is None:
            return None
        if outcome.winner is None:
            winners: list[int] = []
            scores: list[float] = [0.5, 0.5]
            summary = f"draw ({_REASONS[outcome.reason]})"
            loser = None
        else:
            winners = [outcome.winner]
            loser = 1 - outcome.winner
            scores = [0.0, 0.0]
            scores[outcome.winner] = 1.0
            name = self.names[outcome.winner] or rules.DEFAULT_NAMES[outcome.winner]
            summary = f"{name} wins ({_REASONS[outcome.reason]})"
        return {
            "winners": winners,
            "draw": outcome.winner is None,
            "loser": loser,
            "reason": outcome.reason,
            "scores": scores,
            "turns": self.engine.turns,
            "summary": summary,
        }

    def stop(self) -> None:
        """Cancel the move timer."""
        self._cancel_timer()

    # -- internals ----------------------------------------------------------------------

    def _emit(self, event: GameEvent) -> None:
        self._context.emit(event)

    def _announce(self) -> None:
        engine = self.engine
        seat = engine.to_move
        move_ms = self._move_ms
        clock = self._clock
        self._deadline = clock.seconds() + move_ms / 1000.0
        self._timing = (seat, len(engine.history))
        timer = self._timer
        if timer is not None and timer.active():
            timer.reset(self._delay)  # cheaper than a cancel and a new timer on every turn
        else:
            self._timer = clock.callLater(self._delay, self._timed_out)
        moves = engine.legal_moves() if engine.outcome is None and self._started else ()
        last = self._turn
        if last is not None:
            last.passed()
        self._turn = turn = TurnData(seat, moves, move_ms, engine.pending_captures)
        self._context.emit(GameEvent(TURN, turn))

    def _timed_out(self) -> None:
        self._timer = None
        seat, moves = self._timing
        if self.state == RUNNING and len(self.engine.history) == moves:
            self._finish_by(seat, "timeout")

    def _finish_by(self, loser: int, reason: str) -> None:
        self.engine.resign(loser, reason)
        self._game_over()

    def _game_over(self) -> None:
        self._cancel_timer()
        self._deadline = None
        self._emit(GameEvent(GAME_OVER, {"result": self.result()}))

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None


class _EventData(EventData):
    """A read-only mapping of an event's data over fixed keys (:attr:`_KEYS`), its
    values computed by ``__getitem__`` (which raises ``KeyError`` for another key)."""

    __slots__ = ()
    _KEYS: tuple[str, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` for another key (without the ABC's detour)."""
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return key in self._KEYS

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def __repr__(self) -> str:
        return repr(dict(self))


class TurnData(_EventData):
    """The data of a ``turn`` event: ``seat``, ``legal``, ``timeleft_ms``, ``capture``,
    as a read-only mapping whose ``legal`` actions (``{"move": TEXT}`` each, as
    :meth:`MorrisGame.legal_actions` gives them) are built when first read: most
    observers (the MNM front end) never read them.  The moves are the engine's at the
    time of the event (shared :class:`~.rules.Move` records), so a late reader of the
    turn that waits sees the same list; once the next turn is announced the passed one
    lets its moves go (:meth:`passed`: its ``legal`` is then ``[]``): a game's event log
    keeps every ``turn`` event, and the log never reads ``legal`` (issue 36: a live
    game's memory)."""

    __slots__ = ("_capture", "_legal", "_moves", "_seat", "_timeleft")
    _KEYS = ("seat", "legal", "timeleft_ms", "capture")

    def __init__(self, seat: int, moves: Sequence[rules.Move], timeleft: int, capture: int):
        self._seat = seat
        self._moves = moves
        self._legal: list[dict[str, Any]] | None = None
        self._timeleft = timeleft
        self._capture = capture

    def passed(self) -> None:
        """The turn is over: let its moves go (``legal`` is ``[]`` from now on)."""
        self._moves = ()
        self._legal = None

    def __getitem__(self, key: str) -> Any:
        if key == "seat":
            return self._seat
        if key == "capture":
            return self._capture
        if key == "timeleft_ms":
            return self._timeleft
        if key == "legal":
            legal = self._legal
            if legal is None:
                legal = self._legal = [{"move": m.wire} for m in self._moves]
            return legal
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` for another key (in one call: the MNM front
        end reads a turn's seat, time and captures this way)."""
        if key == "seat":
            return self._seat
        if key == "capture":
            return self._capture
        if key == "timeleft_ms":
            return self._timeleft
        return self[key] if key == "legal" else default

    def copy(self, leave_out: str | None = None) -> dict[str, Any]:
        """As :meth:`hub.model.EventData.copy` (a replay copies every turn's data)."""
        if leave_out == "legal":
            return {"seat": self._seat, "timeleft_ms": self._timeleft, "capture": self._capture}
        return super().copy(leave_out)

    def json_text(self, leave_out: str | None = None) -> str | None:
        """As :meth:`hub.model.EventData.json_text`: a replay's turn (without
        ``legal``) as text, without a dict."""
        seat, left, capture = self._seat, self._timeleft, self._capture
        if leave_out != "legal" or not (type(seat) is type(left) is type(capture) is int):
            return None
        return f'{{"seat":{seat},"timeleft_ms":{left},"capture":{capture}}}'


class MovedData(_EventData):
    """The data of a ``moved`` event: ``seat``, ``move``, ``kind``, ``piece``, ``mills``,
    ``capture``, as a read-only mapping over the engine's :class:`~.rules.MoveRecord`
    of the move (which the engine's history keeps anyway): a game's event log keeps
    every ``moved`` event, and a dictionary of six each cost about 270 bytes a move
    (issue 36: a live game's memory).  Readers copy it (``dict(data)``) to send it."""

    __slots__ = ("_record",)
    _KEYS = ("seat", "move", "kind", "piece", "mills", "capture")

    def __init__(self, record: rules.MoveRecord) -> None:
        self._record = record

    def __getitem__(self, key: str) -> Any:
        r = self._record
        if key == "seat":
            return r.player
        if key == "move":
            return r.move.wire
        if key == "kind":
            return r.move.kind
        if key == "piece":
            return r.piece
        if key == "mills":
            return r.mills
        if key == "capture":
            return r.captures
        raise KeyError(key)

    def copy(self, leave_out: str | None = None) -> dict[str, Any]:
        """As :meth:`hub.model.EventData.copy` (a replay copies every move's data)."""
        if leave_out is not None:
            return super().copy(leave_out)
        r = self._record
        move = r.move
        return {
            "seat": r.player,
            "move": move.wire,
            "kind": move.kind,
            "piece": r.piece,
            "mills": r.mills,
            "capture": r.captures,
        }

    def json_text(self, leave_out: str | None = None) -> str | None:
        """As :meth:`hub.model.EventData.json_text`: a replay's move as text, without
        a dict."""
        r = self._record
        seat, piece, mills, capture = r.player, r.piece, r.mills, r.captures
        if leave_out is not None or not (type(seat) is type(piece) is type(mills) is int):
            return None
        if type(capture) is not int:
            return None
        move = r.move
        return (
            f'{{"seat":{seat},"move":{_quoted(move.wire)},"kind":{_quoted(move.kind)},'
            f'"piece":{piece},"mills":{mills},"capture":{capture}}}'
        )


_REASONS = {
    "pieces": "fewer than three pieces",
    "blocked": "no legal move",
    "repetition": "threefold repetition",
    "turns": "turn limit",
    "timeout": "time out",
    "forfeit": "the opponent left",
}


@implementer(IGameFactory, IGameOptions, IGameRules)
class MorrisGameFactory:
    """The ``nmmorris`` game type."""

    name = "nmmorris"
    summary = "Nine Men's Morris: place, move and fly; a mill captures."
    variants: tuple[str, ...] = ()
    min_seats = 2
    max_seats = 2
    default_seats = 2
    frontends = ("mnm", "web")
    options = OPTIONS
    rules = "rules.md"

    def create(self, config: GameConfig, context: GameContext) -> MorrisGame:
        """A new game (options are checked here).

        :raises hub.model.GameError: bad options.
        """
        return MorrisGame(config, context)

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.ADAPTERS`), or ``None``."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.ADAPTERS.get(frontend)
        return None if make is None else make()
