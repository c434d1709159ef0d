"""The end of a hand: awarding the pots, showing or mucking, the hand record."""

from __future__ import annotations

from decimal import Decimal

from .base import TableBase
from .config import TableConfig
from .constants import LESS_THAN_TWO, SHOW, SHOWDOWN, SHOWING, SIT_OUT
from .errors import RuleError
from .money import ZERO
from .plan import keep
from .pots import best_hands, contested_pots, split
from .records import MUCKS, HandRecord, Record, new
from .state import Hand


class ShowdownPart(TableBase):
    """The table's actions after the betting: show, muck, and closing a hand."""

    def _less_than_two(self) -> None:
        """Everyone else folded: the last player takes every pot, may show."""
        h = self.hand
        assert h is not None
        h.state = LESS_THAN_TWO
        (winner,) = h.live()
        if h.counted:  # one pot, shared with its amount (:mod:`.plan`): so is its award
            (pot,) = h.pots
            amount = pot.amount
            self.players[winner].stack += amount
            h.awards.append((winner, amount, 0, ""))
            awards = self._shared.awards
            key = (winner, pot)
            rec = awards.get(key)
            if rec is None:
                rec = new(
                    Record,
                    ("award", winner, amount, None, (), None, False, None, "", (), (("pot", 0),)),
                )
                keep(awards, key, rec)
            self._log.append(rec)  # :meth:`_emit`: the hand goes on
            h.records.append(rec)
        else:
            for i, pot in enumerate(h.pots):
                if pot.amount:
                    self._award(winner, pot.amount, i, "")
        h.winners = {winner}
        h.show_queue = [winner]

    def _winnings(self) -> None:
        """Evaluate the hands and split the pots.

        Hands that cannot win any pot are out first; pots next to each other whose
        remaining contenders are the same are then split as one (as pokerkit does), each
        pot equally among its best hands, odd chips to the first winner left of the
        button.
        """
        h = self.hand
        assert h is not None
        board = h.board
        for s in h.live():
            h.values[s] = self._evaluate(list(h.hole[s]) + list(board))
        merged = contested_pots(h.pots, h.values)
        h.pots = merged
        payouts: list[tuple[int, Decimal, int]] = []
        for i, pot in enumerate(merged):
            winners = self._ring_after(h.button, best_hands(h.values, pot.eligible))
            if not winners or not pot.amount:
                continue
            for s, amt in split(pot.amount, winners, self.config.chip).items():
                payouts.append((s, amt, i))
                h.winners.add(s)
        # the winning hands (and the last aggressor's) are shown before the pots go
        live = h.live()
        first = h.aggressor if h.aggressor in live else None
        if first is None:
            order = self._ring_after(h.button, live)
        else:
            order = [first] + [s for s in self._ring_after(first, live) if s != first]
        h.show_queue = []
        show_all = self.config.show_all
        for s in order:
            if show_all or s in h.winners or s == first:
                self._show(s)
            else:
                h.show_queue.append(s)
        for s, amt, i in payouts:
            self._award(s, amt, i, self._describe(h.values[s]))

    def _award(self, seat: int, amount: Decimal, pot: int, text: str) -> None:
        h = self.hand
        assert h is not None
        self.players[seat].stack += amount
        h.awards.append((seat, amount, pot, text))
        rec = new(
            Record, ("award", seat, amount, None, (), None, False, None, text, (), (("pot", pot),))
        )
        self._log.append(rec)  # :meth:`_emit`: the hand goes on
        h.records.append(rec)

    def _begin_muck_round(self) -> None:
        """The losers not shown yet (queued by the winnings) may show or muck, in
        showdown order: the last aggressor first, else from the left of the button."""

    def _show_step(self) -> bool:
        h = self.hand
        assert h is not None
        if h.show_queue:
            s = h.show_queue[0]
            h.to_act, h.kind = s, SHOWING
            p = self.players.get(s)
            if p is None or p.leaving or p.auto_muck:
                self._default_action(s)
                return False
            return True
        h.to_act = h.kind = None
        h.step = len(self.config.variant.steps) - 1
        self._enter(self.config.variant.steps[h.step])
        return False

    def _show(self, seat: int) -> Record:
        h = self.hand
        assert h is not None
        h.shown.add(seat)
        text = self._describe(h.values[seat]) if seat in h.values else ""
        return self._emit(Record("show", seat, cards=tuple(h.hole[seat]), index=SHOW, text=text))

    def verify_show(self, seat: int) -> None:
        """Check ``seat`` is asked whether to show."""
        h = self.hand
        if h is None or h.over or h.kind != SHOWING:
            raise RuleError("nobody is asked to show or muck now")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to show or muck")

    def can_show(self, seat: int) -> bool:
        """Whether :meth:`show` would succeed."""
        return self._can(self.verify_show, seat)

    def show(self, seat: int) -> Record:
        """Show the hole cards."""
        self.verify_show(seat)
        h = self.hand
        assert h is not None
        h.show_queue.pop(0)
        h.to_act = h.kind = None
        rec = self._show(seat)
        self._advance()
        return rec

    def verify_muck(self, seat: int) -> None:
        """Check ``seat`` is asked whether to show."""
        self.verify_show(seat)

    def can_muck(self, seat: int) -> bool:
        """Whether :meth:`muck` would succeed."""
        return self._can(self.verify_muck, seat)

    def muck(self, seat: int) -> Record:
        """Hide the hole cards."""
        self.verify_muck(seat)
        h = self.hand
        assert h is not None
        h.show_queue.pop(0)
        h.to_act = h.kind = None
        h.mucked.add(seat)
        rec = MUCKS[seat]
        self._log.append(rec)  # :meth:`_emit`: the hand goes on
        h.records.append(rec)
        self._advance()
        return rec

    def _finish(self) -> None:
        """Showdown: the hand is over; leavers go, sit-outs take effect."""
        h = self.hand
        assert h is not None
        h.state = SHOWDOWN
        h.to_act = h.kind = None
        if h.reserve:
            self._restore(h)
        table = self.players
        start, contrib, dead_paid = h.start_stacks, h.contrib, h.dead_paid
        won: dict[int, Decimal] = {}
        for s, amount, _pot, _text in h.awards:
            won[s] = won.get(s, ZERO) + amount
        players_: list[tuple[int, str, Decimal]] = []
        deltas_: list[tuple[int, Decimal]] = []
        for s in sorted(set(h.seats) | h.posted | h.refused):
            p = table.get(s)
            if p is None:
                continue
            players_.append((s, p.name, start.get(s, ZERO)))
            # won is ZERO or a sum from it: its exponent is at most 0, so taking away a
            # dead blind of ZERO could change nothing
            delta = won.get(s, ZERO) - contrib.get(s, ZERO)
            if dead_paid:
                delta -= dead_paid.get(s, ZERO)
            deltas_.append((s, delta))
        players = tuple(players_)
        deltas = tuple(deltas_)
        seated = sorted(table.items())
        stacks_ = []
        for s, p in seated:
            stacks_.append((s, p.stack))
        stacks = tuple(stacks_)
        rec = new(
            Record,
            (
                "handover",
                None,
                None,
                None,
                (),
                None,
                False,
                None,
                h.hand_id,
                (),
                (("deltas", deltas), ("stacks", stacks)),
            ),
        )
        self._log.append(rec)  # :meth:`_emit`: the hand is not over yet
        h.records.append(rec)
        cfg = self.config
        # the hand is over and stays as it is: its record is built when asked for
        self._last_hand_build = lambda: _hand_record(h, cfg, players, deltas)
        h.over = True
        for s, p in seated:
            if not (p.leaving or p.sit_out_next or (p.stack <= ZERO and not p.sitting_out)):
                continue
            if p.leaving:
                self._remove(s)
                continue
            if p.sit_out_next:
                p.sit_out_next = False
                p.sitting_out = True
                self._emit(Record("sitout", s, index=SIT_OUT))
            elif p.stack <= ZERO and not p.sitting_out:
                p.sitting_out = True
                self._emit(Record("sitout", s, index=SIT_OUT, text="no chips"))

    def _restore(self, h: Hand) -> None:
        """Put back what the hand stack set aside (once)."""
        players = self.players
        for s, amount in h.reserve.items():
            p = players.get(s)
            if p is not None:
                p.stack += amount
        h.reserve = {}

    def verify_abort_hand(self) -> Hand:
        """Check a hand is running."""
        if self.hand is None or self.hand.over:
            raise RuleError("no hand is running")
        return self.hand

    def abort_hand(self) -> Record:
        """Stop the running hand (the table closes): money still in the pot goes back
        to whoever put it in; pots already awarded stay awarded."""
        h = self.verify_abort_hand()
        if not h.awards:
            self._refund(h)
        self._restore(h)
        rec = self._emit(Record("cancel", text="hand aborted"))
        h.to_act = h.kind = None
        h.state = SHOWDOWN
        h.over = True
        return rec


def _hand_record(
    h: Hand,
    cfg: TableConfig,
    players: tuple[tuple[int, str, Decimal], ...],
    deltas: tuple[tuple[int, Decimal], ...],
) -> HandRecord:
    """The record of the finished hand ``h`` played under ``cfg``."""
    return HandRecord(
        hand_id=h.hand_id,
        number=h.number,
        game=cfg.variant.name,
        limit=cfg.limit,
        stakes=cfg.stakes,
        small_blind=cfg.small_blind,
        big_blind=cfg.big_blind,
        button=h.button,
        players=players,
        hole=tuple((s, tuple(h.hole[s])) for s in h.seats if s in h.hole),
        board=tuple(h.board),
        shown=tuple(sorted(h.shown)),
        actions=tuple(h.records),
        pots=tuple(h.pots),
        awards=tuple(h.awards),
        deltas=deltas,
        dealt=tuple(h.dealt),
    )
