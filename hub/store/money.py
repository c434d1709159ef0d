"""Amounts of chips: :class:`decimal.Decimal` with at most two fraction digits.

Floats are refused outright (``TypeError``): ``0.1 + 0.2`` is not ``0.3``, and a chip
amount that is not exact is a bug.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation

from .errors import BadAmount

#: the smallest amount: one cent
CENT = Decimal("0.01")
#: the largest amount any single balance or movement may reach
LIMIT = Decimal("1000000000000")


def _shown(value: object) -> str:
    """``value`` as an error names it: at most 40 characters (a client's 5,000-digit
    amount is not sent back whole)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def amount(value: object, *, allow_zero: bool = False, allow_negative: bool = False) -> Decimal:
    """Check and convert ``value`` (``Decimal``, ``int`` or a decimal string) to a
    ``Decimal`` quantized to cents.

    :raises TypeError: ``value`` is a float (or any other non-exact type).
    :raises hub.store.errors.BadAmount: not a finite number, more than two fraction
        digits, too large, zero or negative where that is not allowed.
    """
    if type(value) is Decimal:  # the usual case, checked first
        number = value
    elif isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise TypeError(f"an amount must be a Decimal, int or str, not {type(value).__name__}")
    else:
        try:
            number = Decimal(value.strip() if isinstance(value, str) else value)
        except InvalidOperation:
            raise BadAmount(f"not an amount: {_shown(value)}") from None
    if not number.is_finite():
        raise BadAmount(f"not an amount: {_shown(value)}")
    if abs(number) >= LIMIT:
        raise BadAmount(f"amount too large: {_shown(value)}")
    cents = number.quantize(CENT, rounding=ROUND_DOWN)
    if number != cents:
        raise BadAmount(f"at most two fraction digits: {_shown(value)}")
    if number == 0 and not allow_zero:
        raise BadAmount("the amount must not be zero")
    if number < 0 and not allow_negative:
        raise BadAmount(f"the amount must not be negative: {value!r}")
    return cents  # equal to number, with two fraction digits


def to_cents(value: Decimal) -> int:
    """``Decimal("12.34")`` → ``1234`` (exact; ``value`` is already checked)."""
    return int(value.scaleb(2))


def from_cents(cents: int) -> Decimal:
    """``1234`` → ``Decimal("12.34")``."""
    return Decimal(int(cents)).scaleb(-2).quantize(CENT)
