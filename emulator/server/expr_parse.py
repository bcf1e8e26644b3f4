"""DynamoDB expressions, parsed: condition, filter, key-condition, update and projection.

A small recursive-descent parser (the grammar is tiny and no maintained Python library
implements DynamoDB's dialect) producing tuples that `expr_eval.evaluate` and
`expr_update.apply_update` walk. Placeholders (#name, :value) are resolved while parsing,
so an unknown or unused one is reported the way DynamoDB reports it, before anything is
read or written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from emulator.server.items import KeySchema
from emulator.server.protocol import DynamoError, invalid_parameter, validation
from emulator.server.reserved_words import RESERVED_WORDS
from emulator.server.values import AttributeValue, canonical, kind_of, typed

_TOKEN = re.compile(
    r"""
    \s*(?:
      (?P<op><>|<=|>=|=|<|>|\(|\)|,|\[|\]|\.|\+|-)
    | (?P<name>\#[A-Za-z0-9_]+)
    | (?P<value>:[A-Za-z0-9_]+)
    | (?P<num>[0-9]+)
    | (?P<word>[A-Za-z][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)

COMPARATORS = ("=", "<>", "<", "<=", ">", ">=")
OPERAND_KINDS = frozenset({"path", "value", "size"})
"""The nodes of operands (what a condition compares), as opposed to conditions."""
CONDITION_FUNCTIONS = (
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
)
KEYWORDS = ("AND", "OR", "NOT", "BETWEEN", "IN")
"""The words of a condition's grammar (never an attribute name in one)."""
UPDATE_CLAUSES = ("SET", "REMOVE", "ADD", "DELETE")
"""The words of an update expression's grammar (never an attribute name in one)."""
ATTRIBUTE_TYPES = ("S", "N", "B", "SS", "NS", "BS", "M", "L", "BOOL", "NULL")
SIZED_TYPES = ("S", "B", "SS", "NS", "BS", "L", "M")
MAX_EXPRESSION_BYTES = 4096
MAX_PATH_DEPTH = 32
"""[AWS] a document path has at most 32 levels."""
MAX_LIST_INDEX = 2**31 - 1
"""The largest list index DynamoDB parses (a larger one is refused, not ignored)."""

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
        size = len(text.encode())
        if size > MAX_EXPRESSION_BYTES:
            raise validation(
                f"Invalid {kind}: Expression size has exceeded the maximum allowed size; "
                f"expression size: {size}"
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
        self.parens = 0
        """How many parentheses of a condition are open (a bare operand may close one)."""
        self.grammar_words = _grammar_words(kind)
        self.reserved = self._first_reserved()
        """The first attribute name written bare that is a reserved word, as written."""

    def _first_reserved(self) -> str | None:
        """The first word of the expression that can only be read as a bare attribute
        name and is one of DynamoDB's reserved words (looked up upper-cased: the list is
        not case-sensitive). Found on the tokens, before parsing, because DynamoDB
        reports it ahead of errors the parser meets earlier in the text (an undefined
        placeholder: dynalite's tests, recorded against AWS, expect `#a,ABSoLUTE` to
        answer the reserved word). A word is such a name unless a `(` follows it (a
        function's name: `size(a)`, `if_not_exists(a, :v)`) or it is a word of this
        kind's grammar (`AND`... in a condition, `SET`... in an update); one the parser
        then refuses in a name's place is a syntax error, which wins anyway."""
        tokens = self.tokens
        last = len(tokens) - 1
        for j, (kind, text) in enumerate(tokens):
            if kind != "word":
                continue
            upper = text.upper()
            if upper not in RESERVED_WORDS or upper in self.grammar_words:
                continue
            if j < last and tokens[j + 1] == ("op", "("):
                continue
            return text
        return None

    def check_reserved(self) -> None:
        """Refuse the expression if it names an attribute by a reserved word (called
        once the whole expression has parsed: a syntax error is reported first)."""
        if self.reserved is not None:
            raise self._reserved_error(self.reserved)

    def _reserved_error(self, word: str) -> DynamoError:
        return validation(
            f"Invalid {self.kind}: Attribute name is a reserved keyword; reserved keyword: {word}"
        )

    def ranked(self, err: DynamoError) -> DynamoError:
        """What to answer for `err`, an error met while parsing: the reserved-word
        refusal when the expression has a reserved word and `err` does not outrank it.
        [AWS] DynamoDB parses the whole expression first (a syntax error is answered
        whatever else is wrong: dynalite's `abort,`), then reports a reserved word before
        an undefined placeholder, a repeated section, an overlap or an operand's type
        (dynalite's tests: `set #c = :c set abOrt = true`, `attribute_exists(views, #a)`,
        `:a < abOrT`), but in a condition after a misused or unknown function
        (`a=a and attribute_exists((views), (#a)) > b` answers the function). An error
        raised part-way through the text leaves the rest unparsed, so a later syntax
        error is not seen and the reserved word is answered instead: both are refusals,
        only the words differ."""
        if self.reserved is None:
            return err
        prefix = f"Invalid {self.kind}: "
        detail = err.message[len(prefix) :] if err.message.startswith(prefix) else ""
        if detail.startswith("Syntax error;"):
            return err
        if self.grammar_words == KEYWORDS and detail.startswith(_CONDITION_FIRST):
            return err
        return self._reserved_error(self.reserved)

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
                if len(text) > 9 and int(text) > MAX_LIST_INDEX:
                    raise validation(
                        f"Invalid {self.kind}: List index is not within the allowable "
                        f"range; index: [{text}]"
                    )
                elements.append(int(text))
                self.expect("]")
            else:
                if len(elements) > MAX_PATH_DEPTH:
                    raise validation(
                        f"Invalid {self.kind}: The document path has too many nesting "
                        f"levels; nesting levels: {len(elements)}"
                    )
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
        if kind == "word" and text.upper() not in self.grammar_words:
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
        if token == ("op", "("):
            # [AWS] an operand may be parenthesised: `a < (b)`, `size((l))`.
            self.next()
            inner = self.operand()
            self.expect(")")
            return inner
        if token[0] == "value":
            return ("value", self.value_ref())
        if token[0] == "word" and token[1] == "size" and self.peek(1) == ("op", "("):
            self.next()
            (target,) = self._arguments("size", 1)
            if target[0] == "value" and kind_of(target[1]) not in SIZED_TYPES:
                raise self._operand_type("size", kind_of(target[1]))
            if target[0] == "size":  # size(size(a)): a number has no size
                raise self._operand_type("size", "N")
            return ("size", target)
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
            left = ("or", self._condition_only(left), self._condition_only(self._and()))
        return left

    def _and(self) -> Node:
        left = self._not()
        while self.at_word("AND"):
            self.next()
            left = ("and", self._condition_only(left), self._condition_only(self._not()))
        return left

    def _not(self) -> Node:
        if self.at_word("NOT"):
            self.next()
            return ("not", self._condition_only(self._not()))
        return self._primary()

    def _condition_only(self, node: Node) -> Node:
        """A parenthesised operand (what `_primary` returns for `(size(l))`) may only be
        compared, never combined with AND, OR or NOT."""
        if node[0] in OPERAND_KINDS:
            raise self.error()
        return node

    def _primary(self) -> Node:
        if self.at_op("("):
            # A parenthesised condition, `(a = :v OR b = :w)`, or a parenthesised operand
            # that a comparison follows, `(size(l)) = :one`: told apart without going back
            # (a nesting of n parentheses is parsed once, not 2^n times).
            self.next()
            self.parens += 1
            try:
                inner = self.condition()
            finally:
                self.parens -= 1
            self.expect(")")
            if inner[0] in OPERAND_KINDS:
                if self.parens and self.at_op(")"):
                    return inner  # `((operand))`: still the operand
                return self._compared(inner)
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
        if self.parens and self.at_op(")"):
            return left  # `(operand)`: the caller compares it
        return self._compared(left)

    def _compared(self, left: Node) -> Node:
        """What follows an operand in a condition: BETWEEN, IN or a comparison."""
        if self.at_word("BETWEEN"):
            self.next()
            low = self.operand()
            if not self.at_word("AND"):
                raise self.error()
            self.next()
            high = self.operand()
            self._orderable("BETWEEN", (left, low, high))
            if low[0] == "value" and high[0] == "value":
                self._bounds(low[1], high[1])
            return ("between", left, low, high)
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
        right = self.operand()
        if token[1] not in ("=", "<>"):
            self._orderable(token[1], (left, right))
        return ("cmp", token[1], left, right)

    def _orderable(self, op: str, operands: tuple[Node, ...]) -> None:
        """A constant compared by order must be a string, number or binary: anything
        else is the request's mistake (a ValidationException), not a false condition."""
        for operand in operands:
            if operand[0] == "value" and kind_of(operand[1]) not in ("S", "N", "B"):
                raise self._operand_type(op, kind_of(operand[1]))

    def _bounds(self, low: AttributeValue, high: AttributeValue) -> None:
        """BETWEEN's constant bounds: of one type, in order (the request's mistake
        otherwise, not a false condition)."""
        if kind_of(low) != kind_of(high):
            raise validation(
                f"Invalid {self.kind}: The BETWEEN operator requires same data type for "
                f"lower and upper bounds; lower bound operand: AttributeValue: {low}, "
                f"upper bound operand: AttributeValue: {high}"
            )
        if canonical(low) != canonical(high) and typed(low) > typed(high):
            raise validation(
                f"Invalid {self.kind}: The BETWEEN operator requires upper bound to be "
                f"greater than or equal to lower bound; lower bound operand: AttributeValue: "
                f"{low}, upper bound operand: AttributeValue: {high}"
            )

    def _operand_type(self, op: str, kind: str) -> DynamoError:
        return validation(
            f"Invalid {self.kind}: Incorrect operand type for operator or function; "
            f"operator or function: {op}, operand type: {kind}"
        )

    def _arguments(self, name: str, count: int) -> list[Node]:
        """A function call's operands (the name read already), `count` of them."""
        self.expect("(")
        args = [self.operand()]
        while self.at_op(","):
            self.next()
            args.append(self.operand())
        self.expect(")")
        if len(args) != count:
            raise validation(
                f"Invalid {self.kind}: Incorrect number of operands for operator or "
                f"function; operator or function: {name}, number of operands: {len(args)}"
            )
        return args

    def _function(self, name: str) -> Node:
        self.next()
        if name in ("attribute_exists", "attribute_not_exists"):
            (target,) = self._arguments(name, 1)
            if target[0] != "path":
                raise validation(
                    f"Invalid {self.kind}: Operator or function requires a document path; "
                    f"operator or function: {name}"
                )
            return ("fn", name, target, None)
        # DynamoDB takes any operand first (a path, or a constant: begins_with(:s, a)).
        target, arg = self._arguments(name, 2)
        if name == "contains" and target[0] == "path" and target == arg:
            raise validation(
                f"Invalid {self.kind}: The first operand must be distinct from the "
                "remaining operands for this operator or function; operator: contains, "
                f"first operand: [{show_path(target[1])}]"
            )
        if name == "begins_with":
            for operand in (target, arg):
                if operand[0] == "value" and kind_of(operand[1]) not in ("S", "B"):
                    raise self._operand_type(name, kind_of(operand[1]))
        if name == "attribute_type" and arg[0] != "value":
            raise validation(
                f"Invalid {self.kind}: Incorrect operand type for operator or function; "
                "operator or function: attribute_type, operand type: the type must be an "
                "expression attribute value"
            )
        if name == "attribute_type" and arg[0] == "value":
            # An unknown type name is the request's mistake whatever the item holds:
            # refused before anything is read, as DynamoDB refuses it.
            kind = kind_of(arg[1])
            if kind != "S":
                raise validation(
                    f"Invalid {self.kind}: Incorrect operand type for operator or function; "
                    f"operator or function: attribute_type, operand type: {kind}"
                )
            if arg[1]["S"] not in ATTRIBUTE_TYPES:
                raise validation(
                    f"Invalid {self.kind}: Invalid attribute type name found; type: "
                    f"{arg[1]['S']}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
                )
        return ("fn", name, target, arg)

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
            if left[0] in _ARITHMETIC:
                # [AWS] a parenthesised sum is a whole value, not an operand of another:
                # `SET x = (a + b) + c` is refused (dynalite's update grammar, tested on AWS).
                raise self.error()
            op = self.next()[1]
            right = self._set_operand()
            if right[0] in _ARITHMETIC:
                raise self.error(("op", "+" if right[0] == "plus" else "-"))
            return ("plus" if op == "+" else "minus", left, right)
        return left

    def _set_operand(self) -> Node:
        token = self.peek()
        if token == ("op", "("):
            # [AWS] a parenthesised operand of SET, or a parenthesised sum as the whole
            # value: `SET x = (x) + (l[0])`, `SET b.c = (c[1] + b.a)` (DynamoDB takes both:
            # dynalite's update grammar, SetValueParens and OperandParens, tested on AWS).
            self.next()
            inner = self._set_value()
            self.expect(")")
            return inner
        if token is not None and token[0] == "word" and self.peek(1) == ("op", "("):
            name = token[1]
            self.next()
            self.next()
            if name == "if_not_exists":
                path = self.path()
                self.expect(",")
                default = self._argument()
                self.expect(")")
                return ("if_not_exists", path, default)
            if name == "list_append":
                first = self._argument()
                self.expect(",")
                second = self._argument()
                self.expect(")")
                if first[0] == "list_append" or second[0] == "list_append":
                    # DynamoDB parses list_append(list_append(..)) and then refuses it
                    # (list_append(if_not_exists(..), ..) is allowed).
                    raise validation(
                        f"Invalid {self.kind}: The function is not allowed to be used this "
                        "way in an expression; function: list_append"
                    )
                return ("list_append", first, second)
            raise validation(f"Invalid {self.kind}: Invalid function name; function: {name}")
        return self.operand()

    def _argument(self) -> Node:
        """A function's argument in SET: an operand, parenthesised or not, never a sum."""
        arg = self._set_operand()
        if arg[0] in _ARITHMETIC:
            raise self.error(("op", "+" if arg[0] == "plus" else "-"))
        return arg


_ARITHMETIC: Final = ("plus", "minus")


def _grammar_words(kind: str) -> tuple[str, ...]:
    """The words of `kind`'s grammar, which are never an attribute name there (dynalite's
    grammars, written against AWS, keep these and only these out of a name's place; any
    other word, a reserved one included, reads as a name: `REMOVE a, and` names `and`)."""
    if kind == "UpdateExpression":
        return UPDATE_CLAUSES
    if kind == "ProjectionExpression":
        return ()
    return KEYWORDS


_CONDITION_FIRST = (
    "Invalid function name;",
    "The function is not allowed to be used this way in an expression;",
)
"""What a condition reports ahead of a reserved word (the text after "Invalid <kind>: ")."""


def parse_condition(text: str, ph: Placeholders, kind: str = "ConditionExpression") -> Node:
    parser = _Parser(text, kind, ph)
    try:
        try:
            node = parser.condition()
        except RecursionError:
            # Parentheses nested past Python's stack: the request's mistake, named as one.
            raise validation(f"Invalid {kind}: The expression is nested too deeply") from None
        parser.done()
    except DynamoError as err:
        raise parser.ranked(err) from None
    parser.check_reserved()
    return node


def parse_update(text: str, ph: Placeholders) -> list[Node]:
    parser = _Parser(text, "UpdateExpression", ph)
    try:
        actions = parser.update()
    except DynamoError as err:
        raise parser.ranked(err) from None
    parser.check_reserved()
    check_distinct_paths([a[1] for a in actions], "UpdateExpression")
    return actions


def parse_projection(text: str, ph: Placeholders) -> list[Path]:
    parser = _Parser(text, "ProjectionExpression", ph)
    try:
        paths = [parser.path()]
        while parser.at_op(","):
            parser.next()
            paths.append(parser.path())
        parser.done()
    except DynamoError as err:
        raise parser.ranked(err) from None
    parser.check_reserved()
    check_distinct_paths(paths, "ProjectionExpression")
    return paths


def check_distinct_paths(paths: list[Path], kind: str) -> None:
    """DynamoDB refuses two paths of one expression where one contains the other
    (`a, a.b`: they overlap) or where they treat one element as a map and a list
    (`a.b, a[0]`: they conflict)."""
    for i, path in enumerate(paths):
        for other in paths[:i]:
            for x, y in zip(other, path, strict=False):
                if x == y and type(x) is type(y):
                    continue
                if isinstance(x, int) != isinstance(y, int):
                    raise _two_paths("conflict", kind, other, path)
                break
            else:
                raise _two_paths("overlap", kind, other, path)


def _two_paths(how: str, kind: str, one: Path, two: Path) -> DynamoError:
    return validation(
        f"Invalid {kind}: Two document paths {how} with each other; must remove or "
        f"rewrite one of these paths; path one: [{show_path(one)}], path two: "
        f"[{show_path(two)}]"
    )


def show_path(path: Path) -> str:
    """A path as DynamoDB shows it in a message: `a, b, [0]`."""
    return ", ".join(f"[{e}]" if isinstance(e, int) else e for e in path)


@dataclass(frozen=True)
class KeyCondition:
    """A Query's key condition: the partition key value and an optional sort-key test
    (for a multi-attribute key: the value of each partition-key attribute, in key-schema
    order, and the sort-key attributes' tests ANDed)."""

    pk_name: str
    pk_value: AttributeValue
    sk_test: Node | None
    pk_values: tuple[AttributeValue, ...] = ()


_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>"}


MAX_KEY_CONDITIONS: Final = 8
"""[AWS] a Query of a GSI with a multi-attribute key names up to four partition-key and
four sort-key attributes; a table's or single-attribute index's key, two."""


def check_key_shape(node: Node, most: int = 2) -> None:
    """A parsed KeyConditionExpression checked for what a key condition may be, before
    the table is looked up (so without its key schema), as DynamoDB checks it: only
    ANDs of conditions, each naming one top-level attribute (its first operand in a
    BETWEEN or begins_with) and no attribute twice, at most `most` of them (two on a table:
    only a Query of an index, whose key may have several attributes, may name up to eight;
    its schema settles the rest, `key_condition`). The checks and
    their order are DynamoDB's as dynalite's tests, run against AWS, record them (a
    missing table is reported only after these: test/query.js "should return
    ValidationException for nested operations" and the ones around it)."""
    named: list[str] = []
    _check_key_part(node, named)
    if len(named) > most:
        raise validation(TWO_CONDITIONS)


def _check_key_part(node: Node, named: list[str]) -> None:
    kind = node[0]
    if kind in ("or", "not", "in"):
        raise validation(f"Invalid operator used in KeyConditionExpression: {kind.upper()}")
    if kind == "cmp" and node[1] == "<>":
        raise validation("Invalid operator used in KeyConditionExpression: <>")
    if kind == "fn" and node[1] != "begins_with":
        raise validation(f"Invalid operator used in KeyConditionExpression: {node[1]}")
    if kind == "size":
        raise validation("KeyConditionExpressions cannot contain nested operations")
    if kind in ("between", "fn"):
        first = node[1] if kind == "between" else node[2]
        if first[0] != "path":
            word = "BETWEEN" if kind == "between" else node[1]
            raise validation(
                f"Invalid condition in KeyConditionExpression: {word} operator must have "
                "the key attribute as its first operand"
            )
    if kind == "and":
        _check_key_part(node[1], named)
        _check_key_part(node[2], named)
        return
    operands = node[2:] if kind in ("cmp", "fn") else node[1:]
    attr: str | int | None = None
    for operand in operands:
        if operand is None or operand[0] == "value":
            continue
        if operand[0] == "path":
            if attr is not None:
                raise validation(
                    "Invalid condition in KeyConditionExpression: Multiple attribute names "
                    "used in one condition"
                )
            if len(operand[1]) > 1:
                raise validation(
                    "KeyConditionExpressions cannot have conditions on nested attributes"
                )
            attr = operand[1][0]
        else:
            _check_key_part(operand, named)
    if attr is None:
        raise validation("Invalid condition in KeyConditionExpression: No key attribute specified")
    if attr in named:
        raise validation("KeyConditionExpressions must only contain one condition per key")
    named.append(str(attr))


def key_condition(node: Node, schema: KeySchema) -> KeyCondition:
    """A parsed key condition (from a KeyConditionExpression, or built from a legacy
    KeyConditions) checked against the key schema of the table or index queried: only
    `pk = :v [AND <sort-key condition>]` is valid [AWS Query.KeyConditionExpression]; the
    refusals are DynamoDB's (its condition parser parses more than a key condition
    takes, and names what it refuses)."""
    if schema.composite:
        return _multi_key_condition(node, schema)
    pk, sk = schema.pk, schema.sk
    pk_value: AttributeValue | None = None
    sk_test: Node | None = None
    parts = _and_parts(node)
    if len(parts) > 2:
        raise validation(TWO_CONDITIONS)
    for raw in parts:
        part, attr = _key_part(raw)
        if attr is not None and (
            (attr == pk.name and pk_value is not None)
            or (sk is not None and attr == sk.name and sk_test is not None)
        ):
            raise validation("KeyConditionExpressions must only contain one condition per key")
        if attr == pk.name and part[0] == "cmp" and part[1] == "=":
            pk_value = part[3][1]
            _check_key_type(pk_value, pk.type)
        elif sk is not None and attr == sk.name and _valid_sk_test(part):
            for operand in part[2:]:
                if isinstance(operand, tuple) and operand and operand[0] == "value":
                    _check_key_type(operand[1], sk.type)
            if part[0] == "fn" and sk.type == "N":
                raise validation(
                    "Invalid KeyConditionExpression: Incorrect operand type for operator or "
                    "function; operator or function: begins_with, operand type: N"
                )
            sk_test = part
        else:
            raise validation(
                "Query condition missed key schema element"
                if attr not in schema.names
                else "Query key condition not supported"
            )
    if pk_value is None:
        raise validation(f"Query condition missed key schema element: {pk.name}")
    return KeyCondition(pk.name, pk_value, sk_test, (pk_value,))


TWO_CONDITIONS: Final = "Conditions can be of length 1 or 2 only"


def _key_part(part: Node) -> tuple[Node, str | int | None]:
    """One ANDed part of a key condition, its operands in key-test order (`:v = k` is
    `k = :v`), refused if its operator can never test a key; and the attribute it tests."""
    if part[0] == "cmp" and part[2][0] == "value" and part[3][0] == "path":
        # `:v = pk` is `pk = :v`: DynamoDB takes the operands in either order.
        part = ("cmp", _FLIPPED[part[1]], part[3], part[2])
    refused = (
        "IN"
        if part[0] == "in"
        else "<>"
        if part[0] == "cmp" and part[1] == "<>"
        else part[1]
        if part[0] == "fn" and part[1] != "begins_with"
        else None
    )
    if refused is not None:
        raise validation(f"Invalid operator used in KeyConditionExpression: {refused}")
    path = _key_path(part)
    if path is not None and len(path) > 1:
        raise validation("KeyConditionExpressions cannot have conditions on nested attributes")
    return part, (path[0] if path is not None else None)


def _multi_key_condition(node: Node, schema: KeySchema) -> KeyCondition:
    """The key condition of a Query of a GSI with a multi-attribute key, as DynamoDB
    documents it: an equality on every partition-key attribute, and conditions on the
    sort-key attributes from the left, each but the last an equality
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html;
    the refusals of the single-attribute rule where one applies, and for a sort-key
    attribute skipped or tested by a range before another, the words moto records,
    moto/dynamodb/parsing/key_condition_expression.py validate_schema)."""
    tests: dict[str | int | None, Node] = {}
    for raw in _and_parts(node):
        part, attr = _key_part(raw)
        if attr in tests:
            raise validation("KeyConditionExpressions must only contain one condition per key")
        if attr not in schema.names:
            raise validation("Query condition missed key schema element")
        tests[attr] = part
    values: list[AttributeValue] = []
    for key in schema.hash_keys:
        equal = tests.get(key.name)
        if equal is None:
            raise validation(f"Query condition missed key schema element: {key.name}")
        if equal[0] != "cmp" or equal[1] != "=":
            raise validation("Query key condition not supported")
        _check_key_type(equal[3][1], key.type)
        values.append(equal[3][1])
    given = [k for k in schema.range_keys if k.name in tests]
    sk_test: Node | None = None
    for number, key in enumerate(schema.range_keys[: len(given)]):
        if key is not given[number] or (
            number < len(given) - 1 and tests[key.name][:2] != ("cmp", "=")
        ):
            later = given[number + 1] if key is given[number] else given[number]
            raise validation(
                f"RANGE key attributes {key.name} must have equality conditions specified in "
                f"the query because a condition is present on key attribute {later.name}"
            )
        part = tests[key.name]
        if not _valid_sk_test(part):
            raise validation("Query key condition not supported")
        for operand in part[2:]:
            if isinstance(operand, tuple) and operand and operand[0] == "value":
                _check_key_type(operand[1], key.type)
        if part[0] == "fn" and key.type == "N":
            raise validation(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or "
                "function; operator or function: begins_with, operand type: N"
            )
        sk_test = part if sk_test is None else ("and", sk_test, part)
    return KeyCondition(schema.pk.name, values[0], sk_test, tuple(values))


def _and_parts(node: Node) -> list[Node]:
    """The conditions a key condition ANDs together (OR and NOT are refused)."""
    if node[0] == "and":
        return [*_and_parts(node[1]), *_and_parts(node[2])]
    if node[0] in ("or", "not"):
        raise validation(f"Invalid operator used in KeyConditionExpression: {node[0].upper()}")
    return [node]


def _check_key_type(value: AttributeValue, wanted: str) -> None:
    if kind_of(value) != wanted:
        raise validation(
            "One or more parameter values were invalid: Condition parameter type "
            "does not match schema type"
        )


def _key_path(node: Node) -> Path | None:
    """The document path a key-condition part tests (None: not a key test's shape)."""
    if node[0] == "cmp" and node[2][0] == "path" and node[3][0] == "value":
        path: Path = node[2][1]
        return path
    if node[0] == "between" and node[1][0] == "path":
        path = node[1][1]
        return path
    if node[0] == "fn" and node[1] == "begins_with" and node[2][0] == "path":
        path = node[2][1]
        return path
    return None


def _valid_sk_test(node: Node) -> bool:
    if node[0] == "cmp":
        return bool(node[1] != "<>")
    if node[0] == "between":
        return node[2][0] == "value" and node[3][0] == "value"
    return node[0] == "fn" and node[1] == "begins_with" and node[3][0] == "value"
