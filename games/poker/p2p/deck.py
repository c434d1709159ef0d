"""The mental-poker deck: shuffled, locked and opened by every peer in turn.

A hand's deck goes through the hand's peers ``P0 … Pn-1`` (a fixed order for the
hand) in two passes; every deck is 52 points of :mod:`.group`, a position per card.

1. **Shuffle.**  ``D0`` is the 52 card points in card order.  ``P0 … Pn-2`` each take
   the last deck, encrypt every point with a key of their own for the hand (``k``) and
   permute the result at random: ``D(i+1) = π(k·D(i))``.  The last peer ``Pn-1``
   shuffles and locks at once: ``D(n)[p] = s_p·D(n-1)[π(p)]`` with a fresh key ``s_p``
   for each position (nobody permutes after it, so its keys can be per position at
   once).
2. **Lock.**  ``P0 … Pn-2`` each replace their one key by a key per position:
   ``L[p] = (s_p·k⁻¹)·L'[p]``.  After the last of them the deck ``F`` is
   ``F[p] = (Π_i s_i,p)·card(p)``: every position is locked by every peer with a key
   used nowhere else.

A position is opened by the *unlock keys* ``u_i,p = s_i,p⁻¹`` of every peer:
``card(p) = (Π_i u_i,p)·F[p]``.  A hole card is opened for its owner by everyone else
publishing their unlock keys for it (the owner adds its own and tells nobody); a board
card by everyone publishing theirs.  Keys are revealed per position, so opening one
card tells nothing of the others.

At the end of the hand every peer publishes its hand key ``k`` (none for the last
peer) and its 52 unlock keys (:meth:`DealSecrets.end_keys`), and :func:`check_deal`
checks the whole deal: every key revealed during the hand is the one published at the
end, every position of ``F`` opens to a card and the 52 cards are all different; when
that fails it checks the passes step by step and names the first peer whose step does
not follow from its published keys (its input deck, its output deck and its keys: a
shuffle must be a permutation of its encrypted input, a lock must lock each position
in place).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import group
from .group import CARD_OF, CARDS, GroupError

DECK_SIZE = 52
#: the bytes of a peer's published keys: the hand key then the 52 unlock keys
END_KEYS_BYTES = group.SCALAR_BYTES * (1 + DECK_SIZE)
#: the hand key of the last peer, which has none
NO_KEY = bytes(group.SCALAR_BYTES)


def random_permutation(n: int) -> list[int]:
    """A uniformly random permutation of ``range(n)`` (Fisher–Yates on the OS's CSPRNG)."""
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


class DealSecrets:
    """One peer's secrets for one hand's deal: its hand key, permutation and lock keys.

    :param last: whether the peer is the last of the hand's order (shuffles and locks
        in one step, has no hand key).
    """

    def __init__(self, last: bool) -> None:
        self.last = last
        self.key: bytes | None = None if last else group.random_scalar()
        self.lock_keys = [group.random_scalar() for _ in range(DECK_SIZE)]
        self.unlock_keys = group.invert_all(self.lock_keys)
        self.permutation = random_permutation(DECK_SIZE)

    def shuffle(self, deck: Sequence[bytes]) -> list[bytes]:
        """This peer's shuffle of ``deck`` (its lock too, when it is the last).

        :raises GroupError: a point of ``deck`` is not a point of the group.
        """
        _check_size(deck)
        pi = self.permutation
        if self.key is None:
            s = self.lock_keys
            return [group.mul(s[p], deck[pi[p]]) for p in range(DECK_SIZE)]
        k = self.key
        return [group.mul(k, deck[pi[p]]) for p in range(DECK_SIZE)]

    def lock(self, deck: Sequence[bytes]) -> list[bytes]:
        """This peer's lock of ``deck``: its hand key replaced by one key per position.

        :raises GroupError: a point of ``deck`` is not a point of the group.
        """
        assert self.key is not None, "the last peer locks while it shuffles"
        _check_size(deck)
        k_inv = group.invert(self.key)
        s = self.lock_keys
        return [group.mul(group.scalar_mul(s[p], k_inv), deck[p]) for p in range(DECK_SIZE)]

    def reveal(self, positions: Sequence[int]) -> dict[int, bytes]:
        """The unlock keys of ``positions``."""
        return {p: self.unlock_keys[p] for p in positions}

    def end_keys(self) -> bytes:
        """Everything this peer publishes at the end of the hand (:data:`END_KEYS_BYTES`)."""
        return (self.key or NO_KEY) + b"".join(self.unlock_keys)


def _check_size(deck: Sequence[bytes]) -> None:
    if len(deck) != DECK_SIZE:
        raise GroupError(f"a deck has {DECK_SIZE} cards, not {len(deck)}")


@dataclass(frozen=True)
class EndKeys:
    """A peer's published keys: ``key`` (``None`` for the last peer) and ``unlock``."""

    key: bytes | None
    unlock: tuple[bytes, ...]


def parse_end_keys(data: bytes, last: bool) -> EndKeys:
    """Read a peer's published keys (:meth:`DealSecrets.end_keys`).

    :raises GroupError: the wrong length, a key that is no key, or a hand key where
        there must be none (or none where there must be one).
    """
    if not isinstance(data, bytes) or len(data) != END_KEYS_BYTES:
        raise GroupError(f"the keys of a hand are {END_KEYS_BYTES} bytes")
    n = group.SCALAR_BYTES
    head = data[:n]
    if last:
        if head != NO_KEY:
            raise GroupError("the last peer of a hand has no hand key")
        key = None
    else:
        key = group.check_scalar(head)
    unlock = tuple(group.check_scalar(data[n * (i + 1) : n * (i + 2)]) for i in range(DECK_SIZE))
    return EndKeys(key, unlock)


def open_card(point: bytes, keys: Sequence[bytes]) -> int | None:
    """The card at a locked position ``point`` opened with every peer's unlock key of
    it (``None``: it opens to no card: a key is wrong).

    :raises GroupError: ``point`` is not a point of the group.
    """
    return CARD_OF.get(group.mul(group.product(keys), point))


@dataclass
class Deal:
    """The public decks of one hand, as the peers sent them.

    :ivar order: the peers of the hand, in its order (any hashable ids).
    :ivar shuffles: each peer's shuffle output (the last peer's is shuffled and locked).
    :ivar locks: each peer's lock output (all but the last).
    """

    order: tuple[int, ...]
    shuffles: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    locks: dict[int, tuple[bytes, ...]] = field(default_factory=dict)

    @property
    def last(self) -> int:
        """The last peer of the order."""
        return self.order[-1]

    def input_of_shuffle(self, peer: int) -> tuple[bytes, ...]:
        """The deck ``peer`` shuffled."""
        i = self.order.index(peer)
        return CARDS if i == 0 else self.shuffles[self.order[i - 1]]

    def input_of_lock(self, peer: int) -> tuple[bytes, ...]:
        """The deck ``peer`` locked."""
        i = self.order.index(peer)
        return self.shuffles[self.last] if i == 0 else self.locks[self.order[i - 1]]

    @property
    def final(self) -> tuple[bytes, ...] | None:
        """The locked deck the cards are dealt from (``None`` before the last lock)."""
        if len(self.order) == 1:
            return self.shuffles.get(self.last)
        return self.locks.get(self.order[-2])


@dataclass(frozen=True)
class DealCheck:
    """What :func:`check_deal` found.

    :ivar cards: the card at every position (``None``: the deal does not verify, or
        keys are missing).
    :ivar cheaters: peer → why its keys do not verify.
    """

    cards: tuple[int, ...] | None
    cheaters: dict[int, str]


def check_deal(
    deal: Deal,
    keys: Mapping[int, EndKeys],
    revealed: Mapping[tuple[int, int], bytes],
    opened: Mapping[int, int] | None = None,
) -> DealCheck:
    """Check a whole deal with every peer's published keys.

    :param keys: peer → its published keys (every peer of ``deal.order``).
    :param revealed: ``(peer, position)`` → the unlock key the peer revealed during the
        hand.
    :param opened: position → card already opened with keys that are all in
        ``revealed`` (checked again only through the keys, to save the work).
    """
    cheaters: dict[int, str] = {}
    for (peer, pos), key in revealed.items():
        published = keys.get(peer)
        if published is not None and published.unlock[pos] != key:
            cheaters.setdefault(
                peer, f"revealed a key for position {pos} that is not its published one"
            )
    if cheaters:
        return DealCheck(None, cheaters)
    final = deal.final
    assert final is not None, "a deal is checked once its deck is locked"
    opened = dict(opened or {})
    cards: list[int] = []
    for p in range(DECK_SIZE):
        c = opened.get(p)
        if c is None:
            try:
                c = open_card(final[p], [keys[peer].unlock[p] for peer in deal.order])
            except GroupError:
                c = None
        if c is None:
            break
        cards.append(c)
    if len(cards) == DECK_SIZE and len(set(cards)) == DECK_SIZE:
        return DealCheck(tuple(cards), {})
    return DealCheck(None, check_steps(deal, keys))


def check_steps(deal: Deal, keys: Mapping[int, EndKeys]) -> dict[int, str]:
    """Check every shuffle and lock with its peer's keys; the peers whose step does not
    follow from their keys, and why (empty: every step does)."""
    bad: dict[int, str] = {}
    for peer in deal.order:
        why = _check_shuffle(deal, peer, keys[peer])
        if why is None and peer != deal.last:
            why = _check_lock(deal, peer, keys[peer])
        if why is not None:
            bad[peer] = why
    return bad


def _check_shuffle(deal: Deal, peer: int, mine: EndKeys) -> str | None:
    given = deal.input_of_shuffle(peer)
    out = deal.shuffles[peer]
    try:
        if peer == deal.last:
            back = [group.mul(mine.unlock[p], out[p]) for p in range(DECK_SIZE)]
            if sorted(back) != sorted(given):
                return "its shuffle is not a locked permutation of the deck it was given"
            return None
        assert mine.key is not None
        ours = [group.mul(mine.key, x) for x in given]
    except GroupError:
        return "its shuffle holds a value that is not an encrypted card"
    if sorted(ours) != sorted(out):
        return "its shuffle is not a permutation of the deck it was given, encrypted"
    return None


def _check_lock(deal: Deal, peer: int, mine: EndKeys) -> str | None:
    given = deal.input_of_lock(peer)
    out = deal.locks[peer]
    assert mine.key is not None
    try:
        for p in range(DECK_SIZE):
            if group.mul(group.scalar_mul(mine.unlock[p], mine.key), out[p]) != given[p]:
                return f"its lock of position {p} does not follow from its keys"
    except GroupError:
        return "its lock holds a value that is not an encrypted card"
    return None
