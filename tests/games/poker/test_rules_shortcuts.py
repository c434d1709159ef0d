"""The betting shortcuts change nothing a front end or a hand history can see.

Roomy rounds (:attr:`games.poker.rules.Hand.roomy`) and counted hands
(:mod:`games.poker.rules.plan`) take shortcuts through fixed-limit betting.  Random
sessions are played twice with the same choices: on a table as it is and on one whose
shortcuts are off; every record, turn, legal action list, stack and hand record must
be the same, as text (so ``2`` and ``2.00`` differ), including the refusals of
illegal actions.  The shared tables of counted hands are kept tiny here, so that
emptying them is exercised too.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.poker import rules as R
from games.poker.rules import plan as P


class FullTable(R.Table):
    """A table without the betting shortcuts: every action takes the full path."""

    def _plan_now(self) -> P.Plan:
        plan = P.Plan(self.config)
        plan.most, plan.whole = None, False  # no deep hand, no counted hand
        return plan

    def _act_roomy(self, seat: int, index: int) -> R.Record | None:
        return None

    def _begin_bet_round(self, big: bool) -> None:
        super()._begin_bet_round(big)
        assert self.hand is not None
        self.hand.roomy = False


def _session(table_type: type[R.Table], seed: int, stakes: Decimal, seats: int) -> list[str]:
    """A random session at a fixed-limit table; what could be seen, as text."""
    rng = random.Random(seed)
    cfg = R.TableConfig(limit=R.FIXED_LIMIT, small_bet=stakes, seats=seats, chip=Decimal(1))
    t = table_type(cfg, rng=random.Random(seed))
    seen: list[str] = []
    for s in range(seats):
        t.seat_player(s, f"p{s}", rng.choice([Decimal(30), Decimal(500), Decimal(2000)]))
        t.set_auto_post(s, True)

    def look() -> None:
        seen.extend(repr(r) for r in t.drain())
        seen.append(repr((t.turn, sorted(t.stacks().items()), t.pot_total())))
        for s in sorted(t.players):
            seen.append(repr(t.legal_actions(s)))

    def attempt(fn, *args) -> None:
        try:
            seen.append(repr(fn(*args)))
        except (R.RuleError, TypeError, ValueError) as e:
            seen.append(f"{type(e).__name__}: {e}")

    for _ in range(8):
        if not t.can_start_hand():
            for s in sorted(t.players):
                if t.players[s].sitting_out:
                    attempt(t.add_chips, s, 500)
                    attempt(t.sit_in, s)
            if not t.can_start_hand():
                break
        deck = list(range(52))
        rng.shuffle(deck)
        t.start_hand(deck)
        look()
        while t.in_hand:
            turn = t.turn
            assert turn is not None
            r = rng.random()
            if r < 0.03:
                attempt(t.timeout, turn.seat)
            elif r < 0.06:
                attempt(t.leave, rng.choice(sorted(t.players)))
            elif r < 0.15:  # not listed first, or not this seat's, or not legal now
                seat = rng.choice([turn.seat, turn.seat, (turn.seat + 1) % seats])
                attempt(t.act, seat, rng.choice([R.FOLD, R.CHECK, R.CALL, R.BET, R.RAISE]))
            else:
                legal = t.legal_actions(turn.seat)
                attempt(t.act, turn.seat, rng.choice(legal).index)
            look()
        seen.append(repr(t.last_hand))
    return seen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    stakes=st.sampled_from([Decimal(2), Decimal(10), Decimal("2.00"), Decimal(1)]),
    seats=st.integers(2, 6),
)
def test_shortcuts_change_nothing(seed, stakes, seats):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P, "SHARED_MOST", 3)
        fast = _session(R.Table, seed, stakes, seats)
    assert fast == _session(FullTable, seed, stakes, seats)


def test_counted_hands_keep_the_amounts_text():
    """Whole stakes and deep stacks: a counted hand, amounts as ``2``; stakes written
    ``2.00``, or stacks a hand could empty: the full path, amounts as written."""
    for stakes, stack, counted in (
        (Decimal(2), 1000, True),
        (Decimal("2.00"), 1000, False),
        (Decimal(2), 40, False),
    ):
        cfg = R.TableConfig(small_bet=stakes, seats=2, chip=Decimal(1))
        t = R.Table(cfg, rng=random.Random(1))
        for s in (0, 1):
            t.seat_player(s, f"p{s}", stack)
            t.set_auto_post(s, True)
        t.start_hand(list(range(52)), button=1)  # the table's first hand: newcomers
        t.act(1, R.FOLD)
        t.muck(0)
        t.start_hand(list(range(52)))  # the button moves to seat 0
        assert t.hand is not None and t.hand.counted is counted
        assert t.hand.roomy  # both are roomy: nobody can go all in preflop
        t.act(0, R.RAISE)  # the small blind raises to two small bets
        t.act(1, R.CALL)
        raised, called = (r for r in t.drain() if r.kind in ("raise", "call"))
        assert str(raised.total) == str(stakes * 2) == str(called.total)
        # (seat 1 folded its small blind in the first hand)
        assert str(t.players[1].stack) == str(Decimal(stack) - stakes / 2 - stakes * 2)
        assert t.hand.stage == 1 and str(t.hand.current_bet) == "0"  # the flop
