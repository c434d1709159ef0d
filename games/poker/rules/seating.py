"""Seating: taking and leaving a seat, adding chips, sitting out and in."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .base import TableBase
from .config import TableConfig
from .constants import BLIND, MUCK, POST, SHOWING, SIT_IN, SIT_OUT
from .errors import RuleError
from .money import money
from .records import Record
from .state import Player


class SeatingPart(TableBase):
    """The table's seating actions (verify/can/do)."""

    def verify_seat_player(self, seat: int, name: str, stack: Any) -> Decimal:
        """Check a player may sit at ``seat`` with ``stack`` chips; returns the stack."""
        amount = money(stack, "buy-in")
        if type(seat) is not int or not 0 <= seat < self.config.seats:
            raise RuleError(f"no seat {seat!r}; seats are 0 to {self.config.seats - 1}")
        if seat in self.players:
            raise RuleError(f"seat {seat} is taken")
        if not isinstance(name, str) or not name:
            raise RuleError("a player needs a name")
        if any(p.name == name for p in self.players.values()):
            raise RuleError(f"{name} already sits at this table")
        if amount <= 0:
            raise RuleError("the buy-in must be positive")
        return amount

    def can_seat_player(self, seat: int, name: str, stack: Any) -> bool:
        """Whether :meth:`seat_player` would succeed."""
        return self._can(self.verify_seat_player, seat, name, stack)

    def seat_player(self, seat: int, name: str, stack: Any) -> Record:
        """Seat ``name`` at ``seat`` with ``stack`` chips (the buy-in).

        A newcomer owes a big blind before being dealt in (unless they are the big
        blind).
        """
        amount = self.verify_seat_player(seat, name, stack)
        self.players[seat] = Player(seat, name, amount)
        return self._emit(Record("seat", seat, amount=amount, text=name))

    def verify_add_chips(self, seat: int, amount: Any) -> Decimal:
        """Check ``seat`` may add ``amount`` chips now (not while in a hand)."""
        value = money(amount, "amount")
        self._player(seat)
        if value <= 0:
            raise RuleError("add a positive amount of chips")
        if self.in_hand and self._involved(seat):
            raise RuleError("chips can be added between hands only (table stakes)")
        return value

    def can_add_chips(self, seat: int, amount: Any) -> bool:
        """Whether :meth:`add_chips` would succeed."""
        return self._can(self.verify_add_chips, seat, amount)

    def add_chips(self, seat: int, amount: Any) -> Record:
        """Add chips to the stack at ``seat`` (a top-up or rebuy, between hands)."""
        value = self.verify_add_chips(seat, amount)
        p = self.players[seat]
        p.stack += value
        return self._emit(Record("addchips", seat, amount=value, text=p.name))

    def verify_leave(self, seat: int) -> Player:
        """Check ``seat`` is taken and not already leaving."""
        p = self._player(seat)
        if p.leaving:
            raise RuleError(f"seat {seat} is already leaving")
        return p

    def can_leave(self, seat: int) -> bool:
        """Whether :meth:`leave` would succeed."""
        return self._can(self.verify_leave, seat)

    def leave(self, seat: int) -> Record:
        """The player at ``seat`` leaves: at once between hands or when not dealt in,
        else at the end of the hand (their hand checks when free, else folds).

        The ``leave`` record (now or at the end of the hand) carries the stack that goes
        back to the account.
        """
        p = self.verify_leave(seat)
        h = self.hand
        if h is not None and not h.over and self._involved(seat):
            p.leaving = True
            rec = self._emit(Record("leaving", seat, text=p.name))
            self._auto_play()
            return rec
        return self._remove(seat)

    def remove(self, seat: int) -> Record:
        """Remove the player at ``seat`` now (no hand may be running with them in it);
        the ``leave`` record carries the stack that goes back."""
        self._player(seat)
        if self.in_hand and self._involved(seat):
            raise RuleError(f"seat {seat} is in the hand: it leaves at the end")
        return self._remove(seat)

    def verify_sit_out(self, seat: int) -> Player:
        """Check the player at ``seat`` may sit out."""
        p = self._player(seat)
        if p.sitting_out or p.sit_out_next:
            raise RuleError("already sitting out")
        return p

    def can_sit_out(self, seat: int) -> bool:
        """Whether :meth:`sit_out` would succeed."""
        return self._can(self.verify_sit_out, seat)

    def sit_out(self, seat: int) -> Record:
        """Sit out: from the next hand when the player is in this one, else now."""
        p = self.verify_sit_out(seat)
        h = self.hand
        if h is not None and not h.over and self._involved(seat):
            p.sit_out_next = True
            return self._emit(Record("sitout", seat, index=SIT_OUT, text="next hand"))
        p.sitting_out = True
        return self._emit(Record("sitout", seat, index=SIT_OUT))

    def verify_sit_in(self, seat: int) -> Player:
        """Check the player at ``seat`` sits out (or will) and has chips."""
        p = self._player(seat)
        if not p.sitting_out and not p.sit_out_next:
            raise RuleError("already sitting in")
        if p.stack <= 0:
            raise RuleError("no chips left: take a seat again with a buy-in")
        return p

    def can_sit_in(self, seat: int) -> bool:
        """Whether :meth:`sit_in` would succeed."""
        return self._can(self.verify_sit_in, seat)

    def sit_in(self, seat: int) -> Record:
        """Sit in again; missed blinds are asked for in the next blind round."""
        p = self.verify_sit_in(seat)
        p.sitting_out = False
        p.sit_out_next = False
        return self._emit(Record("sitin", seat, index=SIT_IN))

    def set_auto_post(self, seat: int, on: bool) -> Record:
        """Post this seat's blinds automatically (or stop doing so)."""
        p = self._player(seat)
        p.auto_post = bool(on)
        return self._preference("autopost", seat, POST, p.auto_post, BLIND, self.post_blind)

    def set_auto_muck(self, seat: int, on: bool) -> Record:
        """Muck this seat's hands without asking whenever it could show or muck (a
        losing hand, or a pot won uncontested): the seat is never asked to show."""
        p = self._player(seat)
        p.auto_muck = bool(on)
        return self._preference("automuck", seat, MUCK, p.auto_muck, SHOWING, self.muck)

    def _preference(
        self, kind: str, seat: int, index: int, on: bool, decision: str, now: Callable[[int], Any]
    ) -> Record:
        """A seat's preference was set (a record ``kind`` with ``on``); when it is on
        and the seat is asked for that ``decision`` right now, it is made (``now``)."""
        rec = self._emit(Record(kind, seat, index=index, extra=(("on", on),)))
        h = self.hand
        if on and h is not None and h.kind == decision and h.to_act == seat:
            now(seat)
        return rec

    def verify_reconfigure(self, config: TableConfig) -> TableConfig:
        """Check the table may play on under ``config`` (new stakes, say): between
        hands only, with the same seats and variant."""
        if self.in_hand:
            raise RuleError("the table's stakes change between hands only")
        if config.seats != self.config.seats or config.variant != self.config.variant:
            raise RuleError("a table keeps its seats and its variant")
        return config

    def reconfigure(self, config: TableConfig) -> None:
        """Play the next hands under ``config`` (a tournament's rising blinds)."""
        self.config = self.verify_reconfigure(config)
