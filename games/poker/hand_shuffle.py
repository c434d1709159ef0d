"""Where each hand's deck comes from, and the players' share in it.

A table makes one :class:`HandShuffle` per hand with its :class:`Shuffler`, in one of
three ways (the table's options choose):

- **Gamehub's shuffle** (the default): the hub draws a secret seed from the game's
  random source and publishes its commitment (``SHA-256(seed)``) before the deal.
  Until the deal every seated player may add a contribution (1 to 64 bytes of their
  own entropy, :meth:`HandShuffle.contribute`); the deck is then dealt from
  :func:`.shuffle.mixed_seed` of the seed and the contributions.  The seed was fixed
  before anyone's contribution was known, and each contribution changes the whole
  deck, so neither the hub nor any single player chooses the cards; the seed is
  revealed after the hand and anyone can check the whole chain
  (:func:`.verify.verify_hand`).
- **A match's seed of deals** (``deal_seed``): each hand's seed is derived from it
  (:func:`.shuffle.hand_seed`), so duplicate matches deal the same cards twice; no
  contributions (the match's seed covers the programs, which cannot send any).
- **The ACPC reference dealer's deals** (``dealer_seed``, a 32-bit seed): the cards
  the competition's dealer deals for that seed, hand for hand (:mod:`.acpc_deals`);
  no commitment and no contributions: whoever knows the seed knows every card, which
  is the point (reproducing reference matches).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from hub.model import CONTRIBUTE, CONTRIBUTED, SHUFFLE, GameOption

from . import acpc_deals, shuffle

__all__ = ["CONTRIBUTE", "CONTRIBUTED", "OPTIONS", "SHUFFLE", "HandShuffle", "Shuffler"]

#: the table options of the shuffle (declared with the poker table's others)
OPTIONS: tuple[GameOption, ...] = (
    GameOption("entropy_time", "number", 0, "time for the players' entropy", 0, 60, unit="s", for_people=2, help="the longest a deal waits for the players' contributions to the shuffle after its commitment (it deals as soon as everyone sitting in gave one); the pause between hands is the usual time for them"),
    GameOption("dealer_seed", "int", None, "ACPC dealer's seed", 0, 2**32 - 1, help="empty: Gamehub's shuffle; else the ACPC reference dealer's deals for this 32-bit seed, hand for hand (whoever knows it knows every card)"),
)  # fmt: skip


def check_options(options: dict[str, Any]) -> None:
    """Check the shuffle's options in ``options`` (already merged with the defaults).

    :raises ValueError: a bad value.
    """
    seed = options.get("dealer_seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
            raise ValueError("dealer_seed is an integer from 0 to 4294967295")
        if options.get("deal_seed") is not None:
            raise ValueError("a table has deal_seed or dealer_seed, not both")


#: a contribution in text: 2 to 128 hex digits (1 to 64 bytes)
_HEX = re.compile(r"^(?:[0-9a-fA-F]{2}){1,64}$")


def contribution_bytes(value: Any) -> bytes:
    """A contribution as bytes, from its hex text.

    :raises ValueError: not 1 to 64 bytes written as hex.
    """
    if not isinstance(value, str) or not _HEX.match(value):
        raise ValueError("a contribution is 1 to 64 bytes written as hex (2 to 128 digits)")
    return bytes.fromhex(value)


@dataclass
class HandShuffle:
    """The deck of one hand in the making (see the module).

    :ivar number: the table's hand number (1 first).
    :ivar seed: the hub's secret seed (``None`` for the dealer's deals).
    :ivar open: whether players may still contribute.
    :ivar contributions: seat → the bytes it added.
    :ivar published: the game time the commitment was published.
    :ivar dealer: (the dealer's seed, the hand's index in its stream) for its deals.
    """

    number: int
    seed: bytes | None
    open: bool
    published: float
    dealer: tuple[int, int] | None = None
    contributions: dict[int, bytes] = field(default_factory=dict)

    @property
    def commitment(self) -> str | None:
        """``SHA-256(seed)`` in hex, published before the deal (``None``: no seed)."""
        return None if self.seed is None else shuffle.commitment(self.seed)

    def contribute(self, seat: int, value: bytes) -> None:
        """``seat`` adds ``value`` to the shuffle (once a hand, before the deal).

        :raises ValueError: contributions are closed, or ``seat`` gave one already.
        """
        if not self.open:
            raise ValueError("this table takes no contribution to the shuffle now")
        if seat in self.contributions:
            raise ValueError(f"seat {seat} has contributed to this shuffle already")
        self.contributions[seat] = value

    def deck_seed(self) -> bytes:
        """The seed the deck is dealt from (the hub's seed mixed with contributions)."""
        assert self.seed is not None
        return shuffle.mixed_seed(self.seed, self.contributions)

    def extra(self) -> dict[str, Any]:
        """What the hand record keeps of the shuffle (the seed too: the record is
        private; who may see the seed is the history's business)."""
        out: dict[str, Any] = {
            "commitment": self.commitment,
            "seed": None if self.seed is None else shuffle.seed_hex(self.seed),
            "contributions": {str(s): v.hex() for s, v in sorted(self.contributions.items())},
        }
        if self.dealer is not None:
            out["dealer_seed"], out["dealer_hand"] = self.dealer
        return out


class Shuffler:
    """Makes the :class:`HandShuffle` of each hand of one table.

    :param options: the table's checked options (``deal_seed``, ``dealer_seed``).
    :param rng: the game's random source (draws the hub's seeds).
    """

    def __init__(self, options: Mapping[str, Any], rng: Random) -> None:
        self._deal_seed = options.get("deal_seed")
        self._dealer_seed = options.get("dealer_seed")
        self._rng = rng
        self._stream: Iterator[acpc_deals.Deal] | None = None
        self._dealt = 0  #: hands taken from the dealer's stream

    @property
    def takes_contributions(self) -> bool:
        """Whether players may add to this table's shuffles."""
        return self._deal_seed is None and self._dealer_seed is None

    def prepare(self, number: int, now: float) -> HandShuffle:
        """The shuffle of hand ``number``, its commitment to publish now."""
        if self._dealer_seed is not None:
            return HandShuffle(number, None, False, now, (int(self._dealer_seed), self._dealt))
        if self._deal_seed is not None:
            return HandShuffle(number, shuffle.hand_seed(self._deal_seed, number), False, now)
        return HandShuffle(number, self._rng.randbytes(shuffle.SEED_BYTES), True, now)

    def deck(self, hand: HandShuffle, players: int) -> list[int]:
        """The deck of ``hand`` (contributions close), for ``players`` dealt in."""
        hand.open = False
        if hand.dealer is None:
            return shuffle.deck_from_seed(hand.deck_seed())
        if self._stream is None:
            self._stream = acpc_deals.deals(hand.dealer[0], players)
        hand.dealer = (hand.dealer[0], self._dealt)
        self._dealt += 1
        return acpc_deals.engine_deck(next(self._stream))
