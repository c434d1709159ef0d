"""What the peers of a table agree on before the first hand: stakes, stacks, limits.

Every peer starts with its own :class:`Params` (from the command line); a table forms
only from peers whose parameters are the same, field by field (:mod:`.gather`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .. import rules
from .wire import WireError

#: most seats of a peer-to-peer table (the engine's limit)
MAX_PLAYERS = 10


@dataclass(frozen=True)
class Params:
    """A peer-to-peer table's parameters.

    :ivar stakes: small bet/big bet (``"10/20"``): the big blind is the small bet.
    :ivar buyin: every player's starting stack, in chips.
    :ivar players: how many peers the table waits for.
    :ivar hands: hands to play (``0``: until fewer than two players have chips).
    :ivar action_time: seconds a player has to act.
    :ivar step_time: seconds a peer has for a step of the deal (a shuffle, a lock,
        keys) and to answer a claim.
    """

    stakes: str = "10/20"
    buyin: str = "1000"
    players: int = 2
    hands: int = 0
    action_time: float = 30.0
    step_time: float = 10.0

    def __post_init__(self) -> None:
        self.config()  # checks the stakes
        try:
            buyin = Decimal(self.buyin)
        except (InvalidOperation, TypeError, ValueError):
            raise ValueError(f"the buy-in {self.buyin!r} is not a number of chips") from None
        if not buyin.is_finite() or buyin <= 0 or buyin > 10**12:
            raise ValueError("the buy-in must be a positive number of chips")
        if not 2 <= self.players <= MAX_PLAYERS:
            raise ValueError(f"a table has 2 to {MAX_PLAYERS} players")
        if not 0 <= self.hands <= 10**7:
            raise ValueError("hands is 0 (no limit) to 10,000,000")
        for name in ("action_time", "step_time"):
            value = getattr(self, name)
            if not 0.01 <= value <= 86400:
                raise ValueError(f"{name} must be 0.01 to 86400 seconds")

    def config(self) -> rules.TableConfig:
        """The engine's table config (fixed-limit Texas Hold'em)."""
        parts = str(self.stakes).split("/")
        if len(parts) != 2:
            raise ValueError("stakes are written small/big, e.g. 10/20")
        try:
            small, big = (rules.money(p.strip(), "stakes") for p in parts)
        except (TypeError, ValueError) as e:
            raise ValueError(f"bad stakes {self.stakes!r}: {e}") from None
        return rules.TableConfig(
            variant=rules.TEXAS_HOLDEM,
            limit=rules.FIXED_LIMIT,
            small_bet=small,
            big_bet=big,
            seats=self.players,
        )

    @property
    def stack(self) -> Decimal:
        """The starting stack."""
        return Decimal(self.buyin)

    def to_json(self) -> dict[str, Any]:
        """As a message carries them."""
        return asdict(self)

    @classmethod
    def from_json(cls, value: object) -> Params:
        """Read parameters from a message.

        :raises WireError: malformed or out of range.
        """
        if not isinstance(value, Mapping) or set(value) != set(cls.__dataclass_fields__):
            raise WireError("table parameters are an object of the known fields")
        types = {"stakes": str, "buyin": str, "players": int, "hands": int}
        for name, kind in types.items():
            if not isinstance(value[name], kind) or isinstance(value[name], bool):
                raise WireError(f"table parameter {name} has the wrong type")
        for name in ("action_time", "step_time"):
            if not isinstance(value[name], int | float) or isinstance(value[name], bool):
                raise WireError(f"table parameter {name} has the wrong type")
        fields = {k: value[k] for k in cls.__dataclass_fields__}
        fields["action_time"] = float(fields["action_time"])
        fields["step_time"] = float(fields["step_time"])
        try:
            return cls(**fields)
        except ValueError as e:
            raise WireError(str(e)) from None
