"""Evaluating parsed conditions (ConditionExpression, FilterExpression, a Query's sort-key
test) against an item, as DynamoDB compares values: a missing attribute satisfies no
comparison, and values of different types are never ordered.
"""

from __future__ import annotations

from typing import Any

from emulator.server.expr_parse import Node, Path
from emulator.server.protocol import validation
from emulator.server.values import AttributeValue, Item, canonical, kind_of, typed


def resolve(item: Item | AttributeValue | None, path: Path) -> AttributeValue | None:
    """The value at a document path, or None if any step is missing."""
    current: Any = {"M": item} if item is not None else None
    for element in path:
        if current is None:
            return None
        if isinstance(element, str):
            if kind_of(current) != "M":
                return None
            current = current["M"].get(element)
        else:
            if kind_of(current) != "L" or element >= len(current["L"]):
                return None
            current = current["L"][element]
    result: AttributeValue | None = current
    return result


def operand_value(item: Item | None, node: Node) -> AttributeValue | None:
    kind = node[0]
    if kind == "value":
        value: AttributeValue = node[1]
        return value
    if kind == "path":
        return resolve(item, node[1])
    if kind == "size":
        target = operand_value(item, node[1])
        if target is None:
            return None
        t, inner = next(iter(target.items()))
        if t == "S":
            n = len(inner.encode("utf-8"))
        elif t == "B":
            n = len(typed(target))
        elif t in ("SS", "NS", "BS", "L", "M"):
            n = len(inner)
        else:
            # A number, boolean or null has no size: the comparison matches nothing,
            # as DynamoDB's does, rather than failing the request.
            return None
        return {"N": str(n)}
    raise validation("Invalid expression: unsupported operand")


def _compare(op: str, a: AttributeValue | None, b: AttributeValue | None) -> bool:
    if a is None or b is None:
        # A missing attribute equals nothing and is ordered against nothing, so it is
        # "not equal" to any value: `a <> :v` holds when `a` is missing, as in DynamoDB
        # (and legacy NE: "true if the attribute does not exist").
        # Two missing attributes are not equal either (Alternator's
        # test_update_condition_ne_two_unset, run against DynamoDB).
        return op == "<>"
    if op == "=":
        return bool(canonical(a) == canonical(b))
    if op == "<>":
        return bool(canonical(a) != canonical(b))
    ka, kb = kind_of(a), kind_of(b)
    if ka != kb or ka not in ("S", "N", "B"):
        return False
    x, y = typed(a), typed(b)
    if op == "<":
        return bool(x < y)
    if op == "<=":
        return bool(x <= y)
    if op == ">":
        return bool(x > y)
    return bool(x >= y)


def evaluate(node: Node, item: Item | None) -> bool:
    """Whether `item` (None: no item) satisfies a parsed condition."""
    kind = node[0]
    if kind == "and":
        return evaluate(node[1], item) and evaluate(node[2], item)
    if kind == "or":
        return evaluate(node[1], item) or evaluate(node[2], item)
    if kind == "not":
        return not evaluate(node[1], item)
    if kind == "cmp":
        return _compare(node[1], operand_value(item, node[2]), operand_value(item, node[3]))
    if kind == "between":
        value = operand_value(item, node[1])
        low, high = operand_value(item, node[2]), operand_value(item, node[3])
        # Constant bounds out of order were refused when parsed; bounds read from the
        # item out of order make a false condition, as in DynamoDB.
        return _compare(">=", value, low) and _compare("<=", value, high)
    if kind == "in":
        value = operand_value(item, node[1])
        return any(_compare("=", value, operand_value(item, option)) for option in node[2])
    if kind == "fn":
        return _function(node[1], operand_value(item, node[2]), node[3], item)
    raise validation("Invalid expression")


def _function(
    name: str, target: AttributeValue | None, arg: Node | None, item: Item | None
) -> bool:
    if name == "attribute_exists":
        return target is not None
    if name == "attribute_not_exists":
        return target is None
    assert arg is not None
    operand = operand_value(item, arg)
    if target is None or operand is None:
        return False
    if name == "attribute_type":
        # The type operand was checked when parsed (expr_parse.ATTRIBUTE_TYPES).
        return kind_of(target) == operand.get("S")
    if name == "begins_with":
        kt, ko = kind_of(target), kind_of(operand)
        if ko not in ("S", "B"):
            raise validation(
                "Invalid ConditionExpression: Incorrect operand type for operator "
                f"or function; operator or function: begins_with, operand type: "
                f"{ko}"
            )
        if kt != ko:
            return False
        return bool(typed(target).startswith(typed(operand)))
    # contains
    kt = kind_of(target)
    if kt in ("S", "B"):
        return kind_of(operand) == kt and typed(operand) in typed(target)
    if kt in ("SS", "NS", "BS"):
        element = kt[0]
        if kind_of(operand) != element:
            return False
        wanted_value = canonical(operand)
        return any(canonical({element: e}) == wanted_value for e in target[kt])
    if kt == "L":
        wanted_value = canonical(operand)
        return any(canonical(e) == wanted_value for e in target["L"])
    return False
