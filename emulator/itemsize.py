"""Item size as DynamoDB computes it for capacity units and the 400 KB limit.

The AWS rules ("Item sizes and formats"): an item's size is the sum of its attribute
names' UTF-8 lengths and its values' sizes. Strings: UTF-8 bytes; binary: raw bytes;
numbers: 1 byte per two significant digits plus 1; BOOL and NULL: 1 byte; sets: the sum
of their elements; lists and maps: 3 bytes plus 1 byte per element, plus the elements
(and, for maps, their key names). This is the one function every cost uses.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any, Final

from emulator.numbers import significant_digits

MAX_ITEM_BYTES: Final = 400 * 1024
"""[AWS] the largest item DynamoDB stores, by the size computed here."""

_LIST_OVERHEAD: Final = 3
_ELEMENT_OVERHEAD: Final = 1


_isascii: Final = str.isascii
"""str.isascii bound once: compiled, `name.isascii()` is a generic method look-up and
call (mypyc has no native isascii), twice per attribute of every item written."""


def _number_size(text: str) -> int:
    if _isascii(text) and text.isdigit():
        # A plain integer (the common version or counter): its significant digits are
        # the text without leading and trailing zeros; no Decimal needed.
        digits = len(text.strip("0"))
    else:
        digits = significant_digits(Decimal(text))
    return (digits + 1) // 2 + 1 if digits else 1 + 1


def kind_of(value: dict[str, Any]) -> str:
    """The type key of an attribute value (its first key). A loop rather than
    next(iter(value)): compiled, the loop is native and next() a generic call (this runs
    for every number written and every key checked)."""
    for kind in value:
        return kind
    return next(iter(value))  # an empty value: StopIteration, as next(iter()) raises


def value_size(value: dict[str, Any]) -> int:
    """Bytes one attribute value takes (without its name)."""
    inner = value.get("S")
    if inner is not None:  # the common case first: this runs for every attribute written
        return len(inner) if _isascii(inner) else len(inner.encode("utf-8"))
    kind = kind_of(value)
    inner = value[kind]
    if kind == "N":
        return _number_size(inner)
    if kind == "B":
        return len(base64.b64decode(inner))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode("utf-8")) for s in inner)
    if kind == "NS":
        return sum(_number_size(n) for n in inner)
    if kind == "BS":
        return sum(len(base64.b64decode(b)) for b in inner)
    if kind == "L":
        return _LIST_OVERHEAD + sum(_ELEMENT_OVERHEAD + value_size(v) for v in inner)
    if kind == "M":
        return _LIST_OVERHEAD + sum(
            _ELEMENT_OVERHEAD + len(k.encode("utf-8")) + value_size(v) for k, v in inner.items()
        )
    raise ValueError(f"unknown attribute type {kind}")


def item_size(item: dict[str, dict[str, Any]]) -> int:
    """Bytes an item takes: names plus values (the figure capacity units are billed on)."""
    total = 0
    for name, value in item.items():
        total += len(name) if _isascii(name) else len(name.encode("utf-8"))
        inner = value.get("S")
        # An ASCII string, the common value, inline: what value_size would count for it.
        total += len(inner) if inner is not None and _isascii(inner) else value_size(value)
    return total
