"""The betting round: who acts, fold, check, call, bet, raise, and the pots after it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .base import TableBase
from .constants import ACTION_NAMES, BET, BETTING, CALL, CHECK, FIXED_LIMIT, FOLD, RAISE
from .errors import RuleError
from .limits import is_full_raise, raise_range
from .money import ZERO, money
from .pots import side_pots
from .records import Record
from .state import Player


class BettingPart(TableBase):
    """The table's betting actions (verify/can/do)."""

    def _begin_bet_round(self, big: bool) -> None:
        h = self.hand
        assert h is not None
        cfg = self.config
        h.stage += 1
        h.bet_size = cfg.big_bet if big else cfg.small_bet
        h.min_raise = cfg.big_blind
        if h.stage == 0:
            h.current_bet = max(h.bets.values(), default=ZERO)
            if h.bb_seat is not None and h.bb_seat in h.posted:
                h.current_bet = max(h.current_bet, cfg.big_blind)
                h.bets_count = 1
            else:
                h.bets_count = 0
            start = h.bb_seat if h.bb_seat is not None else h.sb_seat
            if start is None:
                start = h.button
        else:
            h.bets = {}
            h.current_bet = ZERO
            h.bets_count = 0
            start = h.button
        h.aggressor = None
        for s in h.seats:
            h.bets.setdefault(s, ZERO)
            h.contrib.setdefault(s, ZERO)
        actors = h.can_bet()
        h.needs_act = set(actors)
        h.may_raise = set(actors)
        h.to_act = start  # the search starts after this seat

    def _round_done(self, actors: list[int] | None = None) -> bool:
        """Whether the betting round is over (``actors``: :meth:`Hand.can_bet`)."""
        h = self.hand
        assert h is not None
        if actors is None:
            actors = h.can_bet()
        needs = h.needs_act
        if not any(s in needs for s in actors):
            return True
        if len(actors) == 1 and h.bets[actors[0]] >= h.current_bet:
            return True
        return False

    def _bet_step(self) -> bool:
        """Ask the next player to bet, or close the round (everyone still able to act
        has acted and matched the bet, or fewer than two players are left)."""
        h = self.hand
        assert h is not None
        folded, allin, needs = h.folded, h.allin, h.needs_act
        live = 0
        actors = []  # :meth:`Hand.can_bet`
        for s in h.seats:
            if s not in folded:
                live += 1
                if s not in allin:
                    actors.append(s)
        if live < 2:
            self._end_bet_round()
            self._less_than_two()
            return False
        pending = [s for s in actors if s in needs]
        if not pending or (len(actors) == 1 and h.bets[actors[0]] >= h.current_bet):
            self._end_bet_round()
            self._next_step()
            return False
        to_act = h.to_act
        nxt: int | None
        if h.kind == BETTING and to_act in needs:
            nxt = to_act
        else:
            nxt = self._next(to_act if to_act is not None else h.button, pending)
        assert nxt is not None
        h.to_act, h.kind = nxt, BETTING
        if self.players[nxt].leaving:
            self._default_action(nxt)
            return False
        return True

    def _end_bet_round(self) -> None:
        """Return an uncalled bet and announce the pots."""
        h = self.hand
        assert h is not None
        h.to_act = h.kind = None
        # the uncalled part of the biggest contribution (if only one is the biggest;
        # the values as a stable sort by size would find them, exponents and all)
        top_seat: int | None = None
        top: Decimal = ZERO
        second: Decimal | None = None
        for s, c in h.contrib.items():
            if top_seat is None:
                top_seat, top = s, c
            elif c > top:
                top_seat, top, second = s, c, top
            elif second is None or c > second:
                second = c
        if second is None:
            second = ZERO
        if top_seat is not None and top > second:
            back = top - second
            h.contrib[top_seat] -= back
            h.bets[top_seat] = h.bets.get(top_seat, ZERO) - back
            self.players[top_seat].stack += back
            h.allin.discard(top_seat)
            self._emit(Record("return", top_seat, amount=back, stage=h.stage))
        h.pots = side_pots(h.contrib, h.folded, h.dead)
        self._emit(Record("pots", stage=h.stage, pots=tuple(h.pots)))

    def _to_call(self, seat: int) -> Decimal:
        h = self.hand
        assert h is not None
        return max(h.current_bet - h.bets.get(seat, ZERO), ZERO)

    def _raise_bounds(
        self, seat: int, to_call: Decimal | None = None
    ) -> tuple[Decimal, Decimal] | None:
        """(min, max) total this round for a bet or raise by ``seat``, or ``None``
        (``to_call``: :meth:`_to_call`, when the caller has it)."""
        h = self.hand
        assert h is not None
        cfg = self.config
        p = self.players[seat]
        if seat not in h.may_raise or (cfg.cap is not None and h.bets_count >= cfg.cap):
            return None
        if p.stack <= (self._to_call(seat) if to_call is None else to_call):
            return None
        if not self._raise_answerable(seat):
            return None
        return raise_range(cfg, h, seat, p.stack)

    def _raise_answerable(self, seat: int) -> bool:
        """Whether another player in the hand has chips beyond the current bet."""
        h = self.hand
        assert h is not None
        current, bets, folded, players = h.current_bet, h.bets, h.folded, self.players
        for s in h.seats:
            if s != seat and s not in folded and bets[s] + players[s].stack > current:
                return True
        return False

    def _verify_betting(self, seat: int) -> Player:
        h = self.hand
        if h is None or h.over or h.kind != BETTING:
            raise RuleError("no betting round is waiting for a player")
        if type(seat) is not int:
            raise RuleError(f"seat must be an integer, not {seat!r}")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn")
        return self.players[seat]

    def verify_fold(self, seat: int) -> None:
        """Check ``seat`` may fold (only when facing a bet)."""
        self._verify_betting(seat)
        if self._to_call(seat) == 0:
            raise RuleError("nothing to call: check instead of folding")

    def can_fold(self, seat: int) -> bool:
        """Whether :meth:`fold` would succeed."""
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> Record:
        """Give up the hand."""
        self.verify_fold(seat)
        h = self.hand
        assert h is not None
        h.folded.add(seat)
        return self._acted(seat, Record("fold", seat, index=FOLD, stage=h.stage))

    def verify_check(self, seat: int) -> None:
        """Check ``seat`` may check (nothing owed)."""
        self._verify_betting(seat)
        if self._to_call(seat) > 0:
            raise RuleError(f"{self._to_call(seat)} to call: cannot check")

    def can_check(self, seat: int) -> bool:
        """Whether :meth:`check` would succeed."""
        return self._can(self.verify_check, seat)

    def check(self, seat: int) -> Record:
        """Pass without betting."""
        self.verify_check(seat)
        h = self.hand
        assert h is not None
        return self._acted(seat, Record("check", seat, index=CHECK, stage=h.stage))

    def verify_call(self, seat: int) -> Decimal:
        """Check ``seat`` may call; returns the amount it puts in."""
        p = self._verify_betting(seat)
        to_call = self._to_call(seat)
        if to_call == 0:
            raise RuleError("nothing to call: check")
        return min(to_call, p.stack)

    def can_call(self, seat: int) -> bool:
        """Whether :meth:`call` would succeed."""
        return self._can(self.verify_call, seat)

    def call(self, seat: int) -> Record:
        """Match the current bet (all in when short)."""
        amount = self.verify_call(seat)
        h = self.hand
        assert h is not None
        self._put(seat, amount)
        rec = Record(
            "call",
            seat,
            amount=amount,
            total=h.bets[seat],
            index=CALL,
            allin=seat in h.allin,
            stage=h.stage,
        )
        return self._acted(seat, rec)

    def verify_bet(self, seat: int, amount: Any = None) -> Decimal:
        """Check ``seat`` may open the betting; returns its total bet.

        :param amount: no limit / pot limit: the bet; fixed limit: ignored.
        """
        self._verify_betting(seat)
        h = self.hand
        assert h is not None
        if h.current_bet > 0:
            raise RuleError("there is a bet already: call or raise")
        return self._verify_size(seat, amount, "bet")

    def can_bet(self, seat: int, amount: Any = None) -> bool:
        """Whether :meth:`bet` would succeed."""
        return self._can(self.verify_bet, seat, amount)

    def bet(self, seat: int, amount: Any = None) -> Record:
        """Open the betting (fixed limit: the fixed bet; else ``amount``)."""
        total = self.verify_bet(seat, amount)
        return self._wager(seat, total, BET)

    def verify_raise_to(self, seat: int, amount: Any = None) -> Decimal:
        """Check ``seat`` may raise; returns its total bet after raising.

        :param amount: no limit / pot limit: the total to raise to; fixed limit: ignored.
        """
        self._verify_betting(seat)
        h = self.hand
        assert h is not None
        if h.current_bet == 0:
            raise RuleError("no bet to raise: bet instead")
        return self._verify_size(seat, amount, "raise")

    def can_raise_to(self, seat: int, amount: Any = None) -> bool:
        """Whether :meth:`raise_to` would succeed."""
        return self._can(self.verify_raise_to, seat, amount)

    def raise_to(self, seat: int, amount: Any = None) -> Record:
        """Raise (fixed limit: by the fixed bet; else to ``amount``)."""
        total = self.verify_raise_to(seat, amount)
        return self._wager(seat, total, RAISE)

    def _verify_size(self, seat: int, amount: Any, what: str) -> Decimal:
        h = self.hand
        assert h is not None
        cfg = self.config
        p = self.players[seat]
        if cfg.cap is not None and h.bets_count >= cfg.cap:
            raise RuleError(f"the betting is capped ({cfg.cap} bets)")
        if p.stack <= self._to_call(seat):
            raise RuleError(f"not enough chips to {what}: call (all in) or fold")
        if seat not in h.may_raise:
            raise RuleError("an all-in for less than a full raise did not reopen the betting")
        if not self._raise_answerable(seat):
            raise RuleError(f"everyone else is all in or folded: nobody could answer a {what}")
        lo, hi = raise_range(cfg, h, seat, p.stack)  # the checks above allow a raise
        if cfg.limit == FIXED_LIMIT or amount is None:
            if cfg.limit != FIXED_LIMIT:
                raise RuleError(f"say how much to {what}: {lo} to {hi}")
            return lo
        total = money(amount)
        if total % cfg.chip:
            raise RuleError(f"{total} is not a whole number of chips ({cfg.chip})")
        if total < lo or total > hi:
            raise RuleError(f"{what} must be {lo} to {hi}, not {total}")
        return total

    def _wager(self, seat: int, total: Decimal, index: int) -> Record:
        h = self.hand
        assert h is not None
        amount = total - h.bets[seat]
        increment = total - h.current_bet
        full = is_full_raise(self.config, h, total)
        self._put(seat, amount)
        others = [s for s in h.can_bet() if s != seat]
        h.needs_act |= set(others)
        if full:
            h.bets_count += 1
            if self.config.limit != FIXED_LIMIT:
                h.min_raise = max(h.min_raise, increment)
            h.may_raise = set(others)
        h.current_bet = total
        h.aggressor = seat
        rec = Record(
            ACTION_NAMES[index],
            seat,
            amount=amount,
            total=total,
            index=index,
            allin=seat in h.allin,
            stage=h.stage,
        )
        return self._acted(seat, rec)

    def _put(self, seat: int, amount: Decimal) -> None:
        h = self.hand
        assert h is not None
        p = self.players[seat]
        assert ZERO <= amount <= p.stack
        p.stack -= amount
        h.bets[seat] += amount
        h.contrib[seat] = h.contrib.get(seat, ZERO) + amount
        if p.stack == 0:
            h.allin.add(seat)

    def _acted(self, seat: int, rec: Record) -> Record:
        h = self.hand
        assert h is not None
        h.needs_act.discard(seat)
        h.may_raise.discard(seat)
        h.kind = None
        self._emit(rec)
        self._advance()
        return rec
