"""Time banks: seconds a player may draw on when the time to act runs out.

A table with the ``time_bank`` option gives each player that many seconds when they sit
down; each hand they are dealt into adds ``time_bank_add`` seconds, up to ``time_bank``.
When a player's time to bet (or to change cards) runs out and their bank holds time,
the bank's seconds become their clock at once (a second ``turn`` event, ``timebank``
true, with the bank as ``timeleft_ms``); what they use of it is gone.  When the bank
runs out too, the usual timeout follows (check or fold, sit out).  Blinds and showing
have no bank.  Times are game time (the game's clock), never the wall clock.
"""

from __future__ import annotations

from collections.abc import Iterable


class TimeBanks:
    """Every seat's time bank at one table.

    :param start: seconds a player has when they sit down (0: no banks).
    :param add: seconds each hand dealt in adds, up to ``start``.
    """

    def __init__(self, start: float, add: float) -> None:
        self.start = max(0.0, float(start))
        self.add = max(0.0, float(add))
        self._left: dict[int, float] = {}
        #: the seat drawing on its bank now and the game time it began, or ``None``
        self.drawing: tuple[int, float] | None = None

    def seated(self, seat: int) -> None:
        """A player sat down at ``seat``: a full bank."""
        self._left[seat] = self.start

    def dealt(self, seats: Iterable[int]) -> None:
        """A hand was dealt to ``seats``: each bank grows by ``add`` (at most ``start``)."""
        for seat in seats:
            self._left[seat] = min(self.start, self._left.get(seat, self.start) + self.add)

    def left(self, seat: int) -> float:
        """Seconds left in ``seat``'s bank."""
        return self._left.get(seat, 0.0)

    def left_ms(self, seat: int) -> int:
        """Milliseconds left in ``seat``'s bank."""
        return int(self.left(seat) * 1000)

    def begin(self, seat: int, now: float) -> float:
        """``seat`` ran out of time and draws on its bank from ``now``: the bank's
        seconds (0: nothing to draw on, nothing changes)."""
        seconds = self.left(seat)
        if seconds > 0:
            self.drawing = (seat, now)
        return seconds

    def end(self, now: float) -> None:
        """The decision drawing on a bank is over at ``now``: what it used is gone."""
        if self.drawing is None:
            return
        seat, since = self.drawing
        self.drawing = None
        self._left[seat] = max(0.0, self.left(seat) - max(0.0, now - since))

    def all_ms(self) -> dict[str, int]:
        """Every seat's bank in milliseconds (keys are seat numbers as text)."""
        return {str(seat): int(left * 1000) for seat, left in sorted(self._left.items())}
