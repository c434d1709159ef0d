"""The poker table: its parts put together, the state machine, defaults and dispatch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .betting import BettingPart
from .blinds import BlindsPart
from .config import Step
from .constants import (
    BET,
    BET_ROUND,
    BETTING,
    BLIND,
    BLIND_ROUND,
    CALL,
    CHECK,
    DEAL_CARDS,
    DISCARD,
    DISCARD_ROUND,
    DISCARDING,
    FIXED_LIMIT,
    FOLD,
    LEAVE_SEAT,
    LESS_THAN_TWO,
    MUCK,
    MUCK_ROUND,
    NEW_DEAL,
    POST,
    RAISE,
    SHOW,
    SHOWDOWN,
    SIT_IN,
    SIT_OUT,
    WINNINGS,
)
from .dealing import DealingPart
from .errors import RuleError
from .limits import raise_range
from .money import ZERO
from .records import Legal, Record, Turn, new
from .seating import SeatingPart
from .showdown import ShowdownPart

#: the legal actions without an amount, shared (records are immutable)
_FOLD, _CHECK = Legal(FOLD), Legal(CHECK)
_SHOW_OR_MUCK = (Legal(SHOW), Legal(MUCK))


class Table(SeatingPart, BlindsPart, DealingPart, BettingPart, ShowdownPart):
    """A poker table: seats, stacks, the button, and the hand in progress.

    :param config: the :class:`TableConfig`.
    :param rng: a random source (``random.Random``) for the first button.
    :param evaluate: cards → int, higher is better (default
        :func:`games.poker.evaluator.evaluate`).
    :param describe: hand value → words (default :func:`games.poker.evaluator.describe`).
    """

    # -- the state machine --------------------------------------------------------------

    def _advance(self) -> None:
        """Run automatic states until a decision is needed or the hand is over."""
        h = self.hand
        assert h is not None
        steps = self.config.variant.steps
        while not h.over:
            state = h.state
            if state == BET_ROUND:
                # (the start of a roomy round names the first to act itself)
                if (h.roomy and h.kind == BETTING) or self._bet_step():
                    return
                continue
            if state == DEAL_CARDS or state == NEW_DEAL or state == WINNINGS:
                h.step += 1  # :meth:`_next_step`
                self._enter(steps[h.step])
                continue
            if state == BLIND_ROUND:
                if self._blind_step():
                    return
                continue
            if state == DISCARD_ROUND:
                if self._discard_step():
                    return
                continue
            if state in (MUCK_ROUND, LESS_THAN_TWO):
                if self._show_step():
                    return
                continue
            self._next_step()

    def _enter(self, step: Step) -> None:
        """Enter ``step``; automatic states run here."""
        h = self.hand
        assert h is not None
        state = h.state = step.state
        h.to_act = h.kind = None
        if state == BET_ROUND:
            self._begin_bet_round(step.big)
        elif state == DEAL_CARDS:
            self._deal_board(step.count)
        elif state == NEW_DEAL:
            self._deal_hole(step.count)
        elif state == SHOWDOWN:
            self._finish()
        elif state == DISCARD_ROUND:
            h.discarded = set()
        elif state == WINNINGS:
            self._winnings()
        elif state == MUCK_ROUND:
            self._begin_muck_round()

    def _next_step(self) -> None:
        h = self.hand
        assert h is not None
        h.step += 1
        self._enter(self.config.variant.steps[h.step])

    def legal_actions(self, seat: int) -> tuple[Legal, ...]:
        """What ``seat`` may do now (empty when it is not this seat's turn)."""
        h = self.hand
        if h is None or h.over or h.to_act != seat or h.kind is None:
            return ()
        kind = h.kind
        if h.roomy and kind == BETTING:
            # whoever must act may raise until the cap, a call is the whole amount
            cap = self.config.cap
            assert cap is not None
            if h.counted:  # the same by the numbers as ints, shared (:mod:`.plan`)
                icurrent = h.icurrent
                icall = icurrent - h.ibets[seat]
                iwager = 0
                if h.bets_count < cap:
                    iwager = icurrent + h.ibet if icurrent else -h.ibet
                try:
                    return self._shared.legal[icall][iwager]
                except KeyError:
                    return self._shared.legal_actions(icall, iwager)
            current = h.current_bet
            wager = None
            if h.bets_count < cap:
                wager = new(
                    Legal, (RAISE if current else BET, current + h.bet_size, None, None, None)
                )
            mine = h.bets[seat]
            if current > mine:
                call = new(Legal, (CALL, current - mine, None, None, None))
                return (_FOLD, call) if wager is None else (_FOLD, call, wager)
            return (_CHECK,) if wager is None else (_CHECK, wager)
        # asked again for the same decision (no record since): the same answer
        done = len(h.records)
        cached = h.legal
        if cached is not None and cached[0] == seat and cached[1] == done:
            return cached[2]
        out: tuple[Legal, ...]
        if kind == BETTING:
            stack = self.players[seat].stack
            cfg = self.config
            current = h.current_bet
            to_call = current - h.bets.get(seat, ZERO)  # :meth:`_to_call`
            if to_call < 0:
                to_call = ZERO
            if (  # :meth:`_raise_bounds`
                seat not in h.may_raise
                or (cfg.cap is not None and h.bets_count >= cfg.cap)
                or stack <= to_call
                or not self._raise_answerable(seat)
            ):
                wager = None
            else:
                idx = BET if current == 0 else RAISE
                lo, hi = raise_range(cfg, h, seat, stack)
                if cfg.limit == FIXED_LIMIT:
                    wager = new(Legal, (idx, lo, None, None, None))
                else:
                    wager = new(Legal, (idx, None, lo, hi, None))
            if to_call > 0:
                call = new(Legal, (CALL, min(to_call, stack), None, None, None))
                out = (_FOLD, call) if wager is None else (_FOLD, call, wager)
            else:
                out = (_CHECK,) if wager is None else (_CHECK, wager)
            h.legal = (seat, done, out)
            return out
        if kind == BLIND:
            live, dead = h.owed[seat]
            p = self.players[seat]
            return (Legal(POST, amount=min(live + dead, p.stack)), Legal(SIT_OUT))
        if kind == DISCARDING:
            return (Legal(DISCARD, count=self.config.variant.max_discard),)
        return _SHOW_OR_MUCK

    # defaults and timeouts ------------------------------------------------------------

    def _default_action(self, seat: int) -> Record:
        """What happens when ``seat`` does not decide: refuse the blind, check or fold,
        change no cards, muck."""
        h = self.hand
        assert h is not None
        if h.kind == BLIND:
            return self.refuse_blind(seat)
        if h.kind == BETTING:
            if self._to_call(seat) == 0:
                return self.check(seat)
            return self.fold(seat)
        if h.kind == DISCARDING:
            return self.discard(seat, ())
        return self.muck(seat)

    def _auto_play(self) -> None:
        """Act at once for a leaving player whose turn it is."""
        t = self.turn
        if t is not None:
            p = self.players.get(t.seat)
            if p is not None and p.leaving:
                self._default_action(t.seat)

    def verify_timeout(self, seat: int) -> Turn:
        """Check ``seat`` is the one the table waits for."""
        t = self.turn
        if t is None or t.seat != seat:
            raise RuleError(f"seat {seat} is not to act")
        return t

    def timeout(self, seat: int) -> Record:
        """``seat`` ran out of time: the default action; a betting player also sits out
        from the next hand (a blind refused sits out at once)."""
        t = self.verify_timeout(seat)
        self._emit(Record("timeout", seat, text=t.kind))
        p = self.players[seat]
        if t.kind == BETTING and not p.sitting_out and not p.sit_out_next:
            p.sit_out_next = True
            self._emit(Record("sitout", seat, index=SIT_OUT, text="next hand"))
        return self._default_action(seat)

    # dispatch ---------------------------------------------------------------------------

    def act(
        self, seat: int, index: int, amount: Any = None, discarded: Iterable[int] = ()
    ) -> Record:
        """Do the player action with protocol index ``index``.

        :raises RuleError: the action is not legal now (or unknown).
        """
        rec = self._act_roomy(seat, index)  # (a betting action in a roomy round)
        if rec is not None:
            return rec
        if index == FOLD:
            return self.fold(seat)
        if index == CHECK:
            return self.check(seat)
        if index == CALL:
            return self.call(seat)
        if index == BET:
            return self.bet(seat, amount)
        if index == RAISE:
            return self.raise_to(seat, amount)
        if index == POST:
            return self.post_blind(seat)
        if index == SIT_OUT:
            if self.turn == Turn(seat, BLIND):
                return self.refuse_blind(seat)
            return self.sit_out(seat)
        if index == SIT_IN:
            return self.sit_in(seat)
        if index == SHOW:
            return self.show(seat)
        if index == MUCK:
            return self.muck(seat)
        if index == DISCARD:
            return self.discard(seat, discarded)
        if index == LEAVE_SEAT:
            return self.leave(seat)
        raise RuleError(f"unknown action index {index!r}")
