"""King Domino as a hub game: :class:`KingDominoGameFactory` and the game it creates.

Actions: ``{"choose": n}`` and ``{"move": [x, y, orientation]}``.  Events (all public):

- ``state``   ``{"state": "running"}`` when the fourth player sits down
- ``start``   ``{"order": [seat, ...], "dominoes": [...], "names": [...]}``
- ``turn``    ``{"seat", "phase": "choose"|"move", "legal": [...], "timeleft_ms"}``
- ``chosen``  ``{"seat", "domino"}``
- ``placed``  ``{"seat", "domino", "move": [x, y, orientation]}``
- ``round``   ``{"round", "dominoes": [...]}`` (empty after the last draw)
- ``removed`` ``{"seat", "reason"}`` (``left`` or ``timeout``)
- ``over``    ``{"result": {...}}``

A player who does not answer a prompt within ``answer_seconds`` (option, default 2)
on the game's clock is removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zope.interface import implementer

from hub.interfaces import IGame, IGameFactory, IGameOptions, IGameRules
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
    GameConfig,
    GameContext,
    GameError,
    GameEvent,
    GameOption,
    IllegalAction,
)

from . import rules

SEATS = 4
DEFAULT_ANSWER_SECONDS = 2.0
#: the options a game accepts, declared on the factory
OPTIONS = (
    GameOption(
        "answer_seconds", "number", DEFAULT_ANSWER_SECONDS, "time to answer", 0.1, 600,
        unit="s", for_people=60, help="a player who does not answer in time is removed",
    ),
)  # fmt: skip


def parse_action(action: Any) -> tuple[str, Any]:
    """Check an action mapping's shape: ``("choose", n)`` or ``("move", Placement)``.

    :raises BadAction: it is not a King Domino action.
    """
    if not isinstance(action, Mapping) or len(action) != 1:
        raise BadAction('an action is {"choose": n} or {"move": [x, y, orientation]}')
    ((verb, arg),) = action.items()
    if verb == "choose":
        if not isinstance(arg, int) or isinstance(arg, bool):
            raise BadAction("choose takes a domino number")
        return verb, arg
    if verb == "move":
        if (
            not isinstance(arg, list | tuple)
            or len(arg) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in arg)
        ):
            raise BadAction("move takes [x, y, orientation]")
        return verb, rules.Placement(*arg)
    raise BadAction(f"unknown action {verb!r}")


@implementer(IGame)
class KingDominoGame:
    """One game of four seats; seat ``n`` is rules player ``n`` and wire id ``n + 1``."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        self.config = config
        self.seats = config.seats
        self._context = context
        self._clock = context.clock
        answer = config.options.get("answer_seconds", DEFAULT_ANSWER_SECONDS)
        if isinstance(answer, bool) or not isinstance(answer, int | float) or not 0 < answer <= 600:
            raise GameError("answer_seconds must be a number of seconds in (0, 600]")
        self.answer_seconds = float(answer)
        self.names: list[str | None] = [None] * self.seats
        self.rules: rules.State | None = None
        self.state = WAITING
        self._timer: Any = None
        self._deadline = 0.0
        self.removed_reasons: dict[int, str] = {}

    # -- seating -----------------------------------------------------------------------

    def seat_player(self, seat: int, name: str) -> None:
        """Seat ``name``; the game starts when all four seats are taken."""
        if self.state != WAITING:
            raise Conflict("the game has started")
        if not 0 <= seat < self.seats:
            raise GameError(f"no seat {seat}", 404)
        if self.names[seat] is not None:
            raise Conflict(f"seat {seat} is taken")
        self.names[seat] = name
        if all(n is not None for n in self.names):
            self._start()

    def _start(self) -> None:
        self.rules = rules.State(players=self.seats, rng=self._context.rng)
        self.state = RUNNING
        self._emit(STATE, {"state": RUNNING})
        self._emit(
            "start",
            {
                "order": list(self.rules.order),
                "dominoes": list(self.rules.current),
                "names": list(self.names),
            },
        )
        self._prompt()

    def leave(self, seat: int) -> None:
        """A player left: unseated before the start, removed while running."""
        self._remove(seat, "left")

    def _remove(self, seat: int, reason: str) -> None:
        if self.state == WAITING:
            if 0 <= seat < self.seats and self.names[seat] is not None:
                self.names[seat] = None
                self._context.emit(GameEvent(SEAT_OPEN, {"seat": seat}))
            return
        if self.rules is None or not self.rules.can_remove(seat):
            return
        was_turn = self.rules.to_act == seat
        records = self.rules.remove(seat)
        self.removed_reasons[seat] = reason
        if was_turn:
            self._cancel_timer()
        self._publish(records, reason=reason)
        if was_turn or self.rules.over:
            self._prompt()

    # -- playing -----------------------------------------------------------------------

    def act(self, seat: int, action: Mapping[str, Any]) -> None:
        """Choose a domino or place one.

        :raises BadAction: malformed action.
        :raises IllegalAction: not legal now; nothing changed.
        """
        verb, arg = parse_action(action)
        if self.rules is None or self.state != RUNNING:
            raise IllegalAction("the game is not running")
        state = self.rules
        try:
            records = state.choose(seat, arg) if verb == "choose" else state.move(seat, arg)
        except rules.RuleError as e:
            raise IllegalAction(e.reason) from None
        self._cancel_timer()
        self._publish(records)
        self._prompt()

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """``{"choose": n}`` or ``{"move": [x, y, o]}`` for the seat to act, else ``[]``."""
        if self.rules is None or self.state != RUNNING:
            return []
        if self.rules.phase == rules.CHOOSE:
            return [{"choose": d} for d in self.rules.legal_choices(seat)]
        return [{"move": p.as_list()} for p in self.rules.legal_moves(seat)]

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything public (no future draws), the names and whose view it is."""
        view: dict[str, Any] = {
            "game": "kingdomino",
            "state": self.state,
            "seat": seat,
            "names": list(self.names),
            "answer_seconds": self.answer_seconds,
        }
        if self.rules is not None:
            view.update(self.rules.public())
            view["pending"] = self.rules.pending_domino(seat) if seat is not None else None
        if self.state == RUNNING:
            view["timeleft_ms"] = max(0, int((self._deadline - self._clock.seconds()) * 1000))
        return view

    def result(self) -> dict[str, Any] | None:
        """When over: winners, scores per seat, ranking (best first, ties lower seat first)."""
        if self.state != OVER or self.rules is None:
            return None
        scores = self.rules.scores()
        ranking = self.rules.ranking()
        best = max(scores)
        return {
            "winners": [s for s in range(self.seats) if scores[s] == best],
            "scores": scores,
            "ranking": [{"seat": s, "name": self.names[s], "points": scores[s]} for s in ranking],
            "removed": {str(s): r for s, r in sorted(self.removed_reasons.items())},
            "summary": ", ".join(f"{self.names[s]} {scores[s]}" for s in ranking),
        }

    def stop(self) -> None:
        """Cancel the answer timer."""
        self._cancel_timer()

    # -- internals -----------------------------------------------------------------------

    def _emit(self, kind: str, data: Mapping[str, Any]) -> None:
        self._context.emit(GameEvent(kind, data))

    def _publish(self, records: list[rules.Record], reason: str = "left") -> None:
        for record in records:
            if isinstance(record, rules.Chosen):
                self._emit("chosen", {"seat": record.player, "domino": record.domino})
            elif isinstance(record, rules.Placed):
                self._emit(
                    "placed",
                    {
                        "seat": record.player,
                        "domino": record.domino,
                        "move": record.placement.as_list(),
                    },
                )
            elif isinstance(record, rules.Dealt):
                self._emit("round", {"round": record.round, "dominoes": list(record.dominoes)})
            elif isinstance(record, rules.Removed):
                self._emit("removed", {"seat": record.player, "reason": reason})
            elif isinstance(record, rules.Finished):
                self.state = OVER
                self._cancel_timer()
                self._emit(GAME_OVER, {"result": self.result()})

    def _prompt(self) -> None:
        """Announce whose turn it is and start the answer timer."""
        state = self.rules
        if state is None or state.over or self.state != RUNNING:
            return
        seat = state.to_act
        assert seat is not None
        self._cancel_timer()
        self._deadline = self._clock.seconds() + self.answer_seconds
        self._timer = self._clock.callLater(self.answer_seconds, self._timed_out, seat)
        self._emit(
            TURN,
            {
                "seat": seat,
                "phase": state.phase,
                "legal": self.legal_actions(seat),
                "timeleft_ms": int(self.answer_seconds * 1000),
            },
        )

    def _timed_out(self, seat: int) -> None:
        self._timer = None
        self._remove(seat, "timeout")

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            if self._timer.active():
                self._timer.cancel()
            self._timer = None


@implementer(IGameFactory, IGameOptions, IGameRules)
class KingDominoGameFactory:
    """Simplified King Domino (the course's rules) for four players."""

    name = "kingdomino"
    summary = "Simplified King Domino: 48 dominoes, 4 players, regions score size x (1 + crowns)."
    variants: tuple[str, ...] = ()
    min_seats = SEATS
    max_seats = SEATS
    default_seats = SEATS
    frontends = ("domino", "web")
    options = OPTIONS
    rules = "rules.md"

    def create(self, config: GameConfig, context: GameContext) -> KingDominoGame:
        """A new game (options: ``answer_seconds``)."""
        return KingDominoGame(config, context)

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.ADAPTERS`), or ``None``."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.ADAPTERS.get(frontend)
        return None if make is None else make()
