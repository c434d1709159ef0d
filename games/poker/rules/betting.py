"""The betting round: who acts, fold, check, call, bet, raise, and the pots after it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .base import TableBase
from .constants import ACTION_NAMES, BET, BETTING, CALL, CHECK, FIXED_LIMIT, FOLD, RAISE
from .errors import RuleError
from .limits import is_full_raise, raise_range
from .money import ZERO, money
from .plan import keep
from .pots import one_pot, side_pots
from .records import Legal, Pot, Record, check_record, fold_record, new
from .state import Hand, Player

#: ``dict.fromkeys``, looked up once
_fromkeys = dict.fromkeys


class BettingPart(TableBase):
    """The table's betting actions (verify/can/do)."""

    def _begin_bet_round(self, big: bool) -> None:  # long: every round of every hand, inlined
        h = self.hand
        assert h is not None
        cfg = self.config
        stage = h.stage = h.stage + 1
        h.bet_size = cfg.big_bet if big else cfg.small_bet
        h.min_raise = cfg.big_blind
        seats, folded, allin = h.seats, h.folded, h.allin
        counted = h.counted
        if counted:
            plan = self._plan
            h.ibet = plan.big_bet if big else plan.small_bet
        if stage == 0:
            bets, contrib = h.bets, h.contrib
            if counted:
                # (the blinds were posted in full: the big blind is the bet)
                h.current_bet = cfg.big_blind
                h.icurrent = plan.big_blind
                h.bets_count = 1
            else:
                h.current_bet = max(bets.values(), default=ZERO)
                if h.bb_seat is not None and h.bb_seat in h.posted:
                    h.current_bet = max(h.current_bet, cfg.big_blind)
                    h.bets_count = 1
                else:
                    h.bets_count = 0
            start = h.bb_seat if h.bb_seat is not None else h.sb_seat
            if start is None:
                start = h.button
            for s in seats:
                if s not in bets:  # (not a blind)
                    bets[s] = ZERO
                    if counted:
                        h.ibets[s] = 0
                if s not in contrib:
                    contrib[s] = ZERO
                    if counted:
                        h.icontrib[s] = 0
        else:
            # every seat dealt in has a contribution since the first round
            h.bets = bets = _fromkeys(seats, ZERO)
            h.current_bet = ZERO
            if counted:
                h.ibets = _fromkeys(seats, 0)
                h.icurrent = 0
            h.bets_count = 0
            start = h.button
        h.aggressor = None
        actors = []  # :meth:`Hand.can_bet`
        for s in seats:
            if s not in folded and s not in allin:
                actors.append(s)
        h.needs_act = set(actors)
        h.may_raise = set(actors)
        h.to_act = start  # the search starts after this seat
        players = self.players
        if stage == 0 and not counted:
            # deep: every stack covers the most the whole hand can ask of it
            most = self._plan_now().most
            deep = most is not None and not allin
            if most is not None and deep:
                for s in actors:
                    if bets[s] + players[s].stack <= most:
                        deep = False
                        break
            h.deep = deep
        if h.deep:
            roomy = len(actors) > 1
        else:
            cap = cfg.cap
            roomy = cfg.limit == FIXED_LIMIT and cap is not None and not allin and len(actors) > 1
            if roomy:
                # the most anyone's bet can reach this round: the current bet raised to the cap
                assert cap is not None
                reach = h.current_bet + (cap - h.bets_count) * h.bet_size
                for s in actors:
                    if bets[s] + players[s].stack <= reach:
                        roomy = False
                        break
        if roomy:
            # everyone must act: the first is :meth:`_bet_step`'s choice
            if len(actors) == 2 and start in actors:
                first = actors[1] if actors[0] == start else actors[0]
            else:
                nxt = self._next(start, actors)
                assert nxt is not None
                first = nxt
            if not players[first].leaving:
                h.to_act, h.kind = first, BETTING
        h.roomy = roomy

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
        pending = []  # of those, who still has to act
        for s in h.seats:
            if s not in folded:
                live += 1
                if s not in allin:
                    actors.append(s)
                    if s in needs:
                        pending.append(s)
        if live < 2:
            self._end_bet_round()
            self._less_than_two()
            return False
        if not pending or (len(actors) == 1 and h.bets[actors[0]] >= h.current_bet):
            self._end_bet_round()
            self._next_step()
            return False
        to_act = h.to_act
        nxt: int | None
        if h.kind == BETTING and to_act in needs:
            nxt = to_act
        elif len(pending) == 1:  # :meth:`_next` of one seat
            nxt = pending[0]
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
        roomy = h.roomy
        h.roomy = False
        if h.counted:
            self._end_counted_round(h)
            return
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
            rec = new(
                Record, ("return", top_seat, back, None, (), None, False, h.stage, "", (), ())
            )
            self._log.append(rec)  # :meth:`_emit`: the hand goes on
            h.records.append(rec)
        if roomy:  # nobody is all in: those still in put in as much
            h.pots = pots = [one_pot(h.contrib, h.folded, h.dead)]
        else:
            h.pots = pots = side_pots(h.contrib, h.folded, h.dead)
        rec = new(Record, ("pots", None, None, None, (), None, False, h.stage, "", tuple(pots), ()))
        self._log.append(rec)
        h.records.append(rec)

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

    def _act_roomy(self, seat: int, index: int) -> Record | None:  # long: every action, inlined
        """Do the betting action ``index`` (fold to raise) of ``seat`` by the shortcuts
        of a roomy round (:attr:`.state.Hand.roomy`) when it is legal and the round is
        roomy; ``None`` otherwise (nothing changed: the full checks then act or say why).

        The same records and the same state as the full path: in a roomy round the seat
        to act may raise while the cap allows (it has not acted since the last raise,
        and every raise is a full one), a call is the whole amount and nobody goes all
        in, so only the bet to call and the cap decide.
        """
        h = self.hand
        if (
            h is None
            or not h.roomy
            or h.to_act != seat
            or h.kind != BETTING
            or type(seat) is not int
        ):
            return None
        counted = h.counted
        if counted:  # the same numbers as ints (:mod:`.plan`)
            owes = h.icurrent > h.ibets[seat]
        else:
            owes = h.current_bet > h.bets[seat]
        players = self.players
        if index == FOLD:
            if not owes:
                return None  # nothing to call: check
            h.folded.add(seat)
            rec = fold_record(seat, h.stage)
        elif index == CHECK:
            if owes:
                return None
            rec = check_record(seat, h.stage)
        elif index == CALL:
            if not owes:
                return None
            if counted:
                rec = self._put_counted(h, seat, CALL, h.icurrent)
            else:
                bets = h.bets
                mine = bets[seat]
                amount = h.current_bet - mine
                players[seat].stack -= amount
                bets[seat] = total = mine + amount
                h.contrib[seat] += amount
                rec = new(
                    Record, ("call", seat, amount, total, (), CALL, False, h.stage, "", (), ())
                )
        elif index == BET or index == RAISE:
            cap = self.config.cap
            assert cap is not None
            bet = h.icurrent if counted else h.current_bet
            if h.bets_count >= cap or (bet if index == BET else not bet):
                return None  # capped, or a bet to call (raise) or none to raise (bet)
            index = BET if index == BET else RAISE  # (an int, whatever compared equal)
            if counted:
                total_i = h.icurrent + h.ibet
                rec = self._put_counted(h, seat, index, total_i)
                h.icurrent = total_i
                h.current_bet = h.bets[seat]
            else:
                bets = h.bets
                mine = bets[seat]
                total = h.current_bet + h.bet_size
                amount = total - mine
                players[seat].stack -= amount
                bets[seat] = mine + amount
                h.contrib[seat] += amount
                h.current_bet = total
                rec = new(
                    Record,
                    (
                        ACTION_NAMES[index],
                        seat,
                        amount,
                        total,
                        (),
                        index,
                        False,
                        h.stage,
                        "",
                        (),
                        (),
                    ),
                )
            folded = h.folded
            others = [s for s in h.seats if s != seat and s not in folded]
            h.needs_act = set(others)
            h.may_raise = set(others)
            h.bets_count += 1
            h.aggressor = seat
        else:
            return None
        # :meth:`_acted`, then the betting step while the round goes on
        needs = h.needs_act
        needs.discard(seat)
        h.may_raise.discard(seat)
        h.kind = None
        self._log.append(rec)
        h.records.append(rec)
        if index == FOLD:
            folded = h.folded
            live = 0
            for s in h.seats:
                if s not in folded:
                    live += 1
            if live < 2:  # everyone else folded: the last one takes the pot
                self._end_bet_round()
                self._less_than_two()
                self._advance()
                return rec
        if not needs:
            # everyone still in acted and matched the bet: the round is over
            self._end_roomy_round(h)
            self._next_step()
        else:
            nxt: int | None
            if len(needs) == 1:
                (nxt,) = needs
            else:
                nxt = self._next(seat, needs)
            assert nxt is not None
            if not players[nxt].leaving:
                h.to_act, h.kind = nxt, BETTING
                return rec
        self._advance()
        return rec

    def _put_counted(self, h: Hand, seat: int, index: int, total_i: int) -> Record:
        """Bring the bet of ``seat`` to ``total_i`` in a counted hand (:mod:`.plan`) by
        a call, bet or raise (never all in): its stack, bet and money in, as Decimals
        and as ints; returns the action's record (what :meth:`_put` and
        :meth:`_wager` do, with the amounts and records of these numbers shared)."""
        shared = self._shared
        amounts = shared.amounts
        ibets = h.ibets
        amount_i = total_i - ibets[seat]
        ibets[seat] = total_i
        amount = amounts[amount_i]
        self.players[seat].stack -= amount
        h.bets[seat] = total = amounts[total_i]
        icontrib = h.icontrib
        inside = icontrib[seat] = icontrib[seat] + amount_i
        h.contrib[seat] = amounts[inside]
        stage = h.stage
        key = (index, seat, stage, amount_i, total_i)
        rec = shared.bets.get(key)
        if rec is None:
            name = ACTION_NAMES[index]
            rec = new(Record, (name, seat, amount, total, (), index, False, stage, "", (), ()))
            keep(shared.bets, key, rec)
        return rec

    def _end_roomy_round(self, h: Hand) -> None:
        """:meth:`_end_bet_round` of a roomy round whose betting is over with two or more
        players in: nobody is all in, so they all matched every bet of the hand, nothing
        is uncalled and one pot is theirs (:func:`.pots.side_pots`'s common case)."""
        h.to_act = h.kind = None
        h.roomy = False
        if h.counted:
            pot, rec = self._counted_pot(h)
        else:
            pot = one_pot(h.contrib, h.folded, h.dead)
            rec = new(Record, ("pots", None, None, None, (), None, False, h.stage, "", (pot,), ()))
        h.pots = [pot]
        self._log.append(rec)  # :meth:`_emit`: the hand goes on
        h.records.append(rec)

    def _end_counted_round(self, h: Hand) -> None:
        """:meth:`_end_bet_round` of a counted hand (:mod:`.plan`): the same by the
        numbers, nobody all in (one pot), the records of these numbers shared."""
        icontrib = h.icontrib
        top_seat: int | None = None
        top = 0
        second: int | None = None
        for s, c in icontrib.items():
            if top_seat is None:
                top_seat, top = s, c
            elif c > top:
                top_seat, top, second = s, c, top
            elif second is None or c > second:
                second = c
        if second is None:
            second = 0
        if top_seat is not None and top > second:
            shared = self._shared
            amounts = shared.amounts
            back = top - second
            icontrib[top_seat] = second
            h.contrib[top_seat] = amounts[second]
            ibet = h.ibets[top_seat] = h.ibets[top_seat] - back
            h.bets[top_seat] = amounts[ibet]
            self.players[top_seat].stack += amounts[back]
            key = (top_seat, h.stage, back)
            rec = shared.returns.get(key)
            if rec is None:
                rec = new(
                    Record,
                    ("return", top_seat, amounts[back], None, (), None, False, h.stage, "", (), ()),
                )
                keep(shared.returns, key, rec)
            self._log.append(rec)  # :meth:`_emit`: the hand goes on
            h.records.append(rec)
        pot, rec = self._counted_pot(h)
        h.pots = [pot]
        self._log.append(rec)
        h.records.append(rec)

    def _counted_pot(self, h: Hand) -> tuple[Pot, Record]:
        """The one pot of a counted hand (:mod:`.plan`; a plain start: no dead money)
        at the end of a betting round, and its ``pots`` record: shared."""
        folded = h.folded
        icontrib = h.icontrib
        alive = [s for s in icontrib if s not in folded]
        alive.sort()
        stage = h.stage
        key = (stage, sum(icontrib.values()), tuple(alive))
        pots = self._shared.pots
        known = pots.get(key)
        if known is None:
            pot = new(Pot, (self._shared.amounts[key[1]], key[2]))
            rec = new(Record, ("pots", None, None, None, (), None, False, stage, "", (pot,), ()))
            known = keep(pots, key, (pot, rec))
        return known

    def _verify_betting(self, seat: int) -> Player:
        h = self.hand
        if h is None or h.over or h.kind != BETTING:
            raise RuleError("no betting round is waiting for a player")
        if type(seat) is not int:
            raise RuleError(f"seat must be an integer, not {seat!r}")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn")
        return self.players[seat]

    def _listed(self, seat: int) -> tuple[Legal, ...] | None:
        """The legal actions of ``seat`` as :meth:`legal_actions` listed them for the
        decision pending (``None``: not listed, or a record was made since)."""
        h = self.hand
        if h is None:
            return None
        cached = h.legal
        if (
            cached is not None
            and cached[0] == seat
            and cached[1] == len(h.records)
            and type(seat) is int
        ):
            return cached[2]
        return None

    def verify_fold(self, seat: int) -> None:
        """Check ``seat`` may fold (only when facing a bet)."""
        listed = self._listed(seat)
        if listed is not None and listed[0].index == FOLD:
            return
        self._verify_betting(seat)
        if self._to_call(seat) == 0:
            raise RuleError("nothing to call: check instead of folding")

    def can_fold(self, seat: int) -> bool:
        """Whether :meth:`fold` would succeed."""
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> Record:
        """Give up the hand."""
        rec = self._act_roomy(seat, FOLD)
        if rec is not None:
            return rec
        self.verify_fold(seat)
        h = self.hand
        assert h is not None
        h.folded.add(seat)
        return self._acted(seat, fold_record(seat, h.stage))

    def verify_check(self, seat: int) -> None:
        """Check ``seat`` may check (nothing owed)."""
        listed = self._listed(seat)
        if listed is not None and listed[0].index == CHECK:
            return
        self._verify_betting(seat)
        if self._to_call(seat) > 0:
            raise RuleError(f"{self._to_call(seat)} to call: cannot check")

    def can_check(self, seat: int) -> bool:
        """Whether :meth:`check` would succeed."""
        return self._can(self.verify_check, seat)

    def check(self, seat: int) -> Record:
        """Pass without betting."""
        rec = self._act_roomy(seat, CHECK)
        if rec is not None:
            return rec
        self.verify_check(seat)
        h = self.hand
        assert h is not None
        return self._acted(seat, check_record(seat, h.stage))

    def verify_call(self, seat: int) -> Decimal:
        """Check ``seat`` may call; returns the amount it puts in."""
        listed = self._listed(seat)
        if listed is not None and listed[0].index == FOLD:
            amount = listed[1].amount  # facing a bet: fold, call, perhaps raise
            assert amount is not None
            return amount
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
        rec = self._act_roomy(seat, CALL)
        if rec is not None:
            return rec
        amount = self.verify_call(seat)
        h = self.hand
        assert h is not None
        self._put(seat, amount)
        rec = new(
            Record,
            ("call", seat, amount, h.bets[seat], (), CALL, seat in h.allin, h.stage, "", (), ()),
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
        rec = self._act_roomy(seat, BET)
        if rec is not None:
            return rec
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
        rec = self._act_roomy(seat, RAISE)
        if rec is not None:
            return rec
        total = self.verify_raise_to(seat, amount)
        return self._wager(seat, total, RAISE)

    def _verify_size(self, seat: int, amount: Any, what: str) -> Decimal:
        h = self.hand
        assert h is not None
        cfg = self.config
        cached = h.legal
        if cached is not None and cached[0] == seat and cached[1] == len(h.records):
            # the legal actions of this decision were listed: a wager among them passed
            # the checks below, and holds its sizes
            wager = cached[2][-1]
            if wager.index == BET or wager.index == RAISE:
                fixed = wager.amount
                if fixed is not None:
                    return self._check_size(amount, what, fixed, fixed)
                assert wager.min is not None and wager.max is not None
                return self._check_size(amount, what, wager.min, wager.max)
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
        return self._check_size(amount, what, lo, hi)

    def _check_size(self, amount: Any, what: str, lo: Decimal, hi: Decimal) -> Decimal:
        """The total of a bet or raise of ``amount`` allowed from ``lo`` to ``hi``."""
        cfg = self.config
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
        folded, allin = h.folded, h.allin
        others = [s for s in h.seats if s != seat and s not in folded and s not in allin]
        h.needs_act |= set(others)
        if full:
            h.bets_count += 1
            if self.config.limit != FIXED_LIMIT:
                h.min_raise = max(h.min_raise, increment)
            h.may_raise = set(others)
        h.current_bet = total
        h.aggressor = seat
        rec = new(
            Record,
            (
                ACTION_NAMES[index],
                seat,
                amount,
                total,
                (),
                index,
                seat in h.allin,
                h.stage,
                "",
                (),
                (),
            ),
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
        self._log.append(rec)  # :meth:`_emit`: a hand that waits for a bet is not over
        h.records.append(rec)
        self._advance()
        return rec
