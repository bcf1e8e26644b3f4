"""Applying a parsed UpdateExpression (SET, REMOVE, ADD, DELETE) to an item: a new item,
every value computed from the item as it was before the update, as DynamoDB does."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from emulator.numbers import MAX_DIGITS, add, significant_digits, subtract
from emulator.server.expr_eval import operand_value, resolve
from emulator.server.expr_parse import Node, Path
from emulator.server.protocol import DynamoError, invalid_parameter, validation
from emulator.server.values import AttributeValue, Item, canonical, format_number, kind_of


def _update_error(detail: str) -> DynamoError:
    return validation(f"Invalid UpdateExpression: {detail}")


def _checked(exact: Decimal) -> str:
    """A computed number as stored, or DynamoDB's refusal: a result with more than 38
    significant digits or beyond 9.9E125 is a "Number overflow" (DynamoDB words a loss
    of precision so too), one below 1E-130 a "Number underflow"."""
    if exact != 0:
        if significant_digits(exact) > MAX_DIGITS or exact.adjusted() > 125:
            raise validation(
                "Number overflow. Attempting to store a number with magnitude larger "
                "than supported range"
            )
        if exact.adjusted() < -130:
            raise validation(
                "Number underflow. Attempting to store a number with magnitude smaller "
                "than supported range"
            )
    return format_number(exact)


def _set_value(node: Node, item: Item | None) -> AttributeValue:
    kind = node[0]
    if kind in ("plus", "minus"):
        a, b = _set_value(node[1], item), _set_value(node[2], item)
        if kind_of(a) != "N" or kind_of(b) != "N":
            raise _update_error(
                "Incorrect operand type for operator or function; operator: "
                f"{'+' if kind == 'plus' else '-'}, operand type: "
                f"{kind_of(b) if kind_of(a) == 'N' else kind_of(a)}"
            )
        x, y = Decimal(a["N"]), Decimal(b["N"])
        return {"N": _checked(add(x, y) if kind == "plus" else subtract(x, y))}
    if kind == "if_not_exists":
        existing = resolve(item, node[1])
        return existing if existing is not None else _set_value(node[2], item)
    if kind == "list_append":
        a, b = _set_value(node[1], item), _set_value(node[2], item)
        if kind_of(a) != "L" or kind_of(b) != "L":
            raise _update_error(
                "Incorrect operand type for operator or function; operator or "
                "function: list_append, operand type: "
                f"{kind_of(b) if kind_of(a) == 'L' else kind_of(a)}"
            )
        return {"L": [*a["L"], *b["L"]]}
    value = operand_value(item, node)
    if value is None:
        raise validation(
            "The provided expression refers to an attribute that does not exist in the item"
        )
    return value


def _parent(item: Item, path: Path, create: bool) -> tuple[Any, str | int] | None:
    """The container holding the last element of `path` (a dict of attributes or a list)."""
    container: Any = item
    for element in path[:-1]:
        if isinstance(container, dict):
            value = container.get(element) if isinstance(element, str) else None
        else:
            value = (
                container[element]
                if isinstance(element, int) and element < len(container)
                else None
            )
        if value is None:
            if create:
                raise validation(
                    "The document path provided in the update expression is invalid for update"
                )
            return None
        kind = kind_of(value)
        container = value["M"] if kind == "M" else value["L"] if kind == "L" else None
        if container is None:
            if create:
                raise validation(
                    "The document path provided in the update expression is invalid for update"
                )
            return None
    return container, path[-1]


def _assign(item: Item, path: Path, value: AttributeValue) -> None:
    found = _parent(item, path, create=True)
    assert found is not None
    container, last = found
    if isinstance(container, dict) and isinstance(last, str):
        container[last] = value
    elif isinstance(container, list) and isinstance(last, int):
        if last < len(container):
            container[last] = value
        else:
            container.append(value)
    else:
        raise validation(
            "The document path provided in the update expression is invalid for update"
        )


def _remove(item: Item, path: Path, strict: bool = True) -> None:
    """Remove `path`; a missing leaf is no error, but a path through a missing or
    non-container attribute is (`REMOVE a.c` where `a` is a string), unless `strict` is
    False (the item did not exist: DynamoDB ignores any REMOVE then)."""
    found = _parent(item, path, create=strict)
    if found is None:
        return
    container, last = found
    if isinstance(container, dict) and isinstance(last, str):
        container.pop(last, None)
    elif isinstance(container, list) and isinstance(last, int):
        if last < len(container):
            del container[last]
    elif strict:  # `REMOVE b.c` where b is a list, `REMOVE m[0]` where m is a map
        raise validation(
            "The document path provided in the update expression is invalid for update"
        )


def _set_kind(value: AttributeValue) -> str:
    kind = kind_of(value)
    return kind if kind in ("SS", "NS", "BS") else ""


def _add(item: Item, path: Path, operand: AttributeValue) -> None:
    current = resolve(item, path)
    kind = kind_of(operand)
    if kind == "N":
        if current is None:
            _assign(item, path, operand)
        elif kind_of(current) == "N":
            total = add(Decimal(current["N"]), Decimal(operand["N"]))
            _assign(item, path, {"N": _checked(total)})
        else:
            raise _update_error(
                "Incorrect operand type for operator or function; operator: "
                f"ADD, operand type: {kind_of(current)}"
            )
    elif _set_kind(operand):
        if current is None:
            _assign(item, path, copy.deepcopy(operand))
        elif kind_of(current) == kind:
            seen = {canonical({kind[0]: e}) for e in current[kind]}
            merged = list(current[kind])
            for element in operand[kind]:
                c = canonical({kind[0]: element})
                if c not in seen:
                    seen.add(c)
                    merged.append(element)
            _assign(item, path, {kind: merged})
        else:
            raise _update_error(
                "Incorrect operand type for operator or function; operator: "
                f"ADD, operand type: {kind_of(current)}"
            )
    else:
        raise _update_error(
            f"Incorrect operand type for operator or function; operator: ADD, operand type: {kind}"
        )


def _delete(item: Item, path: Path, operand: AttributeValue) -> None:
    kind = _set_kind(operand)
    if not kind:
        raise _update_error(
            "Incorrect operand type for operator or function; operator: "
            f"DELETE, operand type: {kind_of(operand)}"
        )
    current = resolve(item, path)
    if current is None:
        return
    if kind_of(current) != kind:
        raise _update_error(
            "Incorrect operand type for operator or function; operator: "
            f"DELETE, operand type: {kind_of(current)}"
        )
    gone = {canonical({kind[0]: e}) for e in operand[kind]}
    kept = [e for e in current[kind] if canonical({kind[0]: e}) not in gone]
    if kept:
        _assign(item, path, {kind: kept})
    else:
        _remove(item, path)


def apply_update(
    actions: list[Node], item: Item | None, key_names: tuple[str, ...], key: Item | None = None
) -> Item:
    """The item after an update expression (a new dict; `item` is not modified). Every
    value is computed from the item as it was before the update, as DynamoDB does; for a
    new item (`item` None) from its `key`, which it has before the update runs (`SET b =
    if_not_exists(b, a)`, `a` a key attribute, reads the key's value)."""
    before = item if item is not None else key
    # A shallow copy, not a deep one of the whole item per UpdateItem: an action at a
    # top-level name replaces its value outright (through `_assign`/`_remove`, never in
    # place), so only an attribute a path goes inside (a.b, l[0]), whose map or list is
    # changed in place, is copied deeply; `item` stays as it was (ALL_OLD answers it).
    after: Item = dict(item) if item is not None else {}
    for action in actions:
        path = action[1]
        if isinstance(path[0], str) and path[0] in key_names:
            raise invalid_parameter(
                f"Cannot update attribute {path[0]}. This attribute is part of the key"
            )
    for action in actions:
        path = action[1]
        top = path[0]
        if len(path) > 1 and isinstance(top, str) and top in after:
            after[top] = copy.deepcopy(after[top])
    values = [(_set_value(a[2], before) if a[0] == "set" else None) for a in actions]
    # [AWS UpdateExpression SET, "Adding elements to a list"]: elements set past a list's
    # end are appended "in order by element number", whatever order the SET lists them.
    steps = sorted(
        zip(actions, values, strict=True),
        key=lambda step: [(0, e) if isinstance(e, int) else (1, str(e)) for e in step[0][1]],
    )
    removals = []
    for action, value in steps:
        kind, path = action[0], action[1]
        if kind == "set":
            assert value is not None
            _assign(after, path, value)
        elif kind == "remove":
            removals.append(path)
        elif kind == "add":
            _add(after, path, action[2])
        else:
            _delete(after, path, action[2])
    # List removals by index go from the highest index down so earlier ones do not shift.
    for path in sorted(removals, key=lambda p: [(-e if isinstance(e, int) else 0) for e in p]):
        _remove(after, path, strict=item is not None)
    return after
