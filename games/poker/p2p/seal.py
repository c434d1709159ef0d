"""The table key: what the peers share and the hub relaying them does not.

At the end of a hand every peer publishes all its keys of the hand, which open every
card, folded hands included: the other peers are entitled to them (it is how they check
the deal), a hub that relays the table is not.  So these keys travel sealed with a key
only the table's peers know:

1. each peer draws 32 random bytes and sends them to every other peer in a
   ``crypto_box`` (X25519 of the two peers' Ed25519 keys, XSalsa20-Poly1305): the hub
   sees only the boxes;
2. the table key is ``SHA-256(label || table id || the contributions in seat order)``;
   each peer publishes a check value of it (:func:`check_value`); all must be equal,
   so every peer holds the same key (a peer that sent different contributions to
   different peers is found out there, and the table stops);
3. a hand's keys are sealed with ``SHA-256(label || table key || hand number)`` in a
   ``crypto_secretbox``: every peer opens the same ciphertext, so a sealed message that
   does not open is the author's fault, seen alike by every peer.

The key is made again whenever a peer leaves the table, so a peer that left (or was
excluded) cannot read what follows, even with the hub's help.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping

from nacl import exceptions, public, secret

CONTRIBUTION_BYTES = 32
_LABEL = b"gamehub p2p table key v1\x00"


class SealError(ValueError):
    """A box or sealed message that does not open."""


def contribution() -> bytes:
    """A peer's fresh contribution to the table key."""
    return secrets.token_bytes(CONTRIBUTION_BYTES)


def box_for(mine: bytes, theirs: bytes, data: bytes) -> bytes:
    """``data`` boxed from the X25519 private key ``mine`` to the public key ``theirs``."""
    return bytes(public.Box(public.PrivateKey(mine), public.PublicKey(theirs)).encrypt(data))


def open_box(mine: bytes, theirs: bytes, data: bytes) -> bytes:
    """Open a box to ``mine`` from ``theirs``.

    :raises SealError: it does not open (or is malformed).
    """
    try:
        return public.Box(public.PrivateKey(mine), public.PublicKey(theirs)).decrypt(data)
    except (exceptions.CryptoError, ValueError, TypeError):
        raise SealError("a box that does not open") from None


def table_key(table_id: bytes, contributions: Mapping[int, bytes]) -> bytes:
    """The table key from every peer's contribution (seat → bytes)."""
    h = hashlib.sha256(_LABEL + table_id)
    for seat in sorted(contributions):
        h.update(seat.to_bytes(2, "big") + contributions[seat])
    return h.digest()


def check_value(key: bytes) -> str:
    """What a peer publishes to show which table key it holds (hex)."""
    return hashlib.sha256(b"check\x00" + key).hexdigest()


def _hand_key(key: bytes, hand: int) -> bytes:
    return hashlib.sha256(b"hand\x00" + key + hand.to_bytes(8, "big")).digest()


def seal(key: bytes, hand: int, data: bytes) -> bytes:
    """``data`` sealed for the table's peers for ``hand``."""
    return bytes(secret.SecretBox(_hand_key(key, hand)).encrypt(data))


def unseal(key: bytes, hand: int, data: bytes) -> bytes:
    """Open what :func:`seal` sealed.

    :raises SealError: it does not open.
    """
    try:
        return secret.SecretBox(_hand_key(key, hand)).decrypt(data)
    except (exceptions.CryptoError, ValueError, TypeError):
        raise SealError("a sealed message that does not open with the table key") from None
