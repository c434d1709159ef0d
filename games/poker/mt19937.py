"""MT19937, the 32-bit Mersenne Twister of Matsumoto and Nishimura, seeded as the
competition's reference dealer seeds it (``init_genrand``).

The ACPC reference dealer (project_acpc_server) draws every card of a match from one
such generator, seeded once with the 32-bit seed of its command line; :mod:`.acpc_deals`
deals its cards from this one.  Python's own :class:`random.Random` is the same
generator but seeds it differently (``init_by_array``), hence this small class.

Known answers (checked by the tests): seed 5489 gives 3499211612 first and
4123659995 as the 10,000th output; seed 1 gives 1791095845, 4282876139, 3093770124.
"""

from __future__ import annotations

_N = 624
_M = 397
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_MASK = 0xFFFFFFFF


def init_genrand(seed: int) -> list[int]:
    """The generator's 624 words of state after ``init_genrand(seed)``.

    :raises ValueError: ``seed`` is not an integer from 0 to 2**32 - 1.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _MASK:
        raise ValueError("an MT19937 seed is an integer from 0 to 4294967295")
    mt = [seed]
    for i in range(1, _N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & _MASK)
    return mt


class MT19937:
    """The generator; :meth:`next_u32` is ``genrand_int32``."""

    def __init__(self, seed: int) -> None:
        self._mt = init_genrand(seed)
        self._index = _N

    def _twist(self) -> None:
        mt = self._mt
        for i in range(_N):
            y = (mt[i] & _UPPER) | (mt[(i + 1) % _N] & _LOWER)
            value = mt[(i + _M) % _N] ^ (y >> 1)
            if y & 1:
                value ^= _MATRIX_A
            mt[i] = value
        self._index = 0

    def next_u32(self) -> int:
        """The next 32-bit output (``genrand_int32``)."""
        if self._index >= _N:
            self._twist()
        y = self._mt[self._index]
        self._index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y
