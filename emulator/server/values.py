"""DynamoDB attribute values (the `{"S": "..."}` JSON form): validation, keys, order.

Items are stored in their wire form, exactly as written, so they read back unchanged;
only keys and comparisons need a typed view, built here.
"""

from __future__ import annotations

import base64
import binascii
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from emulator.itemsize import kind_of
from emulator.numbers import MAX_DIGITS, normal, significant_digits
from emulator.server.protocol import (
    DynamoError,
    invalid_parameter,
    serialization,
    type_error,
    validation,
)

SCALARS: Final = ("S", "N", "B")
TYPES: Final = ("S", "N", "B", "SS", "NS", "BS", "M", "L", "BOOL", "NULL")
MAX_DEPTH: Final = 32

_isascii: Final = str.isascii
"""Bound once: mypyc has no native str.isascii, and `text.isascii()` compiles to a
generic method look-up and call (every number written is checked)."""

MAX_NAME_BYTES: Final = 65535
"""[AWS] an attribute name is 1 to 65,535 bytes of UTF-8 (a key attribute's, 255)."""
MAX_NAME_CHARS_UNCHECKED: Final = MAX_NAME_BYTES // 4
"""Names of at most this many characters fit whatever they hold (4 UTF-8 bytes at most
per character): only a longer one is encoded to be measured."""

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]


def is_plain_integer(text: Any) -> bool:
    """Whether `text` is 1 to 38 ASCII digits: always a valid DynamoDB number (at most 38
    significant digits, magnitude below 1E38), so checks may accept it without parsing,
    and two such numbers are equal exactly when their digits are, leading zeros aside."""
    return type(text) is str and 0 < len(text) <= MAX_DIGITS and _isascii(text) and text.isdigit()


def parse_number(text: Any) -> Decimal:
    """A DynamoDB number: up to 38 significant digits, magnitude 1E-130 to 9.9E125."""
    if not isinstance(text, str):
        raise serialization("NUMBER_VALUE cannot be converted to String")
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise _not_numeric(text) from None
    if not number.is_finite() or text.strip() != text or not text:
        raise _not_numeric(text)
    if number != 0:
        if significant_digits(number) > MAX_DIGITS:
            raise validation("Attempting to store more than 38 significant digits in a Number")
        exponent = number.adjusted()
        if exponent > 125:
            raise validation(
                "Number overflow. Attempting to store a number with magnitude "
                "larger than supported range"
            )
        if exponent < -130:
            raise validation(
                "Number underflow. Attempting to store a number with magnitude "
                "smaller than supported range"
            )
    return number


def _not_numeric(text: str) -> DynamoError:
    # DynamoDB's words (as dynalite, written against DynamoDB, has them).
    return validation(
        "The parameter cannot be converted to a numeric value" + (f": {text}" if text else "")
    )


def decode_binary(text: Any) -> bytes:
    if not isinstance(text, str):
        raise serialization("Binary value must be a base64 string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise serialization(
            "Base64 encoded length is expected a multiple of 4 bytes but found: " + str(len(text))
        ) from None


def check_value(value: Any, depth: int = 0) -> None:
    """Raise the DynamoDB error for a malformed attribute value; return if it is valid."""
    if depth > MAX_DEPTH:
        raise validation("Nesting Levels have exceeded supported limits")
    if not isinstance(value, dict) or len(value) != 1:
        raise validation(
            "Supplied AttributeValue has more than one datatypes set, must "
            "contain exactly one of the supported datatypes"
            if isinstance(value, dict) and value
            else "Supplied AttributeValue is empty, must contain exactly one of the "
            "supported datatypes"
        )
    ((kind, inner),) = value.items()
    if kind == "S":
        if not isinstance(inner, str):
            raise serialization("STRING_VALUE can not be converted to String")
    elif kind == "N":
        # DynamoDB stores a number canonical ("007" -> "7", "1.50" -> "1.5", "1e3" ->
        # "1000"): 1 and 1.0 are one key, and a read returns the canonical text. The value
        # is rewritten in place (it is the request's own JSON); a plain integer without a
        # leading zero, the common number, is canonical already and costs no parse.
        if not is_plain_integer(inner) or (inner[0] == "0" and len(inner) > 1):
            value["N"] = format_number(parse_number(inner))
    elif kind == "B":
        decode_binary(inner)
    elif kind == "BOOL":
        if not isinstance(inner, bool):
            raise serialization("BOOL value must be true or false")
    elif kind == "NULL":
        if inner is not True:
            raise validation(
                "One or more parameter values were invalid: Null attribute value "
                "types must have the value of true"
            )
    elif kind in ("SS", "NS", "BS"):
        if not isinstance(inner, list):
            raise serialization(f"{kind} value must be a list")
        if not inner:
            raise invalid_parameter(
                "An string set  may not be empty"
                if kind == "SS"
                else "An number set  may not be empty"
                if kind == "NS"
                else "Binary sets should not be empty"
            )
        seen: set[Any] = set()
        for element in inner:
            if kind == "SS":
                if not isinstance(element, str):
                    raise serialization("STRING_SET element must be a string")
                canonical: Any = element
            elif kind == "NS":
                canonical = normal(parse_number(element))
            else:
                canonical = decode_binary(element)
            if canonical in seen:
                raise invalid_parameter(_duplicates(kind, inner))
            seen.add(canonical)
        if kind == "NS":
            value["NS"] = [format_number(parse_number(e)) for e in inner]
    elif kind == "M":
        if not isinstance(inner, dict):
            raise serialization("M value must be an object")
        for name, sub in inner.items():
            if not name or len(name) > MAX_NAME_CHARS_UNCHECKED:
                check_name_size(name)
            check_value(sub, depth + 1)
    elif kind == "L":
        if not isinstance(inner, list):
            raise serialization("L value must be a list")
        for sub in inner:
            check_value(sub, depth + 1)
    else:
        raise validation(f"Supplied AttributeValue has an unsupported datatype: {kind}")


def check_name_size(name: str) -> None:
    """An attribute name not empty and within DynamoDB's 65,535 bytes."""
    if not name:
        raise invalid_parameter("Empty attribute name")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise invalid_parameter(
            f"Attribute name {name[:20]}... is too large, it must be at most "
            f"{MAX_NAME_BYTES} bytes (65536 or more given)"
        )


def _duplicates(kind: str, inner: list[Any]) -> str:
    """[AWS] DynamoDB's words for a set holding one element twice, each kind its own
    (as it answers dynalite's test/putItem.js)."""
    if kind == "NS":
        return "Input collection contains duplicates"
    shown = "[" + ", ".join(str(e) for e in inner) + "]"
    if kind == "BS":
        return f"Input collection {shown}of type BS contains duplicates."
    return f"Input collection {shown} contains duplicates."


def check_item(item: Any, member: str = "Item") -> Item:
    """An attribute map (Item, Key, ExpressionAttributeValues), checked."""
    if not isinstance(item, dict):
        raise type_error(item, dict)
    for name, value in item.items():
        if not name or len(name) > MAX_NAME_CHARS_UNCHECKED:
            check_name_size(name)
        # A string, the most common value, is valid as it is: accept it here rather than
        # through check_value's dispatch (which would accept it the same way).
        if type(value) is dict and len(value) == 1 and type(value.get("S")) is str:
            continue
        check_value(value)
    return item


def typed(value: AttributeValue) -> Any:
    """A comparable Python value for a scalar: str, Decimal or bytes."""
    if len(value) == 1:
        # A string, the common key, without building an items iterator (per request).
        text = value.get("S")
        if text is not None:
            return text
    kind = kind_of(value)
    inner = value[kind]
    if kind == "N":
        return Decimal(inner)
    if kind == "B":
        return base64.b64decode(inner)
    return inner


def canonical(value: AttributeValue) -> Any:
    """A hashable form equal for values DynamoDB treats as equal (1 == 1.0, sets
    unordered), for equality tests and set arithmetic."""
    kind, inner = next(iter(value.items()))
    if kind == "N":
        return ("N", normal(Decimal(inner)))
    if kind == "B":
        return ("B", base64.b64decode(inner))
    if kind == "SS":
        return ("SS", frozenset(inner))
    if kind == "NS":
        return ("NS", frozenset(normal(Decimal(n)) for n in inner))
    if kind == "BS":
        return ("BS", frozenset(base64.b64decode(b) for b in inner))
    if kind == "M":
        return ("M", frozenset((k, canonical(v)) for k, v in inner.items()))
    if kind == "L":
        return ("L", tuple(canonical(v) for v in inner))
    return (kind, inner)


def format_number(number: Decimal) -> str:
    """How DynamoDB prints a number, stored or computed: canonical, never an exponent."""
    trimmed = normal(number)
    if trimmed == trimmed.to_integral_value():
        return str(int(trimmed))
    return format(trimmed, "f")
