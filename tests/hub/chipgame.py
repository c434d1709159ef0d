"""``coins``: the smallest chip game, for tests of the hub's table money.

A test deals each hand itself (:meth:`CoinsGame.play`) with the chips it moves
between seats; the game keeps stacks, hands its results to the hub as a chip game does
(:class:`hub.interfaces.IChipGame`) and, once held, deals no hand before the last one
is settled.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory, IChipGame, IChipGameFactory
from hub.model import (
    CASH_OUT,
    GAME_OVER,
    HAND_OVER,
    OVER,
    RUNNING,
    SEAT_OPEN,
    STATE,
    WAITING,
    BuyinRange,
    Conflict,
    GameConfig,
    GameContext,
    GameEvent,
    HandPlayer,
    HandSummary,
    IllegalAction,
)


@implementer(IChipGame)
class CoinsGame:
    """Stacks per seat; hands are dealt by the test."""

    def __init__(self, config: GameConfig, context: GameContext) -> None:
        self.seats = config.seats
        self._emit = context.emit
        self._id = context.game_id
        self.stacks: dict[int, Decimal] = {}
        self.names: dict[int, str] = {}
        self.leaving: set[int] = set()
        self.in_hand = False
        self.holding = False
        self.unsettled: set[str] = set()
        self.hands: dict[str, HandSummary] = {}
        self.number = 0
        self.over = False

    @property
    def state(self) -> str:
        """``running`` from the first hand on while two players or more sit here."""
        if self.over:
            return OVER
        return RUNNING if self.number and len(self.stacks) >= 2 else WAITING

    def _announce(self, before: str) -> None:
        """A ``state`` event when the state changed (the hub follows it)."""
        if self.state != before:
            self._emit(GameEvent(STATE, {"state": self.state}))

    # -- seats and chips -------------------------------------------------------------

    def seat_player(self, seat: int, name: str, buyin: Any = None) -> None:
        if self.over:
            raise IllegalAction("closed")
        if seat in self.stacks:
            raise Conflict(f"seat {seat} is taken")
        self.stacks[seat] = Decimal(str(buyin if buyin is not None else 100))
        self.names[seat] = name

    def add_chips(self, seat: int, amount: Any) -> None:
        if self.in_hand:
            raise IllegalAction("chips are added between hands")
        self.stacks[seat] += Decimal(str(amount))

    def leave(self, seat: int) -> None:
        if seat not in self.stacks:
            return
        if self.in_hand:
            self.leaving.add(seat)
        else:
            self._remove(seat)

    def _remove(self, seat: int) -> None:
        before = self.state
        stack, name = self.stacks.pop(seat), self.names.pop(seat)
        self.leaving.discard(seat)
        self._emit(GameEvent(CASH_OUT, {"seat": seat, "name": name, "amount": str(stack)}))
        self._emit(GameEvent(SEAT_OPEN, {"seat": seat}))
        self._announce(before)

    # -- hands ----------------------------------------------------------------------------

    def can_deal(self) -> bool:
        return not self.over and not self.unsettled and len(self.stacks) >= 2

    def play(self, deltas: dict[int, Decimal], leave_during: tuple[int, ...] = ()) -> str:
        """Deal one hand whose result moves ``deltas`` (seat → chips; sum 0); the
        seats in ``leave_during`` leave while it runs.  Returns its key."""
        if not self.can_deal():
            raise IllegalAction("no hand may be dealt now")
        assert sum(deltas.values(), Decimal(0)) == 0 and set(deltas) <= set(self.stacks)
        before = self.state
        self.in_hand = True
        for seat in leave_during:
            self.leave(seat)
        self.number += 1
        hand = f"{self._id}-{self.number}"
        seats = sorted(self.stacks)
        for seat in seats:
            self.stacks[seat] += deltas.get(seat, Decimal(0))
            assert self.stacks[seat] >= 0
        self.hands[hand] = HandSummary(
            hand=hand,
            players=[
                HandPlayer(
                    seat=s,
                    name=self.names[s],
                    money_in=max(-deltas.get(s, Decimal(0)), Decimal(0)),
                    winnings=max(deltas.get(s, Decimal(0)), Decimal(0)),
                )
                for s in seats
            ],
            record={"hand": hand, "deltas": {str(s): str(d) for s, d in deltas.items()}},
            summary=f"hand {self.number}",
        )
        if self.holding:
            self.unsettled.add(hand)
        self.in_hand = False
        self._emit(
            GameEvent(
                HAND_OVER,
                {
                    "handid": hand,
                    "deltas": {str(s): str(deltas.get(s, Decimal(0))) for s in seats},
                    "names": {str(s): self.names[s] for s in seats},
                    "stacks": {str(s): str(self.stacks[s]) for s in seats},
                },
            )
        )
        for seat in sorted(self.leaving):
            self._remove(seat)
        self._announce(before)
        return hand

    def hold_hands(self) -> None:
        self.holding = True

    def settled(self, hand: str) -> None:
        self.unsettled.discard(hand)

    def hand_summary(self, hand: str) -> HandSummary | None:
        return self.hands.get(hand)

    # -- the rest of IGame ------------------------------------------------------------------

    def act(self, seat: int, action: Any) -> None:
        raise IllegalAction("the test deals the hands")

    def legal_actions(self, seat: int) -> list[Any]:
        return []

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"stacks": {str(s): str(v) for s, v in self.stacks.items()}}

    def result(self) -> dict[str, Any] | None:
        if not self.over:
            return None
        return {"winners": [], "scores": [], "summary": "closed"}

    def stop(self) -> None:
        if self.over:
            return
        for seat in sorted(self.stacks):
            self._remove(seat)
        self.over = True
        self._emit(GameEvent(GAME_OVER, {"result": self.result()}))


@implementer(IChipGameFactory)
class CoinsFactory:
    """The ``coins`` game type: 2 to 6 seats, buy-ins 10 to 500 (default 100)."""

    name = "coins"
    summary = "A chip game for tests."
    variants: tuple[str, ...] = ()
    min_seats = 2
    max_seats = 6
    default_seats = 4
    frontends: tuple[str, ...] = ("web",)

    def create(self, config: GameConfig, context: GameContext) -> CoinsGame:
        return CoinsGame(config, context)

    def adapter(self, frontend: str) -> Any:
        return None

    def buyin_range(self, config: GameConfig) -> BuyinRange:
        return BuyinRange(Decimal(10), Decimal(100), Decimal(500))


@implementer(IBotFactory)
class PassBotFactory:
    """A bot that plays ``coins`` (it never has to decide anything)."""

    name = "pass"
    summary = "Sits at coins tables."
    games = ("coins",)

    def create(self, game_type: str, seat: int, options: Any) -> Any:
        return PassBot()


@implementer(IBot)
class PassBot:
    def choose(self, view: Any, legal: Any, deadline: float) -> Any:
        return legal[0]
