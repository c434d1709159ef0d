"""A game's random source that replays: :class:`SeededRandom`.

Every game gets ``context.rng`` (:class:`hub.model.GameContext`): a ``random.Random``
whose whole stream comes from the game's 32-byte seed (``context.seed``, drawn from the
operating system's CSPRNG when the game is made, kept in the game's journal in the
store, never sent to anyone).  The stream is BLAKE2b keyed with the seed in counter
mode, so

- without the seed the stream cannot be predicted (a keyed hash is a pseudorandom
  function), and
- with it the stream is the same on every hub and every run: a game resumed from its
  journal (:mod:`hub.play.journal`) draws the same cards, tiles and first movers again.

Only ``random()`` and ``getrandbits()`` are the source; every other method of
``random.Random`` (``choice``, ``shuffle``, ``randbytes``, ``sample``, ``randint``...)
is built on them by the standard library.
"""

from __future__ import annotations

import hashlib
import os
import random
from typing import Any

#: bytes of a game's seed
SEED_BYTES = 32
#: bytes of one block of the stream (BLAKE2b's largest digest)
_BLOCK = 64


def new_seed() -> bytes:
    """A fresh seed: :data:`SEED_BYTES` bytes from the operating system's CSPRNG."""
    return os.urandom(SEED_BYTES)


class SeededRandom(random.Random):
    """``random.Random`` over BLAKE2b(key=seed, counter): reproducible from ``seed``.

    :param seed: 1 to 64 bytes (a game's are :data:`SEED_BYTES`).
    :raises ValueError: another length, or not bytes.
    """

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes | bytearray) or not 1 <= len(seed) <= 64:
            raise ValueError("a seed is 1 to 64 bytes")
        self._key = bytes(seed)
        self._counter = 0
        self._buffer = b""
        super().__init__(0)

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Seeding again is not possible: the stream is the seed's (ignored)."""
        super().seed(0)

    def getstate(self) -> tuple[Any, ...]:
        """Not supported: a game's stream is replayed from its seed, never restored."""
        raise NotImplementedError("a SeededRandom is replayed from its seed")

    def setstate(self, state: Any) -> None:
        """Not supported (:meth:`getstate`)."""
        raise NotImplementedError("a SeededRandom is replayed from its seed")

    def _take(self, count: int) -> bytes:
        """The next ``count`` bytes of the stream."""
        while len(self._buffer) < count:
            block = hashlib.blake2b(
                self._counter.to_bytes(16, "big"), key=self._key, digest_size=_BLOCK
            ).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def getrandbits(self, k: int) -> int:
        """``k`` random bits as an integer."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        count = (k + 7) // 8
        return int.from_bytes(self._take(count), "big") >> (count * 8 - k)

    def random(self) -> float:
        """A float in ``[0, 1)`` from 53 bits of the stream."""
        return self.getrandbits(53) * (1.0 / (1 << 53))

    def randbytes(self, n: int) -> bytes:
        """``n`` bytes of the stream."""
        return self._take(n) if n > 0 else b""


__all__ = ["SEED_BYTES", "SeededRandom", "new_seed"]
