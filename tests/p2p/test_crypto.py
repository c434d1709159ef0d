"""The mental-poker cipher and deck (:mod:`games.poker.p2p.group`, :mod:`.deck`) and the
table key (:mod:`.seal`): what they prove, and that each cheat is named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl import bindings

from games.poker.p2p import deck, group, seal
from games.poker.p2p.deck import Deal, DealSecrets, check_deal, parse_end_keys
from games.poker.p2p.group import CARDS, GroupError


def test_the_52_card_points_are_distinct_points_of_the_prime_order_group():
    assert len(set(CARDS)) == 52
    for point in CARDS:
        assert group.is_point(point)
        # L·P is the identity: the point lies in the subgroup of prime order L
        with pytest.raises(GroupError):
            group.mul((group.L).to_bytes(33, "little")[:32], point)


scalars = st.integers(1, group.L - 1).map(lambda n: n.to_bytes(32, "little"))


@settings(max_examples=25)
@given(scalars, scalars, st.integers(0, 51))
def test_the_cipher_commutes_and_a_key_times_its_inverse_opens(a, b, card):
    m = CARDS[card]
    assert group.mul(a, group.mul(b, m)) == group.mul(b, group.mul(a, m))
    locked = group.mul(group.scalar_mul(a, b), m)
    assert group.mul(group.invert(group.scalar_mul(a, b)), locked) == m
    assert group.CARD_OF[group.mul(group.invert(a), group.mul(a, m))] == card


def test_invert_all_is_every_inverse():
    keys = [group.random_scalar() for _ in range(10)]
    for key, inverse in zip(keys, group.invert_all(keys), strict=True):
        assert group.scalar_mul(key, inverse) == group.ONE


def test_points_outside_the_group_are_refused():
    # a point of small order (the cofactor's subgroup), the identity, a non-point, junk
    small = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    identity = (1).to_bytes(32, "little")
    for bad in (small, identity, b"\xff" * 32, b"short"):
        assert not group.is_point(bad)
        with pytest.raises(GroupError):
            group.mul(group.random_scalar(), bad)
    # a point of the whole curve with a torsion part: on the curve, not in the subgroup
    torsioned = bindings.crypto_core_ed25519_add(CARDS[0], small)
    assert not group.is_point(torsioned)


def test_check_scalar_refuses_zero_and_unreduced_keys():
    with pytest.raises(GroupError):
        group.check_scalar(bytes(32))
    with pytest.raises(GroupError):
        group.check_scalar(group.L.to_bytes(32, "little"))
    with pytest.raises(GroupError):
        group.check_scalar(b"\x01" * 31)
    assert group.check_scalar(group.ONE) == group.ONE


def deal_of(order, secrets):
    """Play a deal's two passes: every peer shuffles, then all but the last lock."""
    d = Deal(tuple(order))
    current = CARDS
    for peer in order:
        current = tuple(secrets[peer].shuffle(current))
        d.shuffles[peer] = current
    for peer in order[:-1]:
        current = tuple(secrets[peer].lock(current))
        d.locks[peer] = current
    return d


def keys_of(order, secrets):
    return {p: parse_end_keys(secrets[p].end_keys(), p == order[-1]) for p in order}


@pytest.mark.parametrize("n", [2, 3, 6])
def test_an_honest_deal_opens_to_a_permutation_and_each_card_needs_every_key(n):
    order = list(range(n))
    secrets = {p: DealSecrets(last=p == order[-1]) for p in order}
    d = deal_of(order, secrets)
    found = check_deal(d, keys_of(order, secrets), {})
    assert found.cheaters == {} and sorted(found.cards) == list(range(52))
    final = d.final
    # every key of a position opens its card; all but one do not
    for p in (0, 17, 51):
        keys = [secrets[peer].unlock_keys[p] for peer in order]
        assert deck.open_card(final[p], keys) == found.cards[p]
        for left_out in range(n):
            assert deck.open_card(final[p], keys[:left_out] + keys[left_out + 1 :]) is None
    # the unlock keys of a position are used nowhere else
    assert deck.open_card(final[1], [secrets[peer].unlock_keys[0] for peer in order]) is None


def test_the_deal_is_a_fresh_permutation_each_time():
    order = [0, 1]
    decks = set()
    for _ in range(5):
        secrets = {p: DealSecrets(last=p == 1) for p in order}
        decks.add(check_deal(deal_of(order, secrets), keys_of(order, secrets), {}).cards)
    assert len(decks) == 5


class SwapsInLock(DealSecrets):
    def lock(self, given):
        out = super().lock(given)
        out[3], out[4] = out[4], out[3]
        return out


class IgnoresItsInput(DealSecrets):
    def shuffle(self, given):  # shuffles the plain deck: it would know every card
        return super().shuffle(CARDS) if self.key is not None else super().shuffle(given)


class DuplicatesACard(DealSecrets):
    def shuffle(self, given):
        out = super().shuffle(given)
        out[0] = out[1]
        return out


@pytest.mark.parametrize(
    ("cheat", "why"),
    [
        (SwapsInLock, "its lock of position 3 does not follow from its keys"),
        (IgnoresItsInput, "not a permutation of the deck it was given"),
        (DuplicatesACard, "not a permutation of the deck it was given"),
    ],
)
def test_a_deal_that_does_not_follow_from_the_published_keys_names_its_peer(cheat, why):
    order = [0, 1, 2]
    secrets = {p: (cheat if p == 1 else DealSecrets)(last=p == 2) for p in order}
    found = check_deal(deal_of(order, secrets), keys_of(order, secrets), {})
    assert found.cards is None
    assert list(found.cheaters) == [1] and why in found.cheaters[1]


def test_a_key_revealed_during_the_hand_must_be_the_one_published_at_its_end():
    order = [0, 1]
    secrets = {p: DealSecrets(last=p == 1) for p in order}
    d = deal_of(order, secrets)
    revealed = {(0, 5): group.random_scalar(), (1, 5): secrets[1].unlock_keys[5]}
    found = check_deal(d, keys_of(order, secrets), revealed)
    assert found.cards is None and list(found.cheaters) == [0]
    assert "position 5" in found.cheaters[0]


def test_published_keys_are_checked_for_form():
    secrets = DealSecrets(last=False)
    data = secrets.end_keys()
    assert parse_end_keys(data, last=False).key == secrets.key
    with pytest.raises(GroupError):
        parse_end_keys(data, last=True)  # the last peer has no hand key
    with pytest.raises(GroupError):
        parse_end_keys(data[:-1], last=False)
    with pytest.raises(GroupError):
        parse_end_keys(data[:32] + bytes(32) + data[64:], last=False)  # a zero key


def test_the_table_key_opens_for_its_peers_and_a_seal_opens_only_for_its_hand():
    from nacl.public import PrivateKey

    a, b = PrivateKey.generate(), PrivateKey.generate()
    share = seal.contribution()
    boxed = seal.box_for(bytes(a), bytes(b.public_key), share)
    assert seal.open_box(bytes(b), bytes(a.public_key), boxed) == share
    with pytest.raises(seal.SealError):
        seal.open_box(bytes(PrivateKey.generate()), bytes(a.public_key), boxed)
    key = seal.table_key(b"t" * 32, {0: share, 1: seal.contribution()})
    sealed = seal.seal(key, 7, b"every key of hand 7")
    assert seal.unseal(key, 7, sealed) == b"every key of hand 7"
    for wrong_key, hand in ((key, 8), (seal.table_key(b"t" * 32, {0: share}), 7)):
        with pytest.raises(seal.SealError):
            seal.unseal(wrong_key, hand, sealed)
    assert seal.check_value(key) != seal.check_value(seal.table_key(b"u" * 32, {0: share}))
