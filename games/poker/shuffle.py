"""Provably fair shuffling: the deck is a published function of a secret seed.

Before a hand the server draws a fresh ``seed`` (32 bytes from the operating system's
CSPRNG, :func:`new_seed`) and publishes ``commitment = SHA-256(seed)`` as lowercase hex
(:func:`commitment`).  The deck order is :func:`deck_from_seed` of the seed.  When the
hand is over the server reveals the seed; anyone can then check the commitment and
recompute the deck and every card dealt (:func:`verify`).

The function, exactly (so that any client can reimplement it):

1. **Byte stream.**  ``block(i) = SHA-256(seed || i)`` where ``i`` = 0, 1, 2, … is
   encoded as 8 bytes, unsigned big-endian, and ``||`` is concatenation.  The stream is
   ``block(0) || block(1) || …`` (32 bytes per block).
2. **Words.**  The stream is read as consecutive 4-byte unsigned big-endian integers
   ``u`` (8 words per block, in order).
3. **Uniform integer below n** (``1 <= n <= 52``): ``limit = (2**32 // n) * n``; take
   the next word ``u``; if ``u >= limit`` discard it and take the next one (rejection
   sampling, so there is no modulo bias); the result is ``u % n``.
4. **Fisher–Yates.**  Start from ``deck = [0, 1, …, 51]`` (card = rank * 4 + suit, see
   :mod:`games.poker.cards`).  For ``i`` from 51 down to 1: ``j`` = uniform integer
   below ``i + 1``; swap ``deck[i]`` and ``deck[j]``.
5. **Dealing.**  Cards are dealt from the front: ``deck[0]`` is the first card dealt,
   ``deck[1]`` the second, and so on, in the order the engine deals (the engine
   documents its order: e.g. hole cards one at a time around the table starting left
   of the button, then the board; burn cards, if any, take their positions too).

**Contributions.**  Players may add their own entropy after the commitment is
published and before the deal (:mod:`.hand_shuffle`).  The deck is then dealt, by the
steps above, from the *mixed seed* instead of the seed (:func:`mixed_seed`)::

    mixed = SHA-256("gamehub-shuffle-v1" || seed || for each contributing seat s in
                    ascending order: byte(s) || byte(len(c_s)) || c_s)

where ``c_s`` (1 to 64 bytes) is seat ``s``'s contribution and the first part is those
18 ASCII bytes.  Without contributions the deck is dealt from the seed itself.

Known answer: the seed of 32 zero bytes gives a deck starting
``[47, 21, 23, 24, 14, 27, 18, 38, 17, 42]``
(see :data:`KNOWN_ANSWER`).  A seed travels as 64 lowercase hex characters.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from .cards import HIDDEN

SEED_BYTES = 32


def new_seed() -> bytes:
    """A fresh seed: 32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def seed_bytes(seed: bytes | str) -> bytes:
    """The seed as bytes; accepts bytes or its hex text.

    :raises ValueError: when it is not 32 bytes (64 hex characters).
    """
    if isinstance(seed, str):
        try:
            raw = bytes.fromhex(seed)
        except ValueError:
            raise ValueError("a seed in text is 64 hexadecimal characters") from None
    elif isinstance(seed, bytes | bytearray):
        raw = bytes(seed)
    else:
        raise ValueError(f"a seed is bytes or hex text, not {type(seed).__name__}")
    if len(raw) != SEED_BYTES:
        raise ValueError(f"a seed has {SEED_BYTES} bytes, got {len(raw)}")
    return raw


def seed_hex(seed: bytes | str) -> str:
    """The seed as 64 lowercase hex characters."""
    return seed_bytes(seed).hex()


def hand_seed(deal_seed: bytes | str, number: int) -> bytes:
    """The seed of hand ``number`` (1, 2, ...) of a table dealt from ``deal_seed``:
    ``SHA-256(deal_seed || number as 8 bytes big-endian)``.  Two tables with the same
    deal seed deal the same decks in the same order (duplicate matches); each hand's
    seed is still published and verified like any other."""
    return hashlib.sha256(seed_bytes(deal_seed) + number.to_bytes(8, "big")).digest()


#: the first bytes hashed by :func:`mixed_seed`
MIX_LABEL = b"gamehub-shuffle-v1"


def mixed_seed(seed: bytes | str, contributions: Mapping[int, bytes]) -> bytes:
    """The seed the deck is dealt from once players contributed (see the module); the
    seed itself when nobody did.

    :raises ValueError: a bad seed, a seat outside 0..255 or a contribution that is
        not 1 to 64 bytes.
    """
    raw = seed_bytes(seed)
    if not contributions:
        return raw
    h = hashlib.sha256(MIX_LABEL + raw)
    for seat in sorted(contributions):
        value = bytes(contributions[seat])
        if not 0 <= seat <= 255 or not 1 <= len(value) <= 64:
            raise ValueError(f"seat {seat}'s contribution is not 1 to 64 bytes of a seat 0..255")
        h.update(bytes([seat, len(value)]) + value)
    return h.digest()


def commitment(seed: bytes | str) -> str:
    """``SHA-256(seed)`` as 64 lowercase hex characters: published before the deal."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def _words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def deck_from_seed(seed: bytes | str) -> list[int]:
    """The deck order determined by ``seed`` (see the module docstring).

    :returns: the 52 cards, ``deck[0]`` dealt first.
    """
    words = _words(seed_bytes(seed))
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


#: (seed hex, first cards of its deck): a known-answer vector for reimplementations
KNOWN_ANSWER = ("00" * 32, [47, 21, 23, 24, 14, 27, 18, 38, 17, 42])


class Verdict(NamedTuple):
    """Outcome of a check: ``ok`` and a reason for people.  Truthy iff ``ok``."""

    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok


def verify(
    commitment_hex: str,
    seed: bytes | str,
    dealt: Sequence[int] | Mapping[int, int] = (),
    contributions: Mapping[int, bytes] | None = None,
) -> Verdict:
    """Check a revealed seed against its commitment and the cards dealt.

    :param commitment_hex: the commitment published before the deal.
    :param seed: the revealed seed (bytes or hex).
    :param dealt: the cards in deal order (position 0 first); :data:`HIDDEN` (-1) or
        ``None`` marks a card not seen (e.g. mucked), which is not checked.  Or a
        mapping ``{deck position: card}``.
    :param contributions: the players' contributions (seat → bytes): the deck is
        dealt from :func:`mixed_seed` of the seed and them.
    :returns: a :class:`Verdict`.
    """
    try:
        raw = seed_bytes(seed)
    except ValueError as e:
        return Verdict(False, f"bad seed: {e}")
    if not isinstance(commitment_hex, str):
        return Verdict(False, "no commitment")
    if not hmac.compare_digest(commitment(raw), commitment_hex.strip().lower()):
        return Verdict(False, "the seed does not match the commitment")
    try:
        deck = deck_from_seed(mixed_seed(raw, contributions or {}))
    except ValueError as e:
        return Verdict(False, f"bad contribution: {e}")
    items = dealt.items() if isinstance(dealt, Mapping) else enumerate(dealt)
    checked = 0
    for pos, c in items:
        if c is None or c == HIDDEN:
            continue
        if not (type(pos) is int and 0 <= pos < 52):
            return Verdict(False, f"no deck position {pos!r}")
        if deck[pos] != c:
            return Verdict(False, f"card {pos} dealt was {c!r} but the seed's deck has {deck[pos]}")
        checked += 1
    mixed = f" and {len(contributions)} contributions" if contributions else ""
    return Verdict(True, f"commitment matches; {checked} dealt cards agree with the seed{mixed}")
