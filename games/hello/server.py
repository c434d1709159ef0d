"""``hello`` as a hub game plugin: :class:`HelloGameFactory` provides ``IGameFactory``."""

from __future__ import annotations

from typing import Any

from zope.interface import implementer

from hub.interfaces import IGame, IGameFactory, IGameRules
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    SEAT_OPEN,
    STATE,
    TURN,
    WAITING,
    BadAction,
    GameConfig,
    GameContext,
    GameError,
    GameEvent,
    IllegalAction,
)

from . import rules


@implementer(IGame)
class HelloGame:
    """A running hello game. Action: ``{"hello": "<text>"}``; event ``hello`` with
    ``{"seat": n, "name": ..., "text": ..., "line": "Hello from <name>: <text>"}``."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        self._context = context
        self._state = rules.HelloState(config.seats)
        self._left: set[int] = set()
        self.seats = config.seats

    @property
    def state(self) -> str:
        """``waiting`` until every seat is taken, then ``running``, then ``over``."""
        if self._state.over or (self._left and self._state.started and not self.pending()):
            return OVER
        return RUNNING if self._state.started else WAITING

    def pending(self) -> list[int]:
        """Seats still to say hello (and present)."""
        return [s for s in self._state.pending() if s not in self._left]

    def seat_player(self, seat: int, name: str) -> None:
        """Seat ``name``; the game starts when all seats are taken."""
        try:
            self._state.sit(seat, name)
        except rules.HelloError as e:
            raise GameError(e.reason, 409 if e.well_formed else 400) from None
        self._context.emit(GameEvent("seated", {"seat": seat, "name": name}))
        if self._state.started:
            self._context.emit(GameEvent(STATE, {"state": RUNNING}))
            for pending in self.pending():
                self._announce(pending)

    def _announce(self, seat: int) -> None:
        self._context.emit(GameEvent(TURN, {"seat": seat, "legal": self.legal_actions(seat)}))

    def leave(self, seat: int) -> None:
        """A player who leaves before the start frees the seat; later, one who leaves
        before saying hello will not say it."""
        if not self._state.started:
            if self._state.names.pop(seat, None) is not None:
                self._context.emit(GameEvent(SEAT_OPEN, {"seat": seat}))
            return
        if seat in self._left:
            return
        self._left.add(seat)
        self._context.emit(GameEvent("left", {"seat": seat}))
        self._maybe_over()

    def act(self, seat: int, action: Any) -> None:
        """Say hello."""
        if set(action) != {"hello"}:
            raise BadAction('a hello action is {"hello": "<text>"}')
        if seat in self._left:
            raise IllegalAction("you have left this game")
        try:
            said = self._state.say(seat, action["hello"])
        except rules.HelloError as e:
            raise (IllegalAction if e.well_formed else BadAction)(e.reason) from None
        self._context.emit(
            GameEvent(
                "hello", {"seat": seat, "name": said.name, "text": said.text, "line": said.line}
            )
        )
        self._maybe_over()

    def _maybe_over(self) -> None:
        if self.state == OVER:
            self._context.emit(GameEvent(GAME_OVER, {"result": self.result()}))

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """``[{"hello": ""}]`` (any text) while this seat still has to say hello."""
        return [{"hello": ""}] if seat in self.pending() else []

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything is public in hello."""
        return {
            "seats": [
                {
                    "seat": s,
                    "name": self._state.names.get(s),
                    "said": self._state.said[s].text if s in self._state.said else None,
                }
                for s in range(self.seats)
            ],
            "lines": [self._state.said[s].line for s in sorted(self._state.said)],
            "pending": self.pending(),
            "state": self.state,
        }

    def result(self) -> dict[str, Any] | None:
        """Everyone who said hello wins."""
        if self.state != OVER:
            return None
        scores = [1 if s in self._state.said else 0 for s in range(self.seats)]
        winners = [s for s in range(self.seats) if scores[s]]
        return {
            "winners": winners,
            "scores": scores,
            "summary": f"{len(winners)} of {self.seats} said hello",
        }

    def stop(self) -> None:
        """Hello has no timers."""


@implementer(IGameFactory, IGameRules)
class HelloGameFactory:
    """The ``hello`` game type."""

    name = "hello"
    summary = "The smallest possible game: say hello, get hello back."
    variants: tuple[str, ...] = ()
    min_seats = rules.MIN_SEATS
    max_seats = rules.MAX_SEATS
    default_seats = 2
    frontends = ("xml", "web")
    rules = "rules.md"

    def create(self, config: GameConfig, context: GameContext) -> HelloGame:
        """A new hello game."""
        return HelloGame(config, context)

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.ADAPTERS`), or ``None``."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.ADAPTERS.get(frontend)
        return None if make is None else make()
