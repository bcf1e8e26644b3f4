"""DynamoDB's legacy parameters (Expected with ConditionalOperator, AttributeUpdates,
KeyConditions, QueryFilter, ScanFilter; AttributesToGet is in `members.projection_of`),
translated into the trees the expression parser builds, so that one engine
(`expr_eval`, `expr_update`) runs both forms and they can never disagree.

[AWS] https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html
and, for each comparison operator, ...LegacyConditionalParameters.Conditions.html
"""

from __future__ import annotations

from typing import Any, Final

from emulator.server.expr_parse import Node
from emulator.server.protocol import invalid_parameter, serialization, validation
from emulator.server.values import (
    AttributeValue,
    canonical,
    check_name_size,
    check_value,
    kind_of,
    typed,
)

STYLES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "write": (("ConditionExpression",), ("Expected", "ConditionalOperator")),
    "update": (
        ("UpdateExpression", "ConditionExpression"),
        ("AttributeUpdates", "Expected", "ConditionalOperator"),
    ),
    "get": (("ProjectionExpression",), ("AttributesToGet",)),
    "query": (
        ("KeyConditionExpression", "FilterExpression", "ProjectionExpression"),
        ("KeyConditions", "QueryFilter", "ConditionalOperator", "AttributesToGet"),
    ),
    "scan": (
        ("FilterExpression", "ProjectionExpression"),
        ("ScanFilter", "ConditionalOperator", "AttributesToGet"),
    ),
}
"""Per kind of request: its expression parameters and its legacy (non-expression) ones."""
_USING_VALUES: Final = {
    kind: tuple(name for name in expressions if name != "ProjectionExpression")
    for kind, (expressions, _legacy) in STYLES.items()
}
"""Per kind: the expression parameters that can use ExpressionAttributeValues (made once,
not per request)."""
OPERATORS: Final = (
    "EQ",
    "NE",
    "LE",
    "LT",
    "GE",
    "GT",
    "NOT_NULL",
    "NULL",
    "CONTAINS",
    "NOT_CONTAINS",
    "BEGINS_WITH",
    "IN",
    "BETWEEN",
)
_COMPARATOR: Final = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}
_SCALARS: Final = ("S", "N", "B")


def uses_expressions(req: dict[str, Any], kind: str) -> bool:
    """Whether a request (of a kind in STYLES) is written with expressions; False means
    its legacy parameters, if any, are to be read. DynamoDB refuses a request that mixes
    the two ("DynamoDB does not allow mixing legacy conditional parameters and expression
    parameters in a single call", LegacyConditionalParameters.html), with one exception
    it makes: a Query's KeyConditions goes with expressions when no
    KeyConditionExpression is given. Placeholders without an expression to use them are
    refused in DynamoDB's words (as dynalite, written against DynamoDB, words them)."""
    expressions, legacy = STYLES[kind]
    given = [name for name in expressions if req.get(name) is not None]
    if given:
        mixed = [
            name
            for name in legacy
            if req.get(name) is not None
            and not (name == "KeyConditions" and "KeyConditionExpression" not in given)
        ]
        if mixed:
            raise validation(
                "Can not use both expression and non-expression parameters in the same "
                f"request: Non-expression parameters: {{{', '.join(mixed)}}} "
                f"Expression parameters: {{{', '.join(given)}}}"
            )
    elif req.get("ExpressionAttributeNames") is not None:
        raise validation("ExpressionAttributeNames can only be specified when using expressions")
    using_values = _USING_VALUES[kind]
    if (
        using_values
        and req.get("ExpressionAttributeValues") is not None
        and all(req.get(name) is None for name in using_values)
    ):
        raise validation(
            "ExpressionAttributeValues can only be specified when using expressions: "
            f"{' and '.join(using_values)} {'is' if len(using_values) == 1 else 'are'} null"
        )
    return bool(given)


# --- conditions ------------------------------------------------------------------------------


def _value_list(spec: dict[str, Any], op: str) -> list[AttributeValue]:
    values = spec.get("AttributeValueList")
    if values is None:
        return []
    if not isinstance(values, list):
        raise serialization("Unexpected value type in payload for member AttributeValueList")
    for value in values:
        check_value(value)
    return values


def _count(op: str, values: list[AttributeValue], wanted: int | None) -> None:
    if (len(values) != wanted) if wanted is not None else not values:
        raise invalid_parameter(f"Invalid number of argument(s) for the {op} ComparisonOperator")


def _scalar(op: str, value: AttributeValue, allowed: tuple[str, ...] = _SCALARS) -> None:
    kind = kind_of(value)
    if kind not in allowed:
        raise invalid_parameter(
            f"ComparisonOperator {op} is not valid for {kind} AttributeValue type"
        )


def comparison(attr: str, spec: Any, member: str) -> Node:
    """One `{ComparisonOperator, AttributeValueList}` condition on attribute `attr`, as
    the tree the same condition written as an expression parses to."""
    if not isinstance(spec, dict):
        raise serialization(f"Unexpected value type in payload for member {member}")
    op = spec.get("ComparisonOperator")
    if op not in OPERATORS:
        raise validation(
            f"1 validation error detected: Value '{op}' at '{member}.{attr}.member."
            "comparisonOperator' failed to satisfy constraint: Member must satisfy enum "
            f"value set: [{', '.join(OPERATORS)}]"
        )
    values = _value_list(spec, op)
    path: Node = ("path", (attr,))
    if op in ("NULL", "NOT_NULL"):
        _count(op, values, 0)
        exists = "attribute_not_exists" if op == "NULL" else "attribute_exists"
        return ("fn", exists, path, None)
    if op in _COMPARATOR:
        _count(op, values, 1)
        if op not in ("EQ", "NE"):
            _scalar(op, values[0])
        return ("cmp", _COMPARATOR[op], path, ("value", values[0]))
    if op in ("CONTAINS", "NOT_CONTAINS", "BEGINS_WITH"):
        _count(op, values, 1)
        _scalar(op, values[0], ("S", "B") if op == "BEGINS_WITH" else _SCALARS)
        name = "begins_with" if op == "BEGINS_WITH" else "contains"
        test: Node = ("fn", name, path, ("value", values[0]))
        if op == "NOT_CONTAINS":
            # [AWS] NOT_CONTAINS is false for a missing attribute (unlike NE): both
            # CONTAINS and NOT_CONTAINS fail on it.
            return ("and", ("fn", "attribute_exists", path, None), ("not", test))
        return test
    if op == "IN":
        _count(op, values, None)
        for value in values:
            _scalar(op, value)
        if len({kind_of(v) for v in values}) > 1:
            raise invalid_parameter(
                "AttributeValues inside AttributeValueList must be of same type"
            )
        return ("in", path, [("value", v) for v in values])
    # BETWEEN
    _count(op, values, 2)
    low, high = values
    _scalar(op, low)
    _scalar(op, high)
    if kind_of(low) != kind_of(high):
        raise invalid_parameter("AttributeValues inside AttributeValueList must be of same type")
    if canonical(low) != canonical(high) and typed(low) > typed(high):
        raise invalid_parameter(
            "The BETWEEN condition was provided a range where the lower bound is greater "
            "than the upper bound"
        )
    return ("between", path, ("value", low), ("value", high))


def _expected_one(attr: str, spec: Any) -> Node:
    if not isinstance(spec, dict):
        raise serialization("Unexpected value type in payload for member Expected")
    has_value, exists = "Value" in spec, spec.get("Exists")
    if has_value and "AttributeValueList" in spec:
        raise invalid_parameter(
            f"Value and AttributeValueList cannot be used together for Attribute: {attr}"
        )
    if "ComparisonOperator" in spec:
        if exists is not None:
            raise invalid_parameter(
                f"Exists and ComparisonOperator cannot be used together for Attribute: {attr}"
            )
        if has_value:
            # [AWS] `Value` with a ComparisonOperator is its one-element AttributeValueList
            # (API_ExpectedAttributeValue: "Value ... ComparisonOperator").
            spec = {**spec, "AttributeValueList": [spec["Value"]]}
            del spec["Value"]
        return comparison(attr, spec, "expected")
    if "AttributeValueList" in spec:
        raise invalid_parameter("AttributeValueList can only be used with a ComparisonOperator")
    if exists is False:
        if has_value:
            raise invalid_parameter(
                "Value cannot be used when Exists is false for Attribute: " + attr
            )
        return ("fn", "attribute_not_exists", ("path", (attr,)), None)
    if not has_value:
        raise invalid_parameter(f"Value must be provided when Exists is true for Attribute: {attr}")
    value = spec["Value"]
    check_value(value)
    return ("cmp", "=", ("path", (attr,)), ("value", value))


def _combined(parts: list[Node], req: dict[str, Any]) -> Node | None:
    operator = req.get("ConditionalOperator", "AND")
    if operator not in ("AND", "OR"):
        raise validation(
            f"1 validation error detected: Value '{operator}' at 'conditionalOperator' "
            "failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]"
        )
    if not parts:
        return None
    node = parts[0]
    for part in parts[1:]:
        node = ("and" if operator == "AND" else "or", node, part)
    return node


def _conditions(req: dict[str, Any], member: str) -> dict[str, Any] | None:
    conditions = req.get(member)
    if conditions is not None and not isinstance(conditions, dict):
        raise serialization(f"Unexpected value type in payload for member {member}")
    if "ConditionalOperator" in req and not conditions:
        raise invalid_parameter(f"ConditionalOperator can only be used when {member} is given")
    return conditions


def expected_condition(req: dict[str, Any]) -> Node | None:
    """The condition of a legacy `Expected` (+ `ConditionalOperator`), or None."""
    conditions = _conditions(req, "Expected")
    if not conditions:
        return None
    return _combined([_expected_one(a, s) for a, s in conditions.items()], req)


def filter_condition(req: dict[str, Any], member: str) -> Node | None:
    """The filter of a legacy `QueryFilter` or `ScanFilter` (+ `ConditionalOperator`)."""
    conditions = _conditions(req, member)
    if not conditions:
        return None
    lowered = member[:1].lower() + member[1:]
    return _combined([comparison(a, s, lowered) for a, s in conditions.items()], req)


def key_conditions(req: dict[str, Any]) -> Node:
    """A legacy `KeyConditions`, as the tree of the equivalent KeyConditionExpression
    (which `expr_parse.key_condition` then checks against the key schema)."""
    conditions = req.get("KeyConditions")
    if not isinstance(conditions, dict) or not conditions:
        raise validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be "
            "specified in the request."
        )
    parts = [comparison(a, s, "keyConditions") for a, s in conditions.items()]
    if len(parts) > 2:
        raise validation("Conditions can be of length 1 or 2 only")
    return parts[0] if len(parts) == 1 else ("and", parts[0], parts[1])


# --- AttributeUpdates ------------------------------------------------------------------------


def attribute_updates(req: dict[str, Any]) -> list[Node]:
    """A legacy `AttributeUpdates`, as the actions of the equivalent UpdateExpression.
    [AWS] LegacyConditionalParameters.AttributeUpdates.html: PUT sets, DELETE without a
    value removes, DELETE with a set removes its elements, ADD adds to a number or set
    and appends to a list."""
    updates = req.get("AttributeUpdates")
    if not isinstance(updates, dict):
        raise serialization("Unexpected value type in payload for member AttributeUpdates")
    actions: list[Node] = []
    for attr, spec in updates.items():
        if not isinstance(spec, dict):
            raise serialization("Unexpected value type in payload for member AttributeUpdates")
        check_name_size(attr)
        action = spec.get("Action", "PUT")
        if action not in ("PUT", "ADD", "DELETE"):
            raise validation(
                f"1 validation error detected: Value '{action}' at 'attributeUpdates."
                f"{attr}.member.action' failed to satisfy constraint: Member must satisfy "
                "enum value set: [ADD, PUT, DELETE]"
            )
        path = (attr,)
        value = spec.get("Value")
        if value is None:
            if action != "DELETE":
                raise invalid_parameter(
                    "Only DELETE action is allowed when no attribute value is specified"
                )
            actions.append(("remove", path))
            continue
        check_value(value)
        kind = kind_of(value)
        if action == "PUT":
            actions.append(("set", path, ("value", value)))
        elif action == "DELETE":
            if kind not in ("SS", "NS", "BS"):
                raise invalid_parameter(
                    f"DELETE action with value is not supported for the type {kind}"
                )
            actions.append(("delete", path, value))
        elif kind == "L":
            existing: Node = ("if_not_exists", path, ("value", {"L": []}))
            actions.append(("set", path, ("list_append", existing, ("value", value))))
        elif kind in ("N", "SS", "NS", "BS"):
            actions.append(("add", path, value))
        else:
            raise invalid_parameter(f"ADD action is not supported for the type {kind}")
    return actions
