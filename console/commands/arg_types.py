"""Option values checked where they are parsed: a bad number is refused by argparse
(exit 2, `argument --workers: ...`) before any command prints a plan or creates anything.

Each is a callable argparse takes as `type=`: it returns the value or raises
`argparse.ArgumentTypeError` with what was expected. The commands keep no second check
of their own for what these already refuse.
"""

from __future__ import annotations

import argparse
import math


def _number(text: str, kind: type[int] | type[float]) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'a whole number' if kind is int else 'a number'}"
        ) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_int(text: str) -> int:
    """A count of at least 1 (workers, tasks)."""
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def non_negative_int(text: str) -> int:
    """A count that may be 0 (items to seed)."""
    value = int(_number(text, int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {value})")
    return value


def scale_fraction(text: str) -> float:
    """A share of the playbook's rates: above 0, at most 1 (this machine offers at most
    what the playbook asks)."""
    value = _number(text, float)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"must be in (0, 1]: the fraction of the playbook's rates offered (got {text})"
        )
    return value


def non_negative_float(text: str) -> float:
    """A share or a sum that may be 0 (--pause-scale 0 skips the wait; a cost limit)."""
    value = _number(text, float)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {text})")
    return value


def positive_float(text: str) -> float:
    """Seconds or a factor above 0 (an interval, a timeout, a duration scale)."""
    value = _number(text, float)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0 (got {text})")
    return value
