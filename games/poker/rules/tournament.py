"""A sit-and-go tournament's own rules: the blind schedule and the places of the busted.

Pure: no clock, no wire.  :class:`Schedule` says the stakes of each hand (levels rise
every ``hands_per_level`` hands; after the last listed level each further level doubles
the one before, so the blinds always rise until the tournament ends);
:func:`bust_places` places the players who lost their last chip in one hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from .money import money

#: The default levels (fixed limit, small bet/big bet; blinds are half the small bet and
#: the small bet): made for 1500 starting chips.
DEFAULT_LEVELS = (
    "20/40,30/60,50/100,80/160,100/200,150/300,200/400,300/600,400/800,600/1200,800/1600,1000/2000"
)
#: Most levels a schedule may list.
MAX_LEVELS = 100


@dataclass(frozen=True)
class Level:
    """One level of the schedule: its number (1 is the first) and its stakes.

    :ivar number: 1, 2, ...
    :ivar small_bet: the small bet (also the big blind).
    :ivar big_bet: the big bet (turn and river).
    """

    number: int
    small_bet: Decimal
    big_bet: Decimal

    @property
    def big_blind(self) -> Decimal:
        """The big blind: the small bet."""
        return self.small_bet

    @property
    def small_blind(self) -> Decimal:
        """The small blind: half the big blind."""
        return self.small_bet / 2

    @property
    def stakes(self) -> str:
        """``"20/40"``, as people write fixed-limit stakes."""
        return f"{self.small_bet}/{self.big_bet}"

    def to_dict(self) -> dict[str, object]:
        """The level as JSON-able data (amounts as decimal strings)."""
        return {
            "level": self.number,
            "stakes": self.stakes,
            "smallbet": str(self.small_bet),
            "bigbet": str(self.big_bet),
            "smallblind": str(self.small_blind),
            "bigblind": str(self.big_blind),
        }


def _whole(text: str, what: str) -> Decimal:
    value = money(text.strip(), what)
    if value != value.to_integral_value() or value <= 0:
        raise ValueError(f"{what} must be a positive whole number of chips, not {text.strip()!r}")
    return value


def parse_levels(text: str) -> tuple[tuple[Decimal, Decimal], ...]:
    """``"20/40,30/60"`` → ``((20, 40), (30, 60))``.

    Each level is ``small bet/big bet`` in whole chips, the small bet even (the small
    blind is half of it), the big bet at least the small bet, each level's stakes at
    least the last's.

    :raises ValueError: with a reason for people.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("levels are written small/big bet per level, e.g. 20/40,30/60")
    parts = [p for p in text.split(",")]
    if len(parts) > MAX_LEVELS:
        raise ValueError(f"at most {MAX_LEVELS} levels")
    out: list[tuple[Decimal, Decimal]] = []
    for i, part in enumerate(parts, 1):
        bets = part.split("/")
        if len(bets) != 2:
            raise ValueError(f"level {i} ({part.strip()!r}) is not written small/big, e.g. 20/40")
        small, big = (_whole(b, f"level {i}'s bet") for b in bets)
        if small % 2:
            raise ValueError(
                f"level {i}'s small bet {small} must be even (the small blind is half)"
            )
        if big < small:
            raise ValueError(f"level {i}'s big bet {big} is less than its small bet {small}")
        if out and (small < out[-1][0] or big < out[-1][1]):
            raise ValueError(f"level {i} ({small}/{big}) is lower than level {i - 1}")
        out.append((small, big))
    return tuple(out)


@dataclass(frozen=True)
class Schedule:
    """The blind schedule: ``levels`` (small bet, big bet), each played for
    ``hands_per_level`` hands; past the last, each level doubles the one before.

    :ivar levels: at least one level.
    :ivar hands_per_level: hands per level (at least 1).
    """

    levels: tuple[tuple[Decimal, Decimal], ...]
    hands_per_level: int

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError("a schedule has at least one level")
        if (
            isinstance(self.hands_per_level, bool)
            or not isinstance(self.hands_per_level, int)
            or self.hands_per_level < 1
        ):
            raise ValueError("hands per level must be a whole number, at least 1")

    @classmethod
    def of(cls, levels: str, hands_per_level: int) -> Schedule:
        """A schedule of the levels' text (:func:`parse_levels`)."""
        return cls(parse_levels(levels), hands_per_level)

    def level_number(self, hand: int) -> int:
        """The level (1, 2, ...) hand number ``hand`` (1 is the first) is played at."""
        if hand < 1:
            raise ValueError("hands are numbered from 1")
        return (hand - 1) // self.hands_per_level + 1

    def level(self, number: int) -> Level:
        """Level ``number`` (1 is the first)."""
        if number < 1:
            raise ValueError("levels are numbered from 1")
        last = len(self.levels)
        small, big = self.levels[min(number, last) - 1]
        if number > last:
            factor = 2 ** (number - last)
            small, big = small * factor, big * factor
        return Level(number, small, big)

    def level_of_hand(self, hand: int) -> Level:
        """The level hand number ``hand`` is played at."""
        return self.level(self.level_number(hand))

    def hands_left(self, hand: int) -> int:
        """Hands after ``hand`` until the next level (0: ``hand`` is its level's last)."""
        return self.hands_per_level - 1 - (hand - 1) % self.hands_per_level


def bust_places(
    busted: Sequence[int], start_stacks: Mapping[int, Decimal], remaining: int
) -> dict[int, int]:
    """The places of the players ``busted`` in one hand, while ``remaining`` others
    still hold chips.

    Whoever started the hand with more chips places higher (a smaller number); players
    who started it with equal stacks tie: they share the best of the places they span
    (two busted together in 4th and 5th are both 4th; the next is 3rd).

    :returns: seat → place (1 is the winner).
    """
    order = sorted(busted, key=lambda s: -start_stacks.get(s, Decimal(0)))
    places: dict[int, int] = {}
    place = remaining + 1
    previous: Decimal | None = None
    for i, seat in enumerate(order):
        stack = start_stacks.get(seat, Decimal(0))
        if previous is None or stack != previous:
            place = remaining + 1 + i
        places[seat] = place
        previous = stack
    return places


__all__ = [
    "DEFAULT_LEVELS",
    "MAX_LEVELS",
    "Level",
    "Schedule",
    "bust_places",
    "parse_levels",
]
