"""DynamoDB numbers: up to 38 significant digits, kept exactly.

Python's default decimal context keeps 28 digits, and `normalize()` and arithmetic under
it round: two distinct 38-digit keys would compare equal, size alike and hash alike, and
an ADD would drop digits. Every normalisation of a DynamoDB number goes through `NUMBERS`
instead, whose precision is DynamoDB's, and every sum through `EXACT`, so that a sum
DynamoDB could not store is refused rather than rounded.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from typing import Final

MAX_DIGITS: Final = 38
"""[AWS] significant digits a DynamoDB number keeps."""

NUMBERS: Final = decimal.Context(
    prec=MAX_DIGITS, rounding=decimal.ROUND_HALF_EVEN, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN
)


def normal(number: Decimal) -> Decimal:
    """`number` without trailing zeros (1.0, 1 and 1E0 become one value), not rounded
    for any number DynamoDB accepts."""
    return number.normalize(NUMBERS)


def significant_digits(number: Decimal) -> int:
    """Significant digits of `number` as written, leading and trailing zeros trimmed,
    without rounding (0 for zero)."""
    digits = number.as_tuple().digits
    end = len(digits)
    while end > 0 and digits[end - 1] == 0:
        end -= 1
    start = 0
    while start < end and digits[start] == 0:
        start += 1
    return end - start


EXACT: Final = decimal.Context(prec=400, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
"""Wide enough that a sum or difference of two DynamoDB numbers (magnitudes 1E-130 to
1E126: at most 256 digits apart) is exact."""


def add(x: Decimal, y: Decimal) -> Decimal:
    """x + y exactly: a result DynamoDB cannot store (more than 38 significant digits)
    must be seen and refused, not rounded to one it can."""
    return EXACT.add(x, y)


def subtract(x: Decimal, y: Decimal) -> Decimal:
    """x - y exactly (see `add`)."""
    return EXACT.subtract(x, y)
