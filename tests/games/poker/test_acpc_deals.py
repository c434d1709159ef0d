"""The reference dealer's generator and deals (:mod:`games.poker.mt19937`,
:mod:`games.poker.acpc_deals`), its exact payoffs (:mod:`games.poker.acpc_score`) and
the numbers of its log: known answers, known deals as data, and property tests against
independent implementations of MT19937 (numpy's ``RandomState``, seeded with
``init_genrand`` for an integer seed, and CPython's ``random`` given the same state)."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.poker import cards
from games.poker.acpc_deals import FRESH_DECK, deals, engine_deck, nth_deal
from games.poker.acpc_score import dealer_payoffs
from games.poker.mt19937 import MT19937, init_genrand
from hub.frontends.acpc.codec import log_number

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "acpc_reference"

#: (seed, players, hand, hole cards by position, the five board cards): hands of the
#: reference dealer's logs (the board of a hand that ended early is from a later one)
KNOWN_DEALS = [
    (1, 2, 0, ["8s2h", "Kd5c"], "7hAdTd4sKc"),
    (1, 2, 1, ["JsKs", "Qs8d"], "Qd7s9dAcTd"),
    (1, 3, 0, ["8s2h", "Kd5c", "7hAd"], "Td4sKcKh8h"),
    (1, 3, 999, ["5sQc", "4d5h", "7dQd"], "JdAsAc7s2h"),
    (2, 3, 666, ["TdKs", "Js5d", "3dJc"], "KhQd8d9dQc"),
]


def test_known_answers_of_init_genrand():
    rng = MT19937(5489)
    outputs = [rng.next_u32() for _ in range(10000)]
    assert outputs[0] == 3499211612 and outputs[-1] == 4123659995
    rng = MT19937(1)
    assert [rng.next_u32() for _ in range(3)] == [1791095845, 4282876139, 3093770124]


@pytest.mark.parametrize("seed", [-1, 2**32, 1.0, True, "1"])
def test_a_seed_is_a_32_bit_unsigned_integer(seed):
    with pytest.raises(ValueError):
        MT19937(seed)


@given(seed=st.integers(0, 2**32 - 1), skip=st.integers(0, 700))
def test_the_generator_is_numpys_mt19937_seeded_with_init_genrand(seed, skip):
    ours = MT19937(seed)
    theirs = np.random.RandomState(seed)._bit_generator  # legacy seeding: init_genrand
    theirs.random_raw(skip)
    for _ in range(skip):
        ours.next_u32()
    assert [ours.next_u32() for _ in range(8)] == [int(x) for x in theirs.random_raw(8)]


@given(seed=st.integers(0, 2**32 - 1))
def test_the_generator_is_cpythons_twister_from_the_same_state(seed):
    theirs = random.Random()
    theirs.setstate((3, (*init_genrand(seed), 624), None))
    ours = MT19937(seed)
    assert [ours.next_u32() for _ in range(1300)] == [theirs.getrandbits(32) for _ in range(1300)]


def test_the_fresh_deck_is_listed_suit_by_suit():
    assert cards.format_many(FRESH_DECK[:3]) == "2c 3c 4c"
    assert cards.format(FRESH_DECK[12]) == "Ac" and cards.format(FRESH_DECK[13]) == "2d"
    assert cards.format(FRESH_DECK[-1]) == "As" and sorted(FRESH_DECK) == list(range(52))


def _text(values) -> str:
    return "".join(cards.format(c) for c in values)


@pytest.mark.parametrize(("seed", "players", "hand", "hole", "board"), KNOWN_DEALS)
def test_known_deals_of_the_reference_dealer(seed, players, hand, hole, board):
    deal = nth_deal(seed, players, hand)
    assert [_text(h) for h in deal.hole] == hole
    assert _text(deal.board) == board


@pytest.mark.parametrize(
    ("log", "seed", "players"),
    [("limit2p-s1", 1, 2), ("limit2p-s2", 2, 2), ("limit3p-s1", 1, 3), ("limit3p-s2", 2, 3),
     ("nolimit2p-s1", 1, 2), ("nolimit2p-s2", 2, 2)],
)  # fmt: skip
def test_every_deal_of_the_reference_logs(log, seed, players):
    stream = deals(seed, players)
    count = 0
    for line in (REFERENCE / f"{log}.log").read_text().splitlines():
        if not line.startswith("STATE:"):
            continue
        deal = next(stream)
        shown = line.split(":")[3].split("/")
        assert shown[0].split("|") == [_text(h) for h in deal.hole], line
        assert _text(deal.board).startswith("".join(shown[1:])), line
        count += 1
    assert count == 1000


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 10))
def test_the_engines_deck_deals_the_dealers_cards(seed, players):
    deal = next(deals(seed, players))
    deck = engine_deck(deal)
    assert sorted(deck) == list(range(52))
    for i, hole in enumerate(deal.hole):  # one card a seat, round after round
        assert [deck[i], deck[players + i]] == list(hole)
    at = 2 * players
    assert deck[at + 1 : at + 4] + [deck[at + 5], deck[at + 7]] == list(deal.board)


def test_a_split_pot_pays_exact_halves_and_side_pots_level_by_level():
    board = cards.parse_many("As Ks Qs Js Ts")  # everybody plays the royal flush
    hole = {
        0: cards.parse_many("2c 3d"),
        1: cards.parse_many("4h 5c"),
        2: cards.parse_many("6d 7h"),
    }
    got = dealer_payoffs({0: 5, 1: 10, 2: 10}, {0}, hole, board)
    assert got == {0: -5, 1: Fraction(5, 2), 2: Fraction(5, 2)}
    # three ways, one folded: thirds
    got = dealer_payoffs({0: 10, 1: 10, 2: 10, 3: 5}, {3}, hole, board)
    assert got[0] == got[1] == got[2] == Fraction(5, 3) and sum(got.values()) == 0
    # a side pot: 0 all in for 100 with the best hand, 1 and 2 put in 300
    board = cards.parse_many("2s 7d 9c Jh Kd")
    hole = {
        0: cards.parse_many("Ac Ad"),
        1: cards.parse_many("Kc Qc"),
        2: cards.parse_many("3c 4c"),
    }
    spent = {0: Decimal(100), 1: Decimal(300), 2: Decimal(300)}
    got = dealer_payoffs(spent, set(), hole, board)
    assert got == {0: 200, 1: 100, 2: -300}
    # everybody else folded: the last one takes what they put in
    assert dealer_payoffs({0: 5, 1: 10}, {0}, hole, board) == {0: -5, 1: 5}


@pytest.mark.parametrize(
    ("value", "text"),
    [(Fraction(5, 2), "2.5"), (-40, "-40"), (0, "0"), (Fraction(-5, 2), "-2.5"),
     (Fraction(10, 3), "3.333333"), (Fraction(2505, 2), "1252.5"), (301300, "301300"),
     (Decimal("1e7"), "10000000")],
)  # fmt: skip
def test_numbers_are_printed_as_the_dealer_prints_them(value, text):
    assert log_number(value) == text
