"""Tests of the poker decision policies and the equity estimator (pure functions)."""

import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.poker import equity as eq
from bots.poker import policies
from bots.poker.observation import (
    BET,
    CALL,
    CHECK,
    DISCARD,
    FOLD,
    MUCK,
    POST_BLIND,
    RAISE,
    RIVER,
    SHOW,
    SIT_OUT,
    Observation,
    Opponent,
)
from games.poker.cards import parse_many as P


def obs(hole="As Ad", board="", legal=(FOLD, CALL, RAISE), **kw):
    kw.setdefault("pot", Decimal(3))
    kw.setdefault("to_call", Decimal(1) if CALL in legal else Decimal(0))
    kw.setdefault("bet_size", Decimal(2))
    kw.setdefault("big_blind", Decimal(2))
    kw.setdefault("raises", 1)
    return Observation(hole=tuple(P(hole)), board=tuple(P(board)), legal=tuple(legal), **kw)


def test_caller_and_raiser():
    rng = random.Random(1)
    assert policies.caller(obs(), rng) == CALL
    assert policies.caller(obs(legal=(CHECK, BET)), rng) == CHECK
    assert policies.raiser(obs(), rng) == RAISE
    assert policies.raiser(obs(legal=(CHECK, BET)), rng) == BET
    assert policies.raiser(obs(legal=(FOLD, CALL), raises=4), rng) == CALL


def test_housekeeping_decisions():
    rng = random.Random(1)
    for name, policy in policies.POLICIES.items():
        assert policy(obs(legal=(POST_BLIND, SIT_OUT)), rng) == POST_BLIND, name
        assert policy(obs(legal=(SHOW, MUCK)), rng) == MUCK, name
        assert policy(obs(legal=(SHOW,)), rng) == SHOW, name
        assert policy(obs(legal=(DISCARD,)), rng) == DISCARD, name


def test_random_never_folds_for_free():
    rng = random.Random(2)
    seen = {policies.random_policy(obs(legal=(FOLD, CHECK, BET)), rng) for _ in range(200)}
    assert seen == {CHECK, BET}
    seen = {policies.random_policy(obs(), rng) for _ in range(200)}
    assert seen == {FOLD, CALL, RAISE}


def test_holdem_raises_aces_and_folds_trash_to_a_river_bet():
    rng = random.Random(3)
    assert policies.holdem(obs("As Ad"), rng) == RAISE
    river = obs(
        "7c 2d",
        "Ks Qs 9h 5h 3c",
        street=RIVER,
        pot=Decimal(20),
        to_call=Decimal(4),
        bet_size=Decimal(4),
        raises=1,
        opponents=(Opponent(1, aggressive=2, range_width=0.3),),
    )
    assert policies.holdem(river, rng) == FOLD


def test_holdem_raises_the_nuts_and_calls_good_pot_odds():
    rng = random.Random(4)
    nuts = obs("As Ks", "Qs Js Ts 2d 3c", street=RIVER, to_call=Decimal(4), raises=1)
    assert policies.holdem(nuts, rng) == RAISE
    # a pair of deuces on the river, a huge pot and a small call: call
    cheap = obs(
        "2c 8d", "2s Kd 9h 5c 4h", street=RIVER, pot=Decimal(200), to_call=Decimal(4), raises=3
    )
    assert policies.holdem(cheap, rng) in (CALL, RAISE)


def test_equity_estimates():
    rng = random.Random(5)
    aa = eq.equity(P("As Ad"), (), [1.0], 4000, rng)
    assert 0.82 < aa < 0.89  # AA against a random hand: about 0.85
    seven_deuce = eq.equity(P("7c 2d"), (), [1.0], 4000, rng)
    assert 0.29 < seven_deuce < 0.37  # 72o: about 0.33
    # narrowing the opponent's range lowers the equity of a medium hand
    kq = eq.equity(P("Kh Qh"), (), [1.0], 3000, rng)
    kq_tight = eq.equity(P("Kh Qh"), (), [0.05], 3000, rng)
    assert kq_tight < kq - 0.1
    # made hands: a royal flush cannot lose
    assert eq.equity(P("As Ks"), P("Qs Js Ts"), [1.0, 1.0], 200, rng) == 1.0
    assert eq.equity(P("As Ks"), (), [], 10, rng) == 1.0


def test_preflop_ranking():
    assert eq.percentile(*P("As Ad")) < eq.percentile(*P("Ks Kd")) < eq.percentile(*P("Ts 9s"))
    assert eq.percentile(*P("Ts 9s")) < eq.percentile(*P("7c 2d")) == 1.0
    assert eq.percentile(*P("Ah Kh")) < eq.percentile(*P("Ah Kd"))
    assert eq.hand_class_key(*P("Ah Kh")) == (12, 11, True)
    cached = eq.preflop_equity(P("Ah Kh"), [1.0])
    assert cached == eq.preflop_equity(P("Ad Kd"), [1.0])  # same class, same entry
    assert 0.6 < cached < 0.7


@settings(max_examples=300, deadline=None)
@given(
    st.data(),
    st.sampled_from(sorted(policies.POLICIES)),
    st.integers(0, 3),
    st.integers(2, 6),
)
def test_every_policy_always_answers_legally(data, name, street, players):
    deck = data.draw(st.permutations(range(52)))
    board = tuple(deck[2 : 2 + (0, 3, 4, 5)[street]])
    legal = data.draw(
        st.sampled_from([(FOLD, CALL, RAISE), (FOLD, CALL), (CHECK, BET), (CHECK,), (CHECK, RAISE)])
    )
    o = Observation(
        hole=tuple(deck[:2]),
        board=board,
        legal=legal,
        street=street,
        pot=Decimal(data.draw(st.integers(3, 500))),
        to_call=Decimal(2 if CALL in legal else 0),
        bet_size=Decimal(2),
        raises=data.draw(st.integers(0, 4)),
        position=data.draw(st.integers(0, players - 1)),
        players=players,
        opponents=tuple(
            Opponent(i, range_width=data.draw(st.floats(0.01, 1.0))) for i in range(players - 1)
        ),
    )
    action = policies.POLICIES[name](o, random.Random(data.draw(st.integers(0, 99))))
    assert action in legal
