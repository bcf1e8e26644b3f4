"""PartiQL statements, as DynamoDB's dialect writes them, translated into the requests of
the operations that already exist (Query, Scan, PutItem, UpdateItem, DeleteItem and the
transaction actions), so a statement runs through the same validation, expression engine
and charges as the request it stands for
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html).

A small parser of our own, on purpose: the one maintained Python PartiQL library for
DynamoDB (py-partiql-parser, moto's) evaluates statements over its own copy of the data
rather than giving a tree, so it could not hand the WHERE clause to this emulator's
expression engine nor its reads to the capacity model. Here a WHERE clause, a SET
assignment and a REMOVE path are rewritten token by token into DynamoDB's expression
syntax (names and values become #placeholders and :placeholders) and parsed by
`expr_parse`, the parser every other request uses.

Forms: SELECT list|* FROM "table"[."index"] [WHERE ...] [ORDER BY key [ASC|DESC], ...];
INSERT INTO "table" VALUE {...}; UPDATE "table" SET path = value [, ...] [SET ...]
[REMOVE path [, ...]] WHERE key...; DELETE FROM "table" WHERE key...;
EXISTS(SELECT ... FROM "table" WHERE key... AND condition) in a transaction; values are
'strings', numbers, TRUE/FALSE, NULL, [lists], {'maps': ...}, <<sets>> and ? parameters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from emulator.server.protocol import DynamoError, validation
from emulator.server.values import AttributeValue, check_value

_TOKEN: Final = re.compile(
    r"""\s*(?:
      (?P<str>'(?:[^']|'')*')
    | (?P<qid>"(?:[^"]|"")*")
    | (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)
    | (?P<op><<|>>|<=|>=|<>|!=|=|<|>|\(|\)|\[|\]|\{|\}|,|\.|:|\+|-|\?|\*)
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)
KEYWORDS: Final = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN"})
FUNCTIONS: Final = frozenset(
    {
        "begins_with",
        "contains",
        "size",
        "attribute_type",
        "attribute_exists",
        "attribute_not_exists",
        "if_not_exists",
        "list_append",
    }
)


@dataclass(frozen=True)
class Token:
    kind: str  # str qid num op word param
    text: str

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words


def malformed(detail: str) -> DynamoError:
    """DynamoDB's refusal of a statement it cannot parse."""
    return validation(f"Statement wasn't well formed, can't be processed: {detail}")


def tokenize(text: str, parameters: int) -> list[Token]:
    """The tokens of a statement; each ? becomes a "param" token holding its number, and
    their count must be the request's number of Parameters."""
    out: list[Token] = []
    pos = 0
    text = text.rstrip().rstrip(";")
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            if text[pos:].strip() == "":
                break
            raise malformed(f"Unexpected character at {text[pos : pos + 20]!r}")
        kind = match.lastgroup
        assert kind is not None
        if match.group(kind) == "?":
            out.append(Token("param", str(sum(1 for t in out if t.kind == "param"))))
        else:
            out.append(Token(kind, match.group(kind)))
        pos = match.end()
    if sum(1 for t in out if t.kind == "param") != parameters:
        raise validation("Number of parameters in request and statement don't match.")
    return out


@dataclass
class Translation:
    """Expression text in DynamoDB's syntax with its placeholders, built across the parts
    of one statement (so the parts share their #names and :values)."""

    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, AttributeValue] = field(default_factory=dict)
    parameters: list[AttributeValue] = field(default_factory=list)

    def name(self, attribute: str) -> str:
        for key, value in self.names.items():
            if value == attribute:
                return key
        key = f"#n{len(self.names)}"
        self.names[key] = attribute
        return key

    def value(self, value: AttributeValue) -> str:
        key = f":v{len(self.values)}"
        self.values[key] = value
        return key

    def parameter(self, number: int) -> AttributeValue:
        return self.parameters[number]

    def placeholders(self, req: dict[str, Any]) -> dict[str, Any]:
        """`req` with ExpressionAttributeNames/Values, when there are any."""
        if self.names:
            req["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            req["ExpressionAttributeValues"] = dict(self.values)
        return req


def identifier(token: Token) -> str:
    if token.kind == "qid":
        return token.text[1:-1].replace('""', '"')
    if token.kind == "word":
        return token.text
    raise malformed(f"Expected an identifier, found {token.text!r}")


def _number(text: str) -> AttributeValue:
    return {"N": text}


def parse_value(tokens: list[Token], i: int, tr: Translation) -> tuple[AttributeValue, int]:
    """A literal value at tokens[i]: (its AttributeValue, the index after it)."""
    if i >= len(tokens):
        raise malformed("Expected a value at the end of the statement")
    tok = tokens[i]
    if tok.kind == "str":
        return {"S": tok.text[1:-1].replace("''", "'")}, i + 1
    if tok.kind == "num":
        return _number(tok.text), i + 1
    if tok.text == "-" and i + 1 < len(tokens) and tokens[i + 1].kind == "num":
        return _number("-" + tokens[i + 1].text), i + 2
    if tok.kind == "param":
        return tr.parameter(int(tok.text)), i + 1
    if tok.is_word("TRUE", "FALSE"):
        return {"BOOL": tok.text.upper() == "TRUE"}, i + 1
    if tok.is_word("NULL"):
        return {"NULL": True}, i + 1
    if tok.text == "[":
        items, i = _sequence(tokens, i + 1, "]", tr)
        return {"L": items}, i
    if tok.text == "<<":
        items, i = _sequence(tokens, i + 1, ">>", tr)
        return _set(items), i
    if tok.text == "{":
        out: dict[str, AttributeValue] = {}
        i += 1
        while i < len(tokens) and tokens[i].text != "}":
            key_tok = tokens[i]
            if key_tok.kind not in ("str", "qid"):
                raise malformed(f"Expected a quoted attribute name, found {key_tok.text!r}")
            key = key_tok.text[1:-1]
            if i + 1 >= len(tokens) or tokens[i + 1].text != ":":
                raise malformed(f"Expected ':' after {key_tok.text}")
            out[key], i = parse_value(tokens, i + 2, tr)
            if i < len(tokens) and tokens[i].text == ",":
                i += 1
        if i >= len(tokens):
            raise malformed("Unclosed '{'")
        return {"M": out}, i + 1
    raise malformed(f"Expected a value, found {tok.text!r}")


def _sequence(
    tokens: list[Token], i: int, close: str, tr: Translation
) -> tuple[list[AttributeValue], int]:
    items: list[AttributeValue] = []
    while i < len(tokens) and tokens[i].text != close:
        value, i = parse_value(tokens, i, tr)
        items.append(value)
        if i < len(tokens) and tokens[i].text == ",":
            i += 1
    if i >= len(tokens):
        raise malformed(f"Expected {close!r}")
    return items, i + 1


def _set(items: list[AttributeValue]) -> AttributeValue:
    kinds = {next(iter(v)) for v in items}
    if len(kinds) != 1 or next(iter(kinds)) not in ("S", "N", "B"):
        raise validation("A set must hold strings, numbers or binaries of one type")
    kind = next(iter(kinds))
    return {kind + "S": [v[kind] for v in items]}


def _path(tokens: list[Token], i: int, tr: Translation) -> tuple[str, int]:
    """A document path at tokens[i] in expression syntax (#n0.#n1[2])."""
    out = tr.name(identifier(tokens[i]))
    i += 1
    while i < len(tokens):
        if tokens[i].text == "." and i + 1 < len(tokens) and tokens[i + 1].kind in ("word", "qid"):
            out += "." + tr.name(identifier(tokens[i + 1]))
            i += 2
        elif tokens[i].text == "[" and i + 2 < len(tokens) and tokens[i + 1].kind == "num":
            if tokens[i + 2].text != "]":
                raise malformed("Expected ']'")
            out += f"[{tokens[i + 1].text}]"
            i += 3
        else:
            break
    return out, i


def expression(tokens: list[Token], tr: Translation) -> str:
    """A WHERE clause or the right-hand side of a SET, in DynamoDB's expression syntax."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.kind == "word" and tok.text.upper() in KEYWORDS:
            word = tok.text.upper()
            if word == "IN" and nxt is not None and nxt.text == "[":
                items, i = _sequence(tokens, i + 2, "]", tr)
                out.append("IN (" + ", ".join(tr.value(v) for v in items) + ")")
                continue
            out.append(word)
            i += 1
        elif tok.kind == "word" and nxt is not None and nxt.text == "(":
            if tok.text.lower() not in FUNCTIONS:
                raise malformed(f"Unsupported function {tok.text}")
            out.append(tok.text.lower())
            i += 1
        elif tok.kind in ("word", "qid") and not tok.is_word("TRUE", "FALSE", "NULL"):
            path, i = _path(tokens, i, tr)
            if i < len(tokens) and tokens[i].is_word("IS"):
                negated = i + 1 < len(tokens) and tokens[i + 1].is_word("NOT")
                what = tokens[i + 2 if negated else i + 1] if i + 1 < len(tokens) else None
                if what is None or not what.is_word("MISSING", "NULL"):
                    raise malformed("Expected MISSING or NULL after IS")
                if what.is_word("MISSING"):
                    fn = "attribute_exists" if negated else "attribute_not_exists"
                    out.append(f"{fn}({path})")
                else:
                    test = f"attribute_type({path}, {tr.value({'S': 'NULL'})})"
                    out.append(f"(NOT {test})" if negated else test)
                i += 3 if negated else 2
                continue
            out.append(path)
        elif tok.text == "!=":
            out.append("<>")
            i += 1
        elif tok.kind == "op" and tok.text in ("=", "<>", "<", "<=", ">", ">=", "(", ")", ",", "+"):
            out.append(tok.text)
            i += 1
        elif tok.text == "-" and not (
            nxt is not None and nxt.kind == "num" and _after_operator(out)
        ):
            out.append("-")
            i += 1
        else:
            value, i = parse_value(tokens, i, tr)
            out.append(tr.value(value))
    return " ".join(out)


def _after_operator(out: list[str]) -> bool:
    """Whether a '-' here starts a negative number (nothing, an operator or a keyword
    before it) rather than subtracting."""
    return (
        not out
        or out[-1] in ("=", "<>", "<", "<=", ">", ">=", "(", ",", "+", "-")
        or (out[-1] in KEYWORDS)
    )


OPENERS: Final = frozenset({"(", "[", "{", "<<"})
CLOSERS: Final = frozenset({")", "]", "}", ">>"})


def with_depth(tokens: list[Token]) -> Iterator[tuple[Token, bool]]:
    """Each token and whether it stands outside every bracket (a closing bracket that
    ends the outermost one counts as outside): what every top-level split looks at."""
    depth = 0
    for tok in tokens:
        if tok.text in OPENERS:
            depth += 1
        elif tok.text in CLOSERS:
            depth -= 1
        yield tok, depth == 0


def conjuncts(tokens: list[Token]) -> list[list[Token]]:
    """A WHERE clause split at its top-level ANDs (BETWEEN's own AND kept)."""
    parts: list[list[Token]] = [[]]
    between = False
    for tok, top in with_depth(tokens):
        if top and tok.is_word("BETWEEN"):
            between = True
        elif top and tok.is_word("AND"):
            if between:
                between = False
            else:
                parts.append([])
                continue
        parts[-1].append(tok)
    if any(not p for p in parts):
        raise malformed("Empty condition around AND")
    return parts


def equality(part: list[Token], tr: Translation) -> tuple[str, AttributeValue] | None:
    """(attribute, value) when a conjunct is `attribute = literal` (either way round)."""
    if len(part) < 3 or part[1].text != "=":
        if len(part) >= 3 and part[-2].text == "=" and part[-1].kind in ("word", "qid"):
            value, end = parse_value(part, 0, tr)
            if end == len(part) - 2:
                return identifier(part[-1]), value
        return None
    if part[0].kind not in ("word", "qid"):
        return None
    value, end = parse_value(part, 2, tr)
    if end != len(part):
        return None
    return identifier(part[0]), value


def membership(part: list[Token], tr: Translation) -> tuple[str, list[AttributeValue]] | None:
    """(attribute, its values) when a conjunct is `attribute IN [literal, ...]`: the form
    in which a SELECT names several partition-key values."""
    if (
        len(part) < 4
        or part[0].kind not in ("word", "qid")
        or not part[1].is_word("IN")
        or part[2].text != "["
    ):
        return None
    values, end = _sequence(part, 3, "]", tr)
    if end != len(part):
        return None
    return identifier(part[0]), values


def check_values(values: dict[str, AttributeValue]) -> None:
    for value in values.values():
        check_value(value)
