"""Tests of the provably fair shuffle."""

import hashlib
import random

import pytest

from games.poker import shuffle
from games.poker.cards import HIDDEN


def reference_deck(seed: bytes) -> list[int]:
    """An independent reading of the module docstring: the whole stream up front."""
    stream = b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range(64))
    words = [int.from_bytes(stream[k : k + 4], "big") for k in range(0, len(stream), 4)]
    deck = list(range(52))
    w = 0
    for i in range(51, 0, -1):
        bound = 2**32 - (2**32 % (i + 1))
        while words[w] >= bound:
            w += 1
        j = words[w] % (i + 1)
        w += 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_known_answer():
    seed_hex, head = shuffle.KNOWN_ANSWER
    deck = shuffle.deck_from_seed(seed_hex)
    assert deck[:10] == head == [47, 21, 23, 24, 14, 27, 18, 38, 17, 42]
    assert deck == reference_deck(bytes(32))
    assert shuffle.commitment(bytes(32)) == hashlib.sha256(bytes(32)).hexdigest()
    assert shuffle.commitment(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


def test_reference_agrees_on_many_seeds():
    rng = random.Random(11)
    for _ in range(200):
        seed = rng.randbytes(32)
        assert shuffle.deck_from_seed(seed) == reference_deck(seed)


def test_deck_is_a_permutation_and_seed_dependent():
    a = shuffle.deck_from_seed(b"\x01" * 32)
    b = shuffle.deck_from_seed(b"\x02" * 32)
    assert sorted(a) == list(range(52)) and sorted(b) == list(range(52))
    assert a != b
    assert shuffle.deck_from_seed((b"\x01" * 32).hex()) == a


def test_new_seed():
    s1, s2 = shuffle.new_seed(), shuffle.new_seed()
    assert len(s1) == 32 and s1 != s2
    assert len(shuffle.commitment(s1)) == 64


def test_uniformity_chi_square():
    """Card × position counts over 20,000 decks from fixed seeds (no timing).

    52×52 cells, 2601 degrees of freedom: mean 2601, sd ≈ 72; a bias of a few percent
    in any region would push the statistic far beyond the 5-sd bound used here.
    """
    n = 20_000
    counts = [[0] * 52 for _ in range(52)]
    for k in range(n):
        deck = shuffle.deck_from_seed(hashlib.sha256(b"chi" + k.to_bytes(4, "big")).digest())
        for pos, c in enumerate(deck):
            counts[pos][c] += 1
    expected = n / 52
    chi = sum((x - expected) ** 2 / expected for row in counts for x in row)
    assert 2601 - 5 * 72 < chi < 2601 + 5 * 72
    # and the first card alone (what a cheater would bias): 51 dof, sd 10
    first = [counts[0][c] for c in range(52)]
    chi0 = sum((x - expected) ** 2 / expected for x in first)
    assert chi0 < 51 + 5 * 10


def test_verify_accepts_honest_deal():
    seed = shuffle.new_seed()
    deck = shuffle.deck_from_seed(seed)
    com = shuffle.commitment(seed)
    verdict = shuffle.verify(com, seed, deck[:9])
    assert verdict and verdict.ok
    assert "9 dealt" in verdict.reason
    # unseen cards (mucked) are skipped; hex seeds and upper-case commitments work
    assert shuffle.verify(com.upper(), seed.hex(), [deck[0], HIDDEN, None, deck[3]]).ok
    assert shuffle.verify(com, seed, {7: deck[7], 20: deck[20]}).ok


def test_verify_rejects():
    seed = shuffle.new_seed()
    deck = shuffle.deck_from_seed(seed)
    com = shuffle.commitment(seed)
    other = shuffle.new_seed()
    ok, reason = shuffle.verify(com, other, deck[:4])
    assert not ok and "commitment" in reason
    tampered = deck[:4]
    tampered[2] = deck[10]
    ok, reason = shuffle.verify(com, seed, tampered)
    assert not ok and "card 2" in reason
    assert not shuffle.verify(com, "zz", deck[:2])
    assert not shuffle.verify(com, b"short", deck[:2])
    assert not shuffle.verify(com, seed, {60: deck[0]})
    assert not shuffle.verify(None, seed, [])


@pytest.mark.parametrize("bad", ["00", "g" * 64, b"x" * 31, 5])
def test_bad_seeds(bad):
    with pytest.raises(ValueError):
        shuffle.deck_from_seed(bad)
