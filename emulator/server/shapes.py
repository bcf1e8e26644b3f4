"""A request checked against DynamoDB's API model before any table is looked up: member
types (SerializationException) and the model's constraints (ValidationException listing
every violation of the request in one message), as DynamoDB's request layer does.

DynamoDB answers in two steps: the JSON is bound to the operation's input shape, and a
member of the wrong JSON type fails that binding (SerializationException, first one
found); then every constraint of the model is checked and all that fail are reported at
once: "2 validation errors detected: Value 'x' at 'tableName' failed to satisfy
constraint: ...; Value null at 'keySchema' failed to satisfy constraint: Member must not
be null". Only then does the operation run (and look its table up).

The shapes are botocore's model of DynamoDB (a well-kept copy of AWS's own, shipped with
boto3, which the emulator depends on already); botocore's copy leaves out a few
constraints DynamoDB's server enforces, which `SERVER_CONSTRAINTS` adds. The words are
DynamoDB's (as it answers the request tests of dynalite, a DynamoDB clone tested against
AWS). Attribute values are not walked here: `values.check_value` checks them with
DynamoDB's own messages for each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any, Final

import botocore.session
from botocore.model import ListShape, MapShape, Shape, StructureShape

from emulator.server.protocol import java_type_error, serialization, validation

Violations = list[str]
Check = Callable[[Any, str, Violations], Any]
"""check(value, path, violations) -> the value to keep (a float floored for an integer
member, "true" made True for a boolean one); raises SerializationException on a type
error, appends each constraint it fails."""

MAX_REPORTED: Final = 10
"""DynamoDB lists at most this many violations in one message."""

SKIPPED_SHAPES: Final = frozenset({"AttributeValue"})
"""Checked by values.check_value, with DynamoDB's words for each kind of value."""

SERVER_CONSTRAINTS: Final[dict[str, dict[str, Any]]] = {
    # Shape name -> constraints DynamoDB's server enforces beyond botocore's copy.
    "KeySchema": {"max": 2},
    "CreateTableInput": {"required": ["AttributeDefinitions", "KeySchema"]},
    "LocalSecondaryIndex": {"required": ["IndexName", "KeySchema", "Projection"]},
    "GlobalSecondaryIndex": {"required": ["IndexName", "KeySchema", "Projection"]},
    "CreateGlobalSecondaryIndexAction": {"required": ["IndexName", "KeySchema", "Projection"]},
}
MEMBER_CONSTRAINTS: Final[dict[tuple[str, str], dict[str, Any]]] = {
    # (structure, member) -> constraints of that member alone. A GSI's key schema may
    # have up to four partition-key and four sort-key attributes (multi-attribute keys,
    # November 2025); its count is checked with the key types, in DynamoDB's words
    # (table.key_schema). A table's and an LSI's stay at two (DynamoDB answers three with
    # "Member must have length less than or equal to 2": ack-api-quirks DDB-TABLE-123).
    ("GlobalSecondaryIndex", "KeySchema"): {"max": None},
    ("CreateGlobalSecondaryIndexAction", "KeySchema"): {"max": None},
}
ENUM_ORDER: Final[dict[str, list[str]]] = {
    # The order DynamoDB lists an enum in where it differs from botocore's.
    "ScalarAttributeType": ["B", "N", "S"],
    # ack-api-quirks DDB-TABLE-035, observed on AWS.
    "StreamViewType": ["OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"],
}
NAME_SHAPES: Final = frozenset({"TableArn", "TableName"})
"""A table name (or ARN): checked as a table name unless it is an ARN (the ARN form is
checked when it is looked up)."""
_NAME_PATTERN: Final = re.compile(r"[a-zA-Z0-9_.-]+")

LENGTH_AT_LEAST: Final = "Member must have length greater than or equal to"
LENGTH_AT_MOST: Final = "Member must have length less than or equal to"
PATTERN: Final = "Member must satisfy regular expression pattern:"

LONG_RANGE: Final = (-(2**63), 2**63 - 1)
INT_RANGE: Final = (-(2**31), 2**31 - 1)


def _lower(name: str) -> str:
    return name[:1].lower() + name[1:]


def _show(value: Any) -> str:
    """A value as DynamoDB quotes it in a violation (Java's toString, near enough)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "'true'" if value else "'false'"
    if isinstance(value, list):
        return "'[" + ", ".join(_plain(v) for v in value) + "]'"
    return f"'{_plain(value)}'"


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_plain(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value)


def _violation(violations: Violations, value: Any, path: str, constraint: str) -> None:
    violations.append(
        f"Value {_show(value)} at '{path}' failed to satisfy constraint: {constraint}"
    )


def _collection_error(java: str) -> Any:
    return serialization(f"Unrecognized collection type {java}")


def _struct_error() -> Any:
    return serialization("Start of structure or map found where not expected")


def _bounds(shape: Shape, override: dict[str, Any] | None = None) -> tuple[int | None, int | None]:
    meta = {**shape.metadata, **SERVER_CONSTRAINTS.get(shape.name, {}), **(override or {})}
    return meta.get("min"), meta.get("max")


def _no_length_check(value: Any, length: int, path: str, out: Violations) -> None:
    return None


def _length_checks(
    shape: Shape, override: dict[str, Any] | None = None
) -> Callable[[Any, int, str, Violations], None]:
    low, high = _bounds(shape, override)
    if low is None and high is None:
        return _no_length_check

    def check(value: Any, length: int, path: str, out: Violations) -> None:
        if low is not None and length < low:
            _violation(out, value, path, f"{LENGTH_AT_LEAST} {low}")
        if high is not None and length > high:
            _violation(out, value, path, f"{LENGTH_AT_MOST} {high}")

    return check


def _string(shape: Shape) -> Check:
    enum = ENUM_ORDER.get(shape.name) or shape.metadata.get("enum")
    pattern = shape.metadata.get("pattern")
    compiled = re.compile(pattern) if pattern else None
    lengths = _length_checks(shape)
    is_name = shape.name in NAME_SHAPES

    def check(value: Any, path: str, out: Violations) -> Any:
        if not isinstance(value, str):
            raise java_type_error(value, "String")
        if is_name:
            if not value.startswith("arn:"):
                if _NAME_PATTERN.fullmatch(value) is None:
                    _violation(
                        out,
                        value,
                        path,
                        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
                    )
                if len(value) < 3:
                    _violation(
                        out, value, path, "Member must have length greater than or equal to 3"
                    )
                if len(value) > 255:
                    _violation(
                        out, value, path, "Member must have length less than or equal to 255"
                    )
            return value
        if enum is not None and value not in enum:
            _violation(out, value, path, f"Member must satisfy enum value set: [{', '.join(enum)}]")
        if compiled is not None and compiled.fullmatch(value) is None:
            _violation(
                out, value, path, f"Member must satisfy regular expression pattern: {pattern}"
            )
        lengths(value, len(value), path, out)
        return value

    return check


def _number(shape: Shape) -> Check:
    java = "Long" if shape.type_name == "long" else "Integer"
    span = LONG_RANGE if java == "Long" else INT_RANGE
    low, high = _bounds(shape)

    def check(value: Any, path: str, out: Violations) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise java_type_error(value, java)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise serialization(f"DECIMAL_VALUE cannot be converted to {java}")
            value = int(value // 1)  # DynamoDB's parser floors a decimal for an integer
        if not span[0] <= value <= span[1]:
            raise serialization(
                f"Numeric value ({value}) out of range of {java.lower()} ({span[0]} - {span[1]})"
            )
        if low is not None and value < low:
            _violation(out, value, path, f"Member must have value greater than or equal to {low}")
        if high is not None and value > high:
            _violation(out, value, path, f"Member must have value less than or equal to {high}")
        return value

    return check


def _boolean(shape: Shape) -> Check:
    def check(value: Any, path: str, out: Violations) -> Any:
        if isinstance(value, bool):
            return value
        # DynamoDB's parser also takes the strings "true" / "false"; the emulator does not
        # (one path for every request: the plain ones check their members themselves).
        raise java_type_error(value, "Boolean")

    return check


def _blob(shape: Shape) -> Check:
    def check(value: Any, path: str, out: Violations) -> Any:
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            raise _struct_error()
        if isinstance(value, list):
            raise _collection_error("class java.nio.ByteBuffer")
        raise serialization("only base-64-encoded strings are convertible to bytes")

    return check


def _anything(value: Any, path: str, out: Violations) -> Any:
    return value


def _list(
    shape: ListShape,
    build: Callable[[Shape, bool], Check],
    override: dict[str, Any] | None = None,
) -> Check:
    member = build(shape.member, True)
    lengths = _length_checks(shape, override)

    def check(value: Any, path: str, out: Violations) -> Any:
        if not isinstance(value, list):
            if isinstance(value, dict):
                raise _struct_error()
            raise serialization("Unexpected field type")
        for i, item in enumerate(value):
            if item is not None:
                value[i] = member(item, f"{path}.{i + 1}.member", out)
        lengths(value, len(value), path, out)
        return value

    return check


def _map(shape: MapShape, build: Callable[[Shape, bool], Check]) -> Check:
    values = build(shape.value, True)
    lengths = _length_checks(shape)
    java = f"java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.{shape.value.name}>"

    def check(value: Any, path: str, out: Violations) -> Any:
        if not isinstance(value, dict):
            if isinstance(value, list):
                raise _collection_error(java)
            raise serialization("Unexpected field type")
        if values is not _anything:  # an attribute map's values: values.check_value's
            for key, item in value.items():
                if item is not None:
                    value[key] = values(item, f"{path}.{key}.member", out)
        lengths(value, len(value), path, out)
        return value

    return check


def _structure(shape: StructureShape, in_collection: bool, build: Callable[..., Check]) -> Check:
    members = {
        name: (_lower(name), _member(shape.name, name, sub, build))
        for name, sub in shape.members.items()
    }
    extra = SERVER_CONSTRAINTS.get(shape.name, {}).get("required", [])
    required = [(name, _lower(name)) for name in dict.fromkeys([*shape.required_members, *extra])]
    scalar_error = "Unexpected value type in payload" if in_collection else "Unexpected field type"

    def check(value: Any, path: str, out: Violations) -> Any:
        if not isinstance(value, dict):
            if isinstance(value, list):
                raise _collection_error(f"class com.amazonaws.dynamodb.v20120810.{shape.name}")
            raise serialization(scalar_error)
        prefix = f"{path}." if path else ""
        # Over the request's members, not the shape's: a request names few of them.
        for name, item in value.items():
            found = members.get(name)
            if found is not None and item is not None:
                sub = found[1]
                if sub is not _anything:
                    value[name] = sub(item, prefix + found[0], out)
        for name, lower in required:
            if value.get(name) is None:
                _violation(out, None, prefix + lower, "Member must not be null")
        return value

    return check


def _member(parent: str, name: str, shape: Shape, build: Callable[..., Check]) -> Check:
    """A structure member's check: its shape's, or one with the member's own constraints
    (MEMBER_CONSTRAINTS; built for the member alone, never cached under the shape)."""
    override = MEMBER_CONSTRAINTS.get((parent, name))
    if override is not None and isinstance(shape, ListShape):
        return _list(shape, build, override)
    check: Check = build(shape, False)
    return check


@cache
def _model(service: str = "dynamodb") -> Any:
    """botocore's model of DynamoDB (or of DynamoDB Streams, `dynamodbstreams`)."""
    return botocore.session.get_session().get_service_model(service)


def _builder() -> Callable[[Shape, bool], Check]:
    built: dict[tuple[str, bool], Check] = {}

    def build(shape: Shape, in_collection: bool) -> Check:
        key = (shape.name, in_collection)
        if key in built:
            return built[key]
        if shape.name in SKIPPED_SHAPES:
            return _anything
        # A placeholder first: recursive shapes (none today) would find it.
        built[key] = _anything
        kind = shape.type_name
        check: Check
        if kind == "structure":
            assert isinstance(shape, StructureShape)
            check = _structure(shape, in_collection, build)
        elif kind == "list":
            assert isinstance(shape, ListShape)
            check = _list(shape, build)
        elif kind == "map":
            assert isinstance(shape, MapShape)
            check = _map(shape, build)
        elif kind == "string":
            check = _string(shape)
        elif kind in ("integer", "long"):
            check = _number(shape)
        elif kind == "boolean":
            check = _boolean(shape)
        elif kind == "blob":
            check = _blob(shape)
        else:  # double, timestamp: no operation the emulator runs constrains them
            check = _anything
        built[key] = check
        return check

    return build


@cache
def _request_check(operation: str, service: str = "dynamodb") -> Check:
    shape = _model(service).operation_model(operation).input_shape
    return _builder()(shape, False)


RequestCheck = Callable[[dict[str, Any]], None]
"""check(request): binds one request to its operation's input shape."""


def request_check(operation: str, service: str = "dynamodb") -> RequestCheck:
    """The check of `operation`'s requests, built now (not on its first request; the
    service keeps one per target, found with its handler). It binds a request to the
    operation's input shape: SerializationException for a member of the wrong JSON type,
    then one ValidationException listing every constraint it fails. Integer members given
    as decimals are floored in place, as DynamoDB does."""
    walk = _request_check(operation, service)

    def check(request: dict[str, Any]) -> None:
        out: Violations = []
        walk(request, "", out)
        if out:
            shown = out[:MAX_REPORTED]
            count = len(shown)
            raise validation(
                f"{count} validation error{'s' if count > 1 else ''} detected: " + "; ".join(shown)
            )

    return check
