"""DynamoDB expressions: condition, filter, key-condition, update and projection.

A small recursive-descent parser (the grammar is tiny and no maintained Python library
implements DynamoDB's dialect) producing tuples that `evaluate`/`apply_update` walk.
Placeholders (#name, :value) are resolved while parsing, so an unknown or unused one is
reported the way DynamoDB reports it, before anything is read or written.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from emulator.numbers import add, subtract
from emulator.server.protocol import DynamoError, invalid_parameter, validation
from emulator.server.values import AttributeValue, Item, canonical, format_number, kind_of, typed

_TOKEN = re.compile(
    r"""
    \s*(?:
      (?P<op><>|<=|>=|=|<|>|\(|\)|,|\[|\]|\.|\+|-)
    | (?P<name>\#[A-Za-z0-9_]+)
    | (?P<value>:[A-Za-z0-9_]+)
    | (?P<num>[0-9]+)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)

COMPARATORS = ("=", "<>", "<", "<=", ">", ">=")
CONDITION_FUNCTIONS = (
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
)
KEYWORDS = ("AND", "OR", "NOT", "BETWEEN", "IN")
MAX_EXPRESSION_BYTES = 4096

Path = tuple[str | int, ...]
Node = tuple[Any, ...]


@dataclass
class Placeholders:
    """ExpressionAttributeNames/Values of one request, and which ones were used."""

    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, AttributeValue] = field(default_factory=dict)
    used_names: set[str] = field(default_factory=set)
    used_values: set[str] = field(default_factory=set)

    def check_all_used(self) -> None:
        """DynamoDB refuses a request that defines placeholders it never uses."""
        unused_names = sorted(set(self.names) - self.used_names)
        if unused_names:
            raise invalid_parameter(
                "Value provided in ExpressionAttributeNames unused in "
                f"expressions: keys: {{{', '.join(unused_names)}}}"
            )
        unused_values = sorted(set(self.values) - self.used_values)
        if unused_values:
            raise invalid_parameter(
                "Value provided in ExpressionAttributeValues unused in "
                f"expressions: keys: {{{', '.join(unused_values)}}}"
            )


class _Parser:
    def __init__(self, text: str, kind: str, ph: Placeholders) -> None:
        if not isinstance(text, str):
            raise validation(f"Invalid {kind}: expression must be a string")
        if not text.strip():
            raise validation(f"Invalid {kind}: The expression can not be empty;")
        if len(text.encode()) > MAX_EXPRESSION_BYTES:
            raise validation(
                f"Invalid {kind}: Expression size has exceeded the maximum allowed size"
            )
        self.text = text
        self.kind = kind
        self.ph = ph
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                bad = text[pos:].strip()[:1]
                raise validation(
                    f'Invalid {kind}: Syntax error; token: "{bad}", near: '
                    f'"{text[max(0, pos - 5) : pos + 5].strip()}"'
                )
            group = match.lastgroup
            assert group is not None
            self.tokens.append((group, match.group(group)))
            pos = match.end()
        self.i = 0

    # token helpers -------------------------------------------------------------------
    def peek(self, offset: int = 0) -> tuple[str, str] | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def next(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise validation(
                f'Invalid {self.kind}: Syntax error; token: "<EOF>", near: "{self.text[-10:]}"'
            )
        self.i += 1
        return token

    def error(self, token: tuple[str, str] | None = None) -> DynamoError:
        token = token or self.peek()
        shown = token[1] if token else "<EOF>"
        return validation(
            f'Invalid {self.kind}: Syntax error; token: "{shown}", near: "{self.text[:40]}"'
        )

    def expect(self, op: str) -> None:
        token = self.next()
        if token != ("op", op):
            raise self.error(token)

    def at_op(self, op: str) -> bool:
        return self.peek() == ("op", op)

    def at_word(self, word: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "word" and token[1].upper() == word

    def done(self) -> None:
        if self.peek() is not None:
            raise self.error()

    # operands --------------------------------------------------------------------------
    def path(self) -> Path:
        elements: list[str | int] = [self._path_name()]
        while True:
            if self.at_op("."):
                self.next()
                elements.append(self._path_name())
            elif self.at_op("["):
                self.next()
                kind, text = self.next()
                if kind != "num":
                    raise self.error((kind, text))
                elements.append(int(text))
                self.expect("]")
            else:
                return tuple(elements)

    def _path_name(self) -> str:
        kind, text = self.next()
        if kind == "name":
            if text not in self.ph.names:
                raise validation(
                    f"Invalid {self.kind}: An expression attribute name used in "
                    f"the document path is not defined; attribute name: {text}"
                )
            self.ph.used_names.add(text)
            return self.ph.names[text]
        if kind == "word" and text.upper() not in KEYWORDS:
            return text
        raise self.error((kind, text))

    def value_ref(self) -> AttributeValue:
        kind, text = self.next()
        if kind != "value":
            raise self.error((kind, text))
        if text not in self.ph.values:
            raise validation(
                f"Invalid {self.kind}: An expression attribute value used in "
                f"expression is not defined; attribute value: {text}"
            )
        self.ph.used_values.add(text)
        return self.ph.values[text]

    def operand(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error()
        if token[0] == "value":
            return ("value", self.value_ref())
        if token[0] == "word" and token[1] == "size" and self.peek(1) == ("op", "("):
            self.next()
            self.next()
            path = self.path()
            self.expect(")")
            return ("size", path)
        if token[0] == "word" and self.peek(1) == ("op", "("):
            raise validation(
                f"Invalid {self.kind}: The function is not allowed to be used "
                f"this way in an expression; function: {token[1]}"
            )
        return ("path", self.path())

    # conditions ------------------------------------------------------------------------
    def condition(self) -> Node:
        left = self._and()
        while self.at_word("OR"):
            self.next()
            left = ("or", left, self._and())
        return left

    def _and(self) -> Node:
        left = self._not()
        while self.at_word("AND"):
            self.next()
            left = ("and", left, self._not())
        return left

    def _not(self) -> Node:
        if self.at_word("NOT"):
            self.next()
            return ("not", self._not())
        return self._primary()

    def _primary(self) -> Node:
        if self.at_op("("):
            self.next()
            inner = self.condition()
            self.expect(")")
            return inner
        token = self.peek()
        if (
            token is not None
            and token[0] == "word"
            and token[1] in CONDITION_FUNCTIONS
            and self.peek(1) == ("op", "(")
        ):
            return self._function(token[1])
        left = self.operand()
        if self.at_word("BETWEEN"):
            self.next()
            low = self.operand()
            if not self.at_word("AND"):
                raise self.error()
            self.next()
            return ("between", left, low, self.operand())
        if self.at_word("IN"):
            self.next()
            self.expect("(")
            options = [self.operand()]
            while self.at_op(","):
                self.next()
                options.append(self.operand())
            self.expect(")")
            return ("in", left, options)
        token = self.next()
        if token[0] != "op" or token[1] not in COMPARATORS:
            raise self.error(token)
        return ("cmp", token[1], left, self.operand())

    def _function(self, name: str) -> Node:
        self.next()
        self.expect("(")
        path = self.path()
        if name in ("attribute_exists", "attribute_not_exists"):
            self.expect(")")
            return ("fn", name, path, None)
        self.expect(",")
        arg = self.operand()
        self.expect(")")
        return ("fn", name, path, arg)

    # updates ---------------------------------------------------------------------------
    def update(self) -> list[Node]:
        actions: list[Node] = []
        seen: set[str] = set()
        while self.peek() is not None:
            kind, text = self.next()
            clause = text.upper()
            if kind != "word" or clause not in ("SET", "REMOVE", "ADD", "DELETE"):
                raise self.error((kind, text))
            if clause in seen:
                raise validation(
                    f'Invalid {self.kind}: The "{clause}" section can only be '
                    "used once in an update expression;"
                )
            seen.add(clause)
            while True:
                actions.append(self._action(clause))
                if not self.at_op(","):
                    break
                self.next()
        return actions

    def _action(self, clause: str) -> Node:
        path = self.path()
        if clause == "REMOVE":
            return ("remove", path)
        if clause == "SET":
            self.expect("=")
            value = self._set_value()
            return ("set", path, value)
        return (clause.lower(), path, self.value_ref())

    def _set_value(self) -> Node:
        left = self._set_operand()
        if self.at_op("+") or self.at_op("-"):
            op = self.next()[1]
            return ("plus" if op == "+" else "minus", left, self._set_operand())
        return left

    def _set_operand(self) -> Node:
        token = self.peek()
        if token is not None and token[0] == "word" and self.peek(1) == ("op", "("):
            name = token[1]
            self.next()
            self.next()
            if name == "if_not_exists":
                path = self.path()
                self.expect(",")
                default = self._set_operand()
                self.expect(")")
                return ("if_not_exists", path, default)
            if name == "list_append":
                first = self._set_operand()
                self.expect(",")
                second = self._set_operand()
                self.expect(")")
                return ("list_append", first, second)
            raise validation(f"Invalid {self.kind}: Invalid function name; function: {name}")
        return self.operand()


# --- parsing entry points ------------------------------------------------------------------


def parse_condition(text: str, ph: Placeholders, kind: str = "ConditionExpression") -> Node:
    parser = _Parser(text, kind, ph)
    node = parser.condition()
    parser.done()
    return node


def parse_update(text: str, ph: Placeholders) -> list[Node]:
    parser = _Parser(text, "UpdateExpression", ph)
    return parser.update()


def parse_projection(text: str, ph: Placeholders) -> list[Path]:
    parser = _Parser(text, "ProjectionExpression", ph)
    paths = [parser.path()]
    while parser.at_op(","):
        parser.next()
        paths.append(parser.path())
    parser.done()
    return paths


@dataclass(frozen=True)
class KeyCondition:
    """A Query's key condition: the partition key value and an optional sort-key test."""

    pk_name: str
    pk_value: AttributeValue
    sk_test: Node | None


def parse_key_condition(text: str, ph: Placeholders, pk: str, sk: str | None) -> KeyCondition:
    """Only `pk = :v [AND <sort-key condition>]` is a valid key condition [AWS]."""
    node = parse_condition(text, ph, "KeyConditionExpression")
    parts = [node[1], node[2]] if node[0] == "and" else [node]
    pk_value: AttributeValue | None = None
    sk_test: Node | None = None
    for part in parts:
        attr = _key_attr(part)
        if attr == pk and part[0] == "cmp" and part[1] == "=" and pk_value is None:
            pk_value = part[3][1]
        elif sk is not None and attr == sk and sk_test is None and _valid_sk_test(part):
            sk_test = part
        else:
            raise validation(
                "Query condition missed key schema element"
                if attr not in (pk, sk)
                else "Query key condition not supported"
            )
    if pk_value is None:
        raise validation(f"Query condition missed key schema element: {pk}")
    return KeyCondition(pk, pk_value, sk_test)


def _key_attr(node: Node) -> str | None:
    if node[0] == "cmp" and node[2][0] == "path" and node[3][0] == "value":
        path = node[2][1]
    elif node[0] == "between" and node[1][0] == "path":
        path = node[1][1]
    elif node[0] == "fn" and node[1] == "begins_with":
        path = node[2]
    else:
        return None
    return path[0] if len(path) == 1 and isinstance(path[0], str) else None


def _valid_sk_test(node: Node) -> bool:
    if node[0] == "cmp":
        return bool(node[1] != "<>")
    if node[0] == "between":
        return node[2][0] == "value" and node[3][0] == "value"
    return node[0] == "fn" and node[1] == "begins_with" and node[3][0] == "value"


# --- evaluation ----------------------------------------------------------------------------


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


def _operand(item: Item | None, node: Node) -> AttributeValue | None:
    kind = node[0]
    if kind == "value":
        value: AttributeValue = node[1]
        return value
    if kind == "path":
        return resolve(item, node[1])
    if kind == "size":
        target = resolve(item, node[1])
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
            raise validation(
                "Invalid ConditionExpression: Incorrect operand type for "
                f"operator or function; operator or function: size, operand "
                f"type: {t}"
            )
        return {"N": str(n)}
    raise validation("Invalid expression: unsupported operand")


def _compare(op: str, a: AttributeValue | None, b: AttributeValue | None) -> bool:
    if a is None or b is None:
        return False
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
        return _compare(node[1], _operand(item, node[2]), _operand(item, node[3]))
    if kind == "between":
        value = _operand(item, node[1])
        low, high = _operand(item, node[2]), _operand(item, node[3])
        if low is not None and high is not None and _compare(">", low, high):
            raise validation(
                "Invalid ConditionExpression: The BETWEEN operator requires "
                "upper bound to be greater than or equal to lower bound"
            )
        return _compare(">=", value, low) and _compare("<=", value, high)
    if kind == "in":
        value = _operand(item, node[1])
        return any(_compare("=", value, _operand(item, option)) for option in node[2])
    if kind == "fn":
        return _function(node[1], resolve(item, node[2]), node[3], item)
    raise validation("Invalid expression")


def _function(
    name: str, target: AttributeValue | None, arg: Node | None, item: Item | None
) -> bool:
    if name == "attribute_exists":
        return target is not None
    if name == "attribute_not_exists":
        return target is None
    assert arg is not None
    operand = _operand(item, arg)
    if target is None or operand is None:
        return False
    if name == "attribute_type":
        wanted = operand.get("S")
        if wanted not in ("S", "N", "B", "SS", "NS", "BS", "M", "L", "BOOL", "NULL"):
            raise validation(
                "Invalid ConditionExpression: Invalid attribute type name found; "
                f"type: {wanted}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
            )
        return kind_of(target) == wanted
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


# --- updates --------------------------------------------------------------------------------


def _update_error(detail: str) -> DynamoError:
    return validation(f"Invalid UpdateExpression: {detail}")


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
        return {"N": format_number(add(x, y) if kind == "plus" else subtract(x, y))}
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
    value = _operand(item, node)
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


def _remove(item: Item, path: Path) -> None:
    found = _parent(item, path, create=False)
    if found is None:
        return
    container, last = found
    if isinstance(container, dict) and isinstance(last, str):
        container.pop(last, None)
    elif isinstance(container, list) and isinstance(last, int) and last < len(container):
        del container[last]


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
            _assign(item, path, {"N": format_number(total)})
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


def apply_update(actions: list[Node], item: Item | None, key_names: tuple[str, ...]) -> Item:
    """The item after an update expression (a new dict; `item` is not modified). Every
    value is computed from the item as it was before the update, as DynamoDB does."""
    before = item
    after: Item = copy.deepcopy(item) if item is not None else {}
    paths: list[Path] = []
    for action in actions:
        path = action[1]
        if isinstance(path[0], str) and path[0] in key_names:
            raise invalid_parameter(
                f"Cannot update attribute {path[0]}. This attribute is part of the key"
            )
        for other in paths:
            shorter = min(len(other), len(path))
            if other[:shorter] == path[:shorter]:
                raise validation(
                    "Invalid UpdateExpression: Two document paths overlap with "
                    f"each other; must remove or rewrite one of these paths; "
                    f"path one: [{_show(other)}], path two: [{_show(path)}]"
                )
        paths.append(path)
    values = [(_set_value(a[2], before) if a[0] == "set" else None) for a in actions]
    removals = []
    for action, value in zip(actions, values, strict=True):
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
        _remove(after, path)
    return after


def _show(path: Path) -> str:
    return ", ".join(str(e) for e in path)


def project(item: Item, paths: list[Path]) -> Item:
    """The parts of an item a ProjectionExpression asks for (missing paths omitted)."""
    out: Item = {}
    for path in paths:
        value = resolve(item, path)
        if value is None:
            continue
        if len(path) == 1:
            out[str(path[0])] = value
            continue
        _graft(out, path, value)
    return out


def _graft(out: Item, path: Path, value: AttributeValue) -> None:
    # Nested projection keeps the document's shape; list positions are compacted, as
    # DynamoDB returns them.
    container: Any = out
    for i, element in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(container, dict):
            key = element
            if key not in container:
                container[key] = {"L": []} if isinstance(nxt, int) else {"M": {}}
            holder = container[key]
        else:
            holder = {"L": []} if isinstance(nxt, int) else {"M": {}}
            container.append(holder)
        container = holder.get("M", holder.get("L"))
    last = path[-1]
    if isinstance(container, dict):
        container[last] = value
    else:
        container.append(value)
