"""Money: :class:`decimal.Decimal` amounts, never floats."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Any

Money = Decimal
ZERO = Decimal(0)
#: most digits of an amount before the decimal point
MAX_DIGITS = 18


def money(value: Any, what: str = "amount") -> Decimal:
    """Convert ``value`` to a :class:`Decimal` amount of money.

    Accepts a finite :class:`Decimal`, an ``int`` or a decimal string with at most two
    fraction digits.

    :raises TypeError: for a ``float`` (money is never a float) or another type.
    :raises ValueError: for a malformed, non-finite, over-precise or too large amount
        (more than :data:`MAX_DIGITS` digits before the point).
    """
    if isinstance(value, float):
        raise TypeError(f"{what} must be a Decimal, not a float ({value!r})")
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a Decimal, not a bool")
    if isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, Decimal):
        d = value
    elif isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"{what} is not a number: {value!r}") from None
    else:
        raise TypeError(f"{what} must be a Decimal, not {type(value).__name__}")
    if not d.is_finite():
        raise ValueError(f"{what} must be finite: {value!r}")
    if d and d.adjusted() >= MAX_DIGITS:  # (quantize would fail past the context's precision)
        raise ValueError(f"{what} is too large: at most {MAX_DIGITS} digits before the point")
    if d != d.quantize(Decimal("0.01"), rounding=ROUND_DOWN):
        raise ValueError(f"{what} has more than two fraction digits: {value!r}")
    return d
