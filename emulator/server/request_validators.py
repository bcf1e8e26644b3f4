"""A data-plane request's members, read and checked: each either returns the member's
value or raises the ValidationException DynamoDB sends for it. Every operation reads its
members through these before it costs capacity, so a client mistake is refused first.
"""

from __future__ import annotations

from typing import Any, Final

from emulator.itemsize import MAX_ITEM_BYTES, item_size
from emulator.server.expr_parse import (
    Node,
    Path,
    Placeholders,
    parse_condition,
    parse_projection,
)
from emulator.server.items import KeySchema
from emulator.server.protocol import (
    ITEM_TOO_LARGE_MESSAGE,
    invalid_parameter,
    member,
    null_member,
    validation,
)
from emulator.server.values import (
    MAX_NAME_CHARS_UNCHECKED,
    AttributeValue,
    Item,
    check_item,
    check_name_size,
    check_value,
    decode_binary,
)


def placeholders_of(req: dict[str, Any]) -> Placeholders:
    """ExpressionAttributeNames and ExpressionAttributeValues, checked in DynamoDB's order
    and words (the names, then the values; each empty, then each key), as DynamoDB
    answers dynalite's test/putItem.js."""
    names = member(req, "ExpressionAttributeNames", dict, default={})
    if "ExpressionAttributeNames" in req and not names:
        raise validation("ExpressionAttributeNames must not be empty")
    for key, value in names.items():
        if not key.startswith("#"):
            raise validation(
                f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"'
            )
        if not isinstance(value, str) or not value:
            raise invalid_parameter(
                f"ExpressionAttributeNames must map #names to attribute names; got {key!r}"
            )
        if len(value) > MAX_NAME_CHARS_UNCHECKED:
            check_name_size(value)
    values = member(req, "ExpressionAttributeValues", dict, default={})
    if "ExpressionAttributeValues" in req and not values:
        raise validation("ExpressionAttributeValues must not be empty")
    for key, value in values.items():
        if not key.startswith(":"):
            raise validation(
                f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"'
            )
        check_value(value)
    return Placeholders(names, values)


def condition_of(
    req: dict[str, Any], ph: Placeholders, name: str = "ConditionExpression"
) -> Node | None:
    text = member(req, name, str)
    return None if text is None else parse_condition(text, ph, name)


def projection_of(req: dict[str, Any], ph: Placeholders | None) -> list[Path] | None:
    """The paths a read returns: its ProjectionExpression (`ph` its placeholders), or in a
    legacy request (`ph` None, mixing checked by `legacy.uses_expressions`) AttributesToGet."""
    if ph is not None:
        text = member(req, "ProjectionExpression", str)
        return None if text is None else parse_projection(text, ph)
    attrs = member(req, "AttributesToGet", list)
    if attrs is None:
        return None
    if not attrs or not all(isinstance(a, str) and a for a in attrs):
        raise validation("AttributesToGet must be a non-empty list of attribute names")
    for name in attrs:
        if len(name) > MAX_NAME_CHARS_UNCHECKED:
            check_name_size(name)
    if len(set(attrs)) != len(attrs):
        duplicate = next(a for a in attrs if attrs.count(a) > 1)
        raise invalid_parameter(f"Duplicate value in attribute name: {duplicate}")
    return [(a,) for a in attrs]


def enum_of(req: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> str:
    value: str = member(req, name, str, default=default)
    if value not in allowed:
        raise validation(
            f"1 validation error detected: Value '{value}' at "
            f"'{name[:1].lower() + name[1:]}' failed to satisfy constraint: "
            f"Member must satisfy enum value set: [{', '.join(allowed)}]"
        )
    return value


def item_member(req: dict[str, Any], name: str) -> Item:
    value = req.get(name)
    if value is None:
        raise null_member(name[:1].lower() + name[1:])
    return check_item(value, name)


def check_size(item: Item) -> int:
    """An item's size in bytes, within DynamoDB's item limit."""
    return check_measured_size(item_size(item))


def check_measured_size(size: int) -> int:
    """The item limit's one test, on an item measured already (a transaction measures
    its puts once, for its 4 MB total, before their tables are looked up)."""
    if size > MAX_ITEM_BYTES:
        raise validation(ITEM_TOO_LARGE_MESSAGE)
    return size


def consumed_mode(req: dict[str, Any]) -> str:
    """The ReturnConsumedCapacity member, checked (read once per request)."""
    return enum_of(req, "ReturnConsumedCapacity", ("INDEXES", "TOTAL", "NONE"), "NONE")


MAX_PARTITION_KEY_BYTES: Final = 2048
MAX_SORT_KEY_BYTES: Final = 1024
"""[AWS] key value sizes ("Service, account, and table quotas": partition key 1 to 2048
bytes, sort key 1 to 1024 bytes)."""


def check_key_sizes(schema: KeySchema, key: Item) -> None:
    """A key's values within DynamoDB's sizes (`key` holds every key attribute, checked
    already); a number is at most 38 digits, always within them."""
    limit = MAX_PARTITION_KEY_BYTES
    for attr in schema.keys:
        value = key[attr.name]
        text = value.get("S")
        # A string key of at most a quarter of the limit in characters fits whatever it
        # holds (4 UTF-8 bytes at most a character): settled without a call.
        if text is not None and len(text) * 4 <= limit:
            limit = MAX_SORT_KEY_BYTES
            continue
        if not _fits(value, limit):
            raise invalid_parameter(
                # DynamoDB's message has no space in "of2048".
                "Size of hashkey has exceeded the maximum size limit of2048 bytes"
                if limit == MAX_PARTITION_KEY_BYTES
                else "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
            )
        limit = MAX_SORT_KEY_BYTES


def _fits(value: AttributeValue, limit: int) -> bool:
    text = value.get("S")
    if text is not None:
        # At most 4 UTF-8 bytes a character: a short string fits without encoding it.
        return len(text) * 4 <= limit or len(text.encode("utf-8")) <= limit
    data = value.get("B")
    if data is not None:
        # Base64 holds 3 bytes in 4 characters.
        return len(data) * 3 // 4 <= limit or len(decode_binary(data)) <= limit
    return True
