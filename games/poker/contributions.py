"""The players' share in the shuffle: the :class:`SharedShuffle` part of a poker table
(:class:`.server.PokerGame`): the next hand's commitment published before its deal,
the seats' contributions taken until then, and how long the deal waits for them
(``entropy_time``).  What a contribution is and how the deck is made of them:
:mod:`.hand_shuffle` and :mod:`.shuffle`; the whole scheme: docs/fairness.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.model import CONTRIBUTED, SHUFFLE, BadAction, GameEvent, IllegalAction

from . import hand_shuffle, rules


class SharedShuffle:
    """What a poker table does for its shared shuffle (a part of the table: its
    attributes are the table's)."""

    _shuffler: hand_shuffle.Shuffler
    _next: hand_shuffle.HandShuffle | None  #: the next hand's shuffle, until dealt
    _window: bool  #: the table's timer waits for contributions
    _over: bool
    _emit: Callable[[GameEvent], None]
    _reactor: Any
    table: rules.Table
    options: dict[str, Any]

    def _cancel_timer(self) -> None:  # pragma: no cover - the table's
        raise NotImplementedError

    def _next_hand(self) -> None:  # pragma: no cover - the table's
        raise NotImplementedError

    def _prepare(self, number: int) -> None:
        """Draw hand ``number``'s seed; publish its commitment (``shuffle`` event) when
        players may add to it."""
        self._next = self._shuffler.prepare(number, self._reactor.seconds())
        if self._next.open:
            data = {"number": number, "commitment": self._next.commitment}
            self._emit(GameEvent(SHUFFLE, data))

    def _contribution_wait(self, hand: hand_shuffle.HandShuffle) -> float:
        """Seconds the deal of ``hand`` still waits for contributions (``entropy_time``
        after its commitment, unless every player sitting in has given one)."""
        if not hand.open or all(s in hand.contributions for s in self.table.sitting_in()):
            return 0.0
        entropy_time: float = self.options["entropy_time"]
        wait: float = hand.published + entropy_time - self._reactor.seconds()
        return wait

    def _contribute(self, seat: int, value: Any, number: Any = None) -> None:
        """``seat`` adds its entropy to the next shuffle (an ``entropy`` action; with
        ``number``, only to the shuffle of that hand).

        :raises hub.model.GameError: malformed, or not now (no shuffle waits, the
            table's deals come from a seed of deals, the seat gave one already).
        """
        if self._over:
            raise IllegalAction("this table is closed")
        if seat not in self.table.players:
            raise IllegalAction(f"nobody sits at seat {seat}")
        try:
            raw = hand_shuffle.contribution_bytes(value)
        except ValueError as e:
            raise BadAction(str(e)) from None
        hand = self._next
        if hand is None or (number is not None and number != hand.number):
            raise IllegalAction("no shuffle waits for contributions now")
        try:
            hand.contribute(seat, raw)
        except ValueError as e:
            raise IllegalAction(str(e)) from None
        data = {"seat": seat, "number": hand.number, "value": raw.hex()}
        self._emit(GameEvent(CONTRIBUTED, data))
        if self._window and self._contribution_wait(hand) <= 0:
            self._cancel_timer()
            self._next_hand()
