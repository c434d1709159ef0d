"""The group the deck is encrypted in: the prime-order subgroup of Ed25519.

Mental poker needs a *commutative* cipher: ``E_a(E_b(m)) = E_b(E_a(m))``, so that the
peers can lock and unlock the cards in any order.  Pohlig–Hellman (SRA) exponentiation
is one: in a group of prime order ``L``, encrypting a point ``M`` with a secret scalar
``k`` is ``k·M``, and decrypting is multiplying by ``k⁻¹ mod L``.  We use the subgroup
of order ``L = 2^252 + 27742317777372353535851937790883648493`` of the Ed25519 curve
through libsodium (PyNaCl's bindings): there the decision Diffie–Hellman problem is hard,
so ``k·M`` tells nothing about ``M`` to whoever lacks ``k`` (unlike SRA modulo a
prime, which leaks the quadratic residuosity of every card).

Every value is bytes: a *scalar* is 32 bytes little-endian, reduced modulo ``L`` and
never zero; a *point* is the 32-byte compressed encoding of a point of the subgroup.
:func:`mul` refuses any point that is not a canonical, non-identity point of the
prime-order subgroup (libsodium checks it on every multiplication), so a peer cannot
confine a key to a small subgroup by sending a crafted point.

The 52 cards are the points :data:`CARDS`: ``from_uniform(SHA-512(label || card)[:32])``,
libsodium's Elligator 2 map, whose discrete logarithms nobody knows (with a known
logarithm ``m`` of ``M = m·B``, two encryptions under one key could be compared).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence

from nacl import bindings, exceptions

#: the order of the group
L = 2**252 + 27742317777372353535851937790883648493
SCALAR_BYTES = 32
POINT_BYTES = 32
#: what the card points are made from (a change gives other card points)
CARD_LABEL = b"gamehub p2p card v1\x00"


class GroupError(ValueError):
    """A value is not a scalar or a point of the group (a peer sent something that is
    not an encrypted card, or a key that is no key)."""


def random_scalar() -> bytes:
    """A fresh uniformly random non-zero scalar (a key)."""
    while True:
        s = bindings.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
        if any(s):
            return s


def check_scalar(s: object) -> bytes:
    """``s`` if it is a reduced, non-zero scalar.

    :raises GroupError: anything else.
    """
    if not isinstance(s, bytes) or len(s) != SCALAR_BYTES:
        raise GroupError("a key is 32 bytes")
    value = int.from_bytes(s, "little")
    if not 0 < value < L:
        raise GroupError("a key is a non-zero number below the group order")
    return s


def scalar_mul(a: bytes, b: bytes) -> bytes:
    """``a·b mod L``."""
    return bindings.crypto_core_ed25519_scalar_mul(a, b)


def product(scalars: Iterable[bytes]) -> bytes:
    """The product of ``scalars`` modulo ``L`` (1 for none)."""
    out = ONE
    for s in scalars:
        out = bindings.crypto_core_ed25519_scalar_mul(out, s)
    return out


def invert(s: bytes) -> bytes:
    """``s⁻¹ mod L``."""
    return bindings.crypto_core_ed25519_scalar_invert(s)


def invert_all(scalars: Sequence[bytes]) -> list[bytes]:
    """The inverses of ``scalars``, with one inversion (Montgomery's trick)."""
    if not scalars:
        return []
    prefix = [ONE]
    for s in scalars:
        prefix.append(scalar_mul(prefix[-1], s))
    inv = invert(prefix[-1])
    out = [b""] * len(scalars)
    for i in range(len(scalars) - 1, -1, -1):
        out[i] = scalar_mul(inv, prefix[i])
        inv = scalar_mul(inv, scalars[i])
    return out


def mul(s: bytes, point: bytes) -> bytes:
    """``s·point``: encrypt ``point`` with key ``s`` (or decrypt, with an inverse).

    :raises GroupError: ``point`` is not a point of the prime-order subgroup (or the
        identity), or ``s`` is not 32 bytes.
    """
    try:
        return bindings.crypto_scalarmult_ed25519_noclamp(s, point)
    except (exceptions.RuntimeError, exceptions.TypeError, TypeError) as e:
        raise GroupError(f"not a point of the group: {e}") from None


def is_point(point: object) -> bool:
    """Whether ``point`` is a canonical non-identity point of the prime-order subgroup."""
    return (
        isinstance(point, bytes)
        and len(point) == POINT_BYTES
        and bool(bindings.crypto_core_ed25519_is_valid_point(point))
    )


def card_point(card: int) -> bytes:
    """The point that stands for ``card`` (0–51) before any encryption."""
    digest = hashlib.sha512(CARD_LABEL + bytes([card])).digest()
    return bindings.crypto_core_ed25519_from_uniform(digest[:32])


ONE = (1).to_bytes(SCALAR_BYTES, "little")
#: the card points, card order
CARDS: tuple[bytes, ...] = tuple(card_point(c) for c in range(52))
#: point → card
CARD_OF: dict[bytes, int] = {p: c for c, p in enumerate(CARDS)}
assert len(CARD_OF) == 52, "the card points must be distinct"
