"""Starting a hand: the button, who owes which blind, and the blind round."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from decimal import Decimal

from .base import TableBase
from .constants import BLIND, BLIND_ROUND, LESS_THAN_TWO, POST, SIT_OUT
from .errors import RuleError
from .money import ZERO
from .plan import Plan
from .records import Record, new
from .state import Hand

#: the 52 cards (a deck holds each once)
_DECK = frozenset(range(52))


def _after(seat: int, seats: list[int]) -> int:
    """The first of ``seats`` (in seat order) clockwise after ``seat``
    (:meth:`.base.TableBase._next` of a sorted list)."""
    i = bisect_right(seats, seat)
    return seats[i] if i < len(seats) else seats[0]


class BlindsPart(TableBase):
    """The table's actions before the deal: start a hand, post or refuse a blind."""

    def verify_start_hand(self, deck: Sequence[int]) -> list[int]:
        """Check a hand may start with ``deck``; returns the deck as a list."""
        return self._verify_start(deck)[0]

    def _verify_start(self, deck: Sequence[int]) -> tuple[list[int], list[int]]:
        """:meth:`verify_start_hand`; returns the deck and the seats sitting in."""
        h = self.hand
        if h is not None and not h.over:
            raise RuleError("a hand is running")
        d = list(deck)
        if len(d) != 52 or _DECK.difference(d):  # 52 cards, none missing: each once
            raise RuleError("the deck must hold each of the 52 cards once")
        cands = self.sitting_in()
        if len(cands) < self.config.min_players:
            raise RuleError(f"waiting for players: {self.config.min_players} must be sitting in")
        return d, cands

    def can_start_hand(self) -> bool:
        """Whether enough players sit in for a hand."""
        return not self.in_hand and len(self.sitting_in()) >= self.config.min_players

    def start_hand(  # long: every hand starts here, its plain case inlined
        self, deck: Sequence[int], hand_id: str | None = None, button: int | None = None
    ) -> Record:
        """Start a hand dealt from ``deck`` (52 distinct cards, dealt from the front).

        Moves the button (or puts it at ``button``, for tests and replays), assigns the
        blinds and asks for them (blind round).  While fewer than two players sitting
        in have played here, nobody owes a newcomer's big blind (the table starts).
        """
        d, cands = self._verify_start(deck)
        button = self._new_button(cands, button)
        self.hand = None
        players = self.players
        # a plain start: everyone seated sits in and owes no blind but the one of their
        # place (nobody new, nobody missed one)
        plain = len(cands) == len(players)
        if plain:
            for s in cands:
                p = players[s]
                if p.new or p.missed_big or p.missed_small:
                    plain = False
                    break
        if not plain and sum(1 for s in cands if not players[s].new) < 2:
            for s in cands:
                players[s].new = False
        self.button = button
        # heads-up the button is the small blind
        sb = _after(button, cands) if len(cands) > 2 else button
        bb = _after(sb, cands)
        self.hands_played += 1
        number = self.hands_played
        reserve = self._set_aside(cands)
        start = {}
        for s, p in players.items():
            start[s] = p.stack
        h = Hand(hand_id or str(number), number, d, button, sb, bb, start, reserve)
        h.candidates = cands
        self.hand = h
        if not plain:
            self._mark_missed(sb, bb, cands)
        self._last_sb, self._last_bb = sb, bb
        rec = new(
            Record,
            (
                "hand",
                button,
                None,
                None,
                (),
                None,
                False,
                None,
                h.hand_id,
                (),
                (("number", number), ("sb", sb), ("bb", bb)),
            ),
        )
        self._log.append(rec)  # :meth:`_emit`: the hand has just begun
        h.records.append(rec)
        if plain and players[sb].auto_post and players[bb].auto_post:
            # the blind round of a plain start where both blinds post themselves: the
            # small blind posts, the big blind posts, everyone sitting in is dealt in
            cfg = self.config
            plan = self._plan_now()
            most = plan.most
            # and deep: every stack covers the most the hand asks (no antes: they are
            # dead money the counted plan does not follow)
            counted = plan.whole and not cfg.ante
            if counted:
                assert most is not None
                for s in cands:
                    if players[s].stack <= most:
                        counted = False
                        break
            i = bisect_right(cands, button)
            h.seats = cands[i:] + cands[:i]  # :meth:`_ring_after` of the sorted seats
            if counted:
                h.counted = h.deep = True
                self._post_counted(h, plan, sb, cfg.small_blind, "small", plan.small_blind)
                self._post_counted(h, plan, bb, cfg.big_blind, "big", plan.big_blind)
            else:
                self._post_own(h, sb, cfg.small_blind, "small")
                self._post_own(h, bb, cfg.big_blind, "big")
                self._post_antes(h)
            self._next_step()
        else:
            self._ask_blinds(h, cands, sb, bb)
        self._advance()
        return rec

    def _set_aside(self, cands: list[int]) -> dict[int, Decimal]:
        """Take what each player's stack holds over the hand stack off the table for
        the hand (:attr:`TableConfig.hand_stack`); what was taken, by seat."""
        top = self.config.hand_stack
        reserve: dict[int, Decimal] = {}
        if top is None:
            return reserve
        for s in cands:
            p = self.players[s]
            if p.stack > top:
                reserve[s] = p.stack - top
                p.stack = top
        return reserve

    def _new_button(self, cands: list[int], button: int | None) -> int:
        """The button of the next hand: ``button`` if given, else the next seat sitting
        in after the last button (a random one for the table's first hand)."""
        if button is not None:
            if button not in cands:
                raise RuleError(f"the button must be at a seat sitting in, not {button!r}")
        elif self.button is None:
            button = self._rng.choice(cands)
        else:
            button = _after(self.button, cands)
        return button

    def _ask_blinds(self, h: Hand, cands: list[int], sb: int, bb: int) -> None:
        """What each player sitting in owes, (live, dead), and the order they are asked:
        small blind, big blind, then the others from the big blind on."""
        cfg = self.config
        for s in cands:
            p = self.players[s]
            if s == bb:
                h.owed[s] = (cfg.big_blind, ZERO)
            elif s == sb:
                if p.new or p.missed_big:
                    h.owed[s] = (cfg.big_blind, ZERO)
                else:
                    h.owed[s] = (cfg.small_blind, ZERO)
            elif p.new:
                h.owed[s] = (cfg.big_blind, ZERO)
            elif p.missed_big:
                dead = cfg.small_blind if p.missed_small else ZERO
                h.owed[s] = (cfg.big_blind, dead)
            elif p.missed_small:
                h.owed[s] = (ZERO, cfg.small_blind)
        order = [sb, bb] if sb != bb else [bb]
        owed = h.owed
        queue = [s for s in order if s in owed]
        if len(queue) < len(owed):  # others owe too: from the big blind on
            queue += [s for s in self._ring_after(bb, owed) if s not in order]
        h.blind_queue = queue
        h.state = BLIND_ROUND

    def _mark_missed(self, sb: int, bb: int, cands: list[int]) -> None:
        """Sitting-out players the blinds passed since the last hand owe them.

        A player the big blind passed owes the big blind (live) and the small blind
        (dead); one only the small blind passed owes the small blind (dead).
        """
        if self._last_bb is None or self._last_sb is None:
            return
        n = self.config.seats

        def passed(seat: int, old: int, new: int) -> bool:
            return 0 < (seat - old) % n <= (new - old) % n

        for s, p in self.players.items():
            if s in cands or p.new:
                continue
            if passed(s, self._last_bb, bb):
                # missed the big blind: owes both (the big live, the small dead)
                p.missed_big = p.missed_small = True
            if passed(s, self._last_sb, sb):
                p.missed_small = True

    # blind round ------------------------------------------------------------------------

    def _blind_step(self) -> bool:
        """Ask the next player who owes a blind; ``True`` when waiting for a decision."""
        h = self.hand
        assert h is not None
        while h.blind_queue:
            s = h.blind_queue[0]
            p = self.players.get(s)
            if p is None or p.leaving:
                h.blind_queue.pop(0)
                self._refused(s, auto=True)
                continue
            if p.auto_post:
                self._post(s)
                continue
            h.to_act, h.kind = s, BLIND
            return True
        # the blind round is over: who is dealt in?
        h.to_act = h.kind = None
        cands = [
            s
            for s in h.candidates
            if s not in h.refused and s in self.players and not self.players[s].leaving
        ]
        h.seats = self._ring_after(h.button, cands)
        h.folded.update(s for s in h.posted if s not in h.seats)
        if len(h.seats) < 2 or not h.posted:
            self._cancel()
            return False
        self._post_antes(h)
        self._next_step()
        return False

    def _post_antes(self, h: Hand) -> None:
        """Every player dealt in puts the table's ante in the pot, dead money, after
        the blinds (all in when the stack is short): a ``post`` record each, its blind
        ``ante``."""
        ante = self.config.ante
        if not ante:
            return
        for s in h.seats:
            p = self.players[s]
            paid = min(ante, p.stack)
            if paid <= 0:
                continue
            p.stack -= paid
            h.dead += paid
            h.dead_paid[s] = h.dead_paid.get(s, ZERO) + paid
            allin = not p.stack
            if allin:
                h.allin.add(s)
            total = h.bets.get(s, ZERO)
            self._emit(
                new(
                    Record,
                    ("post", s, paid, total, (), POST, allin, 0, "ante", (), (("dead", paid),)),
                )
            )

    def _refused(self, seat: int, auto: bool = False) -> None:
        """``seat`` did not post: it sits out; a refused big blind moves on."""
        h = self.hand
        assert h is not None
        h.refused.add(seat)
        h.owed.pop(seat, None)
        p = self.players.get(seat)
        if p is not None:
            p.sitting_out = True
            if seat == h.bb_seat:
                p.missed_big = p.missed_big or not p.new
            if seat == h.sb_seat:
                p.missed_small = p.missed_small or not p.new
        if seat == h.bb_seat:
            # the next player sitting in becomes the big blind
            cands = [
                s
                for s in h.candidates
                if s not in h.refused
                and s != h.sb_seat
                and s not in h.posted
                and s in self.players
                and not self.players[s].leaving
            ]
            nxt = self._next(seat, cands)
            h.bb_seat = nxt
            if nxt is not None:
                h.owed[nxt] = (self.config.big_blind, ZERO)
                if nxt in h.blind_queue:
                    h.blind_queue.remove(nxt)
                h.blind_queue.insert(0, nxt)
        elif seat == h.sb_seat:
            h.sb_seat = None

    def _cancel(self) -> None:
        """Less than two players after the blind round: blinds go back, no deal."""
        h = self.hand
        assert h is not None
        h.state = LESS_THAN_TWO
        self._refund(h)
        h.bets.clear()
        h.dead_paid.clear()
        self._emit(Record("cancel", text="less than two players"))
        h.step = len(self.config.variant.steps) - 1
        self._enter(self.config.variant.steps[h.step])

    def verify_post_blind(self, seat: int) -> tuple[Decimal, Decimal]:
        """Check ``seat`` must post a blind now; returns (live, dead)."""
        h = self.hand
        if h is None or h.over or h.kind != BLIND:
            raise RuleError("no blind is due now")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to post")
        return h.owed[seat]

    def can_post_blind(self, seat: int) -> bool:
        """Whether :meth:`post_blind` would succeed."""
        return self._can(self.verify_post_blind, seat)

    def post_blind(self, seat: int) -> Record:
        """Post the blind that is due (all in when short)."""
        self.verify_post_blind(seat)
        rec = self._post(seat)
        self._advance()
        return rec

    def _post(self, seat: int) -> Record:
        h = self.hand
        assert h is not None
        p = self.players[seat]
        live, dead = h.owed.pop(seat)
        h.blind_queue.remove(seat)
        stack = p.stack
        dead_paid = min(dead, stack)
        stack -= dead_paid
        h.dead += dead_paid
        if dead_paid:
            h.dead_paid[seat] = dead_paid
        live_paid = min(live, stack)
        stack -= live_paid
        p.stack = stack
        bets = h.bets
        total = bets[seat] = bets.get(seat, ZERO) + live_paid
        h.contrib[seat] = h.contrib.get(seat, ZERO) + live_paid
        h.posted.add(seat)
        cfg = self.config
        if live_paid and live >= cfg.big_blind:
            p.new = False
        p.missed_big = p.missed_small = False
        allin = stack == 0
        if allin:
            h.allin.add(seat)
        h.to_act = h.kind = None
        what = "small" if seat == h.sb_seat and live == cfg.small_blind else "big"
        if live == 0:
            what = "dead"
        return self._emit(
            new(
                Record,
                (
                    "post",
                    seat,
                    live_paid + dead_paid,
                    total,
                    (),
                    POST,
                    allin,
                    0,
                    what,
                    (),
                    (("dead", dead_paid),),
                ),
            )
        )

    def _post_own(self, h: Hand, seat: int, live: Decimal, what: str) -> None:
        """:meth:`_post` of the blind ``live`` by ``seat``, which owes nothing else and is
        not asked (the same record and state)."""
        p = self.players[seat]
        stack = p.stack - ZERO  # no dead blind (its exponent as :meth:`_post` leaves it)
        live_paid = stack if stack < live else live  # min(live, stack): live when equal
        stack -= live_paid
        p.stack = stack
        total = ZERO + live_paid
        h.bets[seat] = h.contrib[seat] = total
        h.posted.add(seat)
        allin = not stack
        if allin:
            h.allin.add(seat)
        rec = new(
            Record,
            ("post", seat, total, total, (), POST, allin, 0, what, (), (("dead", ZERO),)),
        )
        self._log.append(rec)  # :meth:`_emit`: the hand has just begun
        h.records.append(rec)

    def _post_counted(
        self, h: Hand, plan: Plan, seat: int, blind: Decimal, what: str, iblind: int
    ) -> None:
        """:meth:`_post_own` of a counted hand (:mod:`.plan`): the blind is posted in
        full, and with an exponent of 0 ``ZERO + blind`` is ``blind`` and
        ``stack - ZERO - blind`` is ``stack - blind``."""
        self.players[seat].stack -= blind
        h.bets[seat] = h.contrib[seat] = blind
        h.ibets[seat] = h.icontrib[seat] = iblind
        h.posted.add(seat)
        rec = plan.post(seat, what, blind)
        self._log.append(rec)  # :meth:`_emit`: the hand has just begun
        h.records.append(rec)

    def verify_refuse_blind(self, seat: int) -> None:
        """Check ``seat`` is asked for a blind now."""
        self.verify_post_blind(seat)

    def can_refuse_blind(self, seat: int) -> bool:
        """Whether :meth:`refuse_blind` would succeed."""
        return self.can_post_blind(seat)

    def refuse_blind(self, seat: int) -> Record:
        """Do not post: the player sits out (and owes the blind later)."""
        self.verify_refuse_blind(seat)
        h = self.hand
        assert h is not None
        h.blind_queue.remove(seat)
        h.to_act = h.kind = None
        rec = self._emit(Record("refuse", seat, index=SIT_OUT))
        self._refused(seat)
        self._advance()
        return rec
