"""Property test: random sessions of many hands never stick and conserve the chips.

Each example is a table of 2–9 players (five-card draw: up to 6) with random stacks,
a random betting structure, and random legal play, including refused blinds, sitting
out and in, timeouts, players leaving and joining between and during hands.  After
every step the chips on the table plus the chips taken away equal the buy-ins; after
every hand each award goes to a seat eligible for its pot and the awards add up to
the pots.  ``GAMEHUB_SOAK=full`` runs many more examples.
"""

from __future__ import annotations

import os
import random
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.poker import rules as R

from .pokerhelp import random_action

EXAMPLES = 5000 if os.environ.get("GAMEHUB_SOAK") == "full" else 300
HANDS = 12


def session(seed: int, n: int, limit: int, draw: bool, cents: bool) -> int:
    """Play a random session; returns the number of hands completed."""
    rng = random.Random(seed)
    seats = min(max(n + rng.randint(0, 2), 2), 6 if draw else 10)
    n = min(n, seats)
    unit = Decimal("0.01") if cents else Decimal(1)
    cfg = R.TableConfig(
        variant=R.FIVE_CARD_DRAW if draw else R.TEXAS_HOLDEM,
        limit=limit,
        small_bet=Decimal(2),
        seats=seats,
        chip=unit,
        cap=4 if limit == R.FIXED_LIMIT else rng.choice([None, None, 4]),
    )
    t = R.Table(cfg, rng=rng)
    bought = Decimal(0)
    taken = Decimal(0)
    names = iter(f"p{i}" for i in range(1000))

    def buy_in() -> Decimal:
        v = Decimal(rng.choice([1, 2, 3, 5, 8, 20, 50, 200]))
        if cents:
            v += Decimal(rng.randint(0, 99)) / 100
        return v

    def sit(seat: int) -> None:
        nonlocal bought
        amount = buy_in()
        t.seat_player(seat, next(names), amount)
        t.players[seat].auto_post = rng.random() < 0.7
        bought += amount

    for s in rng.sample(range(seats), n):
        sit(s)

    def check_chips() -> None:
        assert t.chips_in_play() + taken == bought
        assert all(p.stack >= 0 for p in t.players.values())

    def drain() -> None:
        nonlocal taken
        for rec in t.drain():
            if rec.kind == "leave":
                taken += rec.amount

    def chaos() -> None:
        """Something a player may do at any time."""
        r = rng.random()
        if r < 0.02 and t.players:
            s = rng.choice(sorted(t.players))
            if t.can_leave(s):
                t.leave(s)
        elif r < 0.04:
            free = [s for s in range(seats) if s not in t.players]
            if free:
                sit(rng.choice(free))
        elif r < 0.06 and t.players:
            s = rng.choice(sorted(t.players))
            if t.can_sit_out(s):
                t.sit_out(s)
        elif r < 0.10 and t.players:
            s = rng.choice(sorted(t.players))
            if t.can_sit_in(s):
                t.sit_in(s)
        elif r < 0.12 and t.players:
            s = rng.choice(sorted(t.players))
            amount = buy_in()
            if t.can_add_chips(s, amount):
                t.add_chips(s, amount)
                nonlocal bought
                bought += amount

    hands = 0
    for _ in range(HANDS):
        drain()
        for s in sorted(t.players):
            p = t.players[s]
            if p.sitting_out and p.stack > 0 and rng.random() < 0.5:
                t.sit_in(s)
        if not t.can_start_hand():
            sit_free = [s for s in range(seats) if s not in t.players]
            if sit_free:
                sit(rng.choice(sit_free))
            drain()
            if not t.can_start_hand():
                continue
        deck = list(range(52))
        rng.shuffle(deck)
        t.start_hand(deck)
        steps = 0
        while t.in_hand:
            check_chips()
            turn = t.turn
            assert turn is not None, f"stuck in {t.state}"
            assert t.legal_actions(turn.seat), f"no legal action in {t.state}"
            for other in t.players:
                if other != turn.seat:
                    assert t.legal_actions(other) == ()
            if rng.random() < 0.05:
                t.timeout(turn.seat)
            else:
                random_action(t, rng, unit)
            if rng.random() < 0.2:
                chaos()
            drain()
            steps += 1
            assert steps < 2000, "a hand that never ends"
        drain()
        check_chips()
        rec = t.last_hand
        assert rec is not None
        # every pot goes to eligible seats, and all of it
        for seat, amount, pot, _text in rec.awards:
            assert seat in rec.pots[pot].eligible
            assert amount >= 0
        if rec.awards:
            assert sum(a for _, a, _, _ in rec.awards) == sum(p.amount for p in rec.pots)
        assert sum(d for _, d in rec.deltas) == 0
        # nobody in a hand is asked for anything any more
        assert t.turn is None
        hands += 1
        if rng.random() < 0.2:
            chaos()
    drain()
    check_chips()
    return hands


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 9),
    limit=st.sampled_from([R.FIXED_LIMIT, R.POT_LIMIT, R.NO_LIMIT]),
    draw=st.booleans(),
    cents=st.booleans(),
)
def test_random_sessions(seed, n, limit, draw, cents):
    session(seed, n, limit, draw, cents)


def test_sessions_play_many_hands():
    """The random sessions do play hands (the property test is not vacuous)."""
    total = sum(session(seed, 6, R.FIXED_LIMIT, False, False) for seed in range(10))
    assert total >= 80
