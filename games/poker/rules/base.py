"""What every part of the table shares: seats, the record log, ring order, helpers.

:class:`TableBase` holds the table's state; the per-phase parts (:mod:`.seating`,
:mod:`.blinds`, :mod:`.dealing`, :mod:`.betting`, :mod:`.showdown`) add the actions of
their phase, and :class:`.table.Table` puts them together with the state machine.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Self

from .config import Step, TableConfig
from .constants import WAIT_PLAYERS
from .errors import RuleError
from .money import ZERO
from .plan import Plan, Shared
from .records import TURNS, HandRecord, Record, Turn
from .state import Hand, Player


def _default_describe(value: int) -> str:
    from ..evaluator import describe

    return describe(value)


#: the words of a hand value, remembered (there are 7,462 values)
_default_describe_cached = functools.lru_cache(maxsize=8192)(_default_describe)


class TableBase:
    """The state of a table and the helpers every phase uses (see :class:`.table.Table`)."""

    def __init__(
        self,
        config: TableConfig | None = None,
        rng: Any = None,
        evaluate: Callable[[Sequence[int]], int] | None = None,
        describe: Callable[[int], str] | None = None,
    ) -> None:
        import random

        from .. import evaluator

        self.config = config or TableConfig()
        self._rng = rng or random.Random()
        self._evaluate = evaluate or evaluator.evaluate
        self._describe = describe or _default_describe_cached
        self.players: dict[int, Player] = {}
        self.button: int | None = None
        self.hand: Hand | None = None
        self._last_hand: HandRecord | None = None
        #: builds :attr:`last_hand` when it is asked for (the hand is over: it is frozen)
        self._last_hand_build: Callable[[], HandRecord] | None = None
        self.hands_played = 0
        self._last_sb: int | None = None
        self._last_bb: int | None = None
        self._log: list[Record] = []
        self._plan = Plan(self.config)
        self._shared = Shared()

    # -- small helpers ------------------------------------------------------------------

    @property
    def state(self) -> str:
        """The current state name (:data:`WAIT_PLAYERS` when no hand runs)."""
        if self.hand is None:
            return WAIT_PLAYERS
        return self.hand.state

    @property
    def in_hand(self) -> bool:
        """Whether a hand is running (not over)."""
        return self.hand is not None and not self.hand.over

    @property
    def turn(self) -> Turn | None:
        """The pending decision, or ``None``."""
        h = self.hand
        if h is None or h.over or h.to_act is None or h.kind is None:
            return None
        return TURNS[h.kind][h.to_act]

    @property
    def last_hand(self) -> HandRecord | None:
        """The record of the last finished hand (``None`` before the first)."""
        build = self._last_hand_build
        if build is not None:
            self._last_hand, self._last_hand_build = build(), None
        return self._last_hand

    @last_hand.setter
    def last_hand(self, rec: HandRecord | None) -> None:
        self._last_hand, self._last_hand_build = rec, None

    def fork(self) -> Self:
        """A copy of the table between hands that plays on apart: the same config and
        helpers, its own players, no hand, an empty log.  A peer-to-peer table deals
        its cards as they are opened: it plays a hand on a fork and, once every card
        is known, plays it again on another from the same place.

        :raises RuleError: a hand is running.
        """
        if self.in_hand:
            raise RuleError("a table is forked between hands")
        twin = copy.copy(self)
        twin.players = {s: dataclasses.replace(p) for s, p in self.players.items()}
        twin.hand = None
        twin._last_hand = None
        twin._last_hand_build = None
        twin._log = []
        return twin

    def drain(self) -> list[Record]:
        """Every record since the last call, oldest first."""
        out, self._log = self._log, []
        return out

    def _emit(self, rec: Record) -> Record:
        self._log.append(rec)
        h = self.hand
        if h is not None and not h.over:
            h.records.append(rec)
        return rec

    def _plan_now(self) -> Plan:
        """The :class:`.plan.Plan` of the table's config (made again after a change)."""
        plan = self._plan
        if plan.config is not self.config:
            plan = self._plan = Plan(self.config)
        return plan

    def _player(self, seat: int) -> Player:
        if type(seat) is not int:
            raise RuleError(f"seat must be an integer, not {seat!r}")
        p = self.players.get(seat)
        if p is None:
            raise RuleError(f"nobody sits at seat {seat}")
        return p

    def _ring_after(self, seat: int, seats: Iterable[int]) -> list[int]:
        """``seats`` in clockwise order starting after ``seat``."""
        ordered = sorted(seats)
        return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]

    def _next(self, seat: int, seats: Iterable[int]) -> int | None:
        """The first of ``seats`` clockwise after ``seat`` (``None`` if there is none)."""
        n = self.config.seats
        best = None
        best_gap = n
        for s in seats:
            gap = (s - seat - 1) % n
            if gap < best_gap:
                best, best_gap = s, gap
        return best

    def sitting_in(self) -> list[int]:
        """Seats of players sitting in with chips, in seat order."""
        seats = []
        for s, p in self.players.items():
            if not p.sitting_out and not p.leaving and p.stack > ZERO:
                seats.append(s)
        seats.sort()
        return seats

    def stacks(self) -> dict[int, Decimal]:
        """Seat → chips in front of the player (not counting bets in the pot)."""
        return {s: p.stack for s, p in self.players.items()}

    def chips_in_play(self) -> Decimal:
        """All chips on the table: stacks plus money in the pot."""
        total = sum((p.stack for p in self.players.values()), ZERO)
        h = self.hand
        if h is not None and not h.over:
            total += self.pot_total()
        return total

    def pot_total(self) -> Decimal:
        """Money in the pot of the running hand (bets of this round included)."""
        h = self.hand
        if h is None or h.over:
            return ZERO
        return sum(h.contrib.values(), ZERO) + h.dead - sum((a[1] for a in h.awards), ZERO)

    def _involved(self, seat: int) -> bool:
        h = self.hand
        assert h is not None
        return seat in h.seats or seat in h.posted or seat in h.blind_queue

    def _remove(self, seat: int) -> Record:
        p = self.players.pop(seat)
        return self._emit(Record("leave", seat, amount=p.stack, text=p.name))

    def _refund(self, h: Hand) -> None:
        """Give every seat back the money it put in the pot of ``h`` (live and dead,
        oldest seat first), emitting a ``return`` record for each."""
        paid = dict(h.contrib)
        for s, d in h.dead_paid.items():
            paid[s] = paid.get(s, ZERO) + d
        for s, amount in sorted(paid.items()):
            if amount and s in self.players:
                self.players[s].stack += amount
                self._emit(Record("return", s, amount=amount))
        h.contrib.clear()
        h.dead = ZERO

    def _can(self, verify: Callable[..., Any], *args: Any) -> bool:
        try:
            verify(*args)
        except (RuleError, TypeError, ValueError):
            return False
        return True

    if TYPE_CHECKING:
        # the parts call each other through these; :class:`.table.Table` has them all

        def _advance(self) -> None: ...

        def _enter(self, step: Step) -> None: ...

        def _next_step(self) -> None: ...

        def _default_action(self, seat: int) -> Record: ...

        def _auto_play(self) -> None: ...

        def post_blind(self, seat: int) -> Record: ...

        def muck(self, seat: int) -> Record: ...

        def _less_than_two(self) -> None: ...
