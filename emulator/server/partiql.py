"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: each statement is
translated (`partiql_parse`) into the request of the operation it stands for, and that
operation runs it: a SELECT with an equality on the partition key is a Query (the rest of
its WHERE the filter, its ORDER BY the Query's ScanIndexForward), one with `pk IN [...]`
a Query of each value, any other SELECT a Scan;
INSERT a PutItem that must not find the item; UPDATE an UpdateItem and DELETE a DeleteItem
of the one item the WHERE names; EXISTS(SELECT ...), in a transaction only, a
ConditionCheck of that item.
Validation, the expression engine, capacity and ReturnConsumedCapacity are those of the
operation, so a statement costs what its request costs
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from emulator.server import query_scan, single_item, transactions
from emulator.server.emulator_state import EmulatorState
from emulator.server.items import KeyDef, KeySchema, sort_value
from emulator.server.partiql_parse import (
    Token,
    Translation,
    conjuncts,
    equality,
    expression,
    identifier,
    malformed,
    membership,
    parse_value,
    tokenize,
    with_depth,
)
from emulator.server.protocol import DynamoError, member, validation
from emulator.server.table import Table
from emulator.server.values import AttributeValue, check_value

ERROR_CODES: Final = {
    "ConditionalCheckFailedException": "ConditionalCheckFailed",
    "DuplicateItemException": "DuplicateItem",
    "ValidationException": "ValidationError",
    "ResourceNotFoundException": "ResourceNotFound",
    "ThrottlingException": "ThrottlingError",
    "ProvisionedThroughputExceededException": "ProvisionedThroughputExceeded",
    "TransactionConflictException": "TransactionConflict",
    "ItemCollectionSizeLimitExceededException": "ItemCollectionSizeLimitExceeded",
}
"""An operation's exception as a BatchStatementError code (BatchStatementErrorCodeEnum)."""
EXISTS_OUTSIDE_TRANSACTION: Final = "EXISTS can only be used in ExecuteTransaction write requests."
EXISTS_NOT_ONE_ITEM: Final = "EXISTS() must contain a single item read with additional condition"
EXISTS_ON_INDEX: Final = "Operations on indices are not supported in transactions"
"""DynamoDB's refusals of an EXISTS, in the words of DynamoDB Local's PartiQL messages
(ddb.partiql.shared.exceptions.ValidationExceptionMessages, as decompiled in
github.com/eznix86/dynamodb-local-decompiled). floci-io/floci's PartiQL tests, checked on
DynamoDB, record the first two word for word; the third (an EXISTS on an index) is
DynamoDB Local's, not confirmed on DynamoDB (docs/emulator.md lists it so)."""
ORDER_BY_WITHOUT_WHERE: Final = (
    "Must have WHERE clause in the statement when using ORDER BY clause."
)
ORDER_BY_WITHOUT_PARTITION_KEY: Final = (
    "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY "
    "clause."
)
ORDER_BY_WITHOUT_HASH_KEY: Final = (
    "Must have hash key in ORDER BY clause when more than one hash key condition specified in "
    "WHERE clause."
)
"""DynamoDB's refusals of an ORDER BY that no Query serves (DynamoDB Local's words, which
floci-io/floci's tests record from DynamoDB)."""
MAX_PARTITIONS: Final = 50
"""[AWS] The partition-key values one IN may name: "at max 50 hash attribute values"
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-operators.html)."""
TOO_MANY_PARTITIONS: Final = "Too many decomposed read operations for a given query."
OVERLAPPING_PARTITIONS: Final = (
    "Overlapping conditions with range keys are not supported in where clause"
)
EMPTY_IN: Final = (
    "IN operator must have a left hand argument of type Variable Reference and right hand "
    "argument of type Seq with at least one member"
)
"""DynamoDB's refusals of a partition-key IN list: more than 50 values, and one value
twice (DynamoDB Local's OP_LIMIT_EXCEEDED and UNSUPPORTED_OVERLAP_CONDITION, which
floci-io/floci's DynamoDbPartiQLEdgeCaseIntegrationTest records from DynamoDB, eu-west-2,
2026-09-17: `pk IN [51 values]`, `pk IN ['ranges','ranges']`); an empty list is
DynamoDB Local's INVALID_IN_OPERATOR, not confirmed on DynamoDB."""
MIXED_TRANSACTION: Final = (
    "ExecuteTransaction API does not support both read and write operations in the same request."
)
TRANSACTION_READ_WITHOUT_KEY: Final = (
    "Select statements within ExecuteTransaction must specify the primary key in the where clause."
)
TRANSACTION_READ_ON_INDEX: Final = "Reads on indices are not supported within transactions."
TRANSACTION_RETURNING: Final = "RETURNING clause is not supported in ExecuteTransaction."
IN_STATEMENT: Final = "Validation failed in TransactStatements[{}]: {}"
"""ExecuteTransaction's refusals, in DynamoDB's words: a transaction of reads and writes
(DynamoDB Local's PARTIQL_TRANSACT_REQUEST_MIXED_OPERATION, in
com.amazonaws.services.dynamodbv2.local.shared.access.api.dp.ExecuteTransactionFunction
as decompiled in github.com/eznix86/dynamodb-local-decompiled, which floci-io/floci's
DynamoDbPartiQLDocumentedSyntaxIntegrationTest records from DynamoDB, eu-west-2,
2026-09-17); a read without the whole key, a read of an index and a write with RETURNING
(DynamoDB Local's INVALID_KEYS_FOR_TGI, INVALID_INDICES_FOR_TGI and
TransactionProcessor.RETURNING_NOT_SUPPORTED_TRANSACTIONS, each recorded from DynamoDB by
floci's DynamoDbPartiQLEdgeCaseIntegrationTest); and the prefix that names the statement
a validation error is in (DynamoDB Local's TransactionProcessor.VALIDATION_FAILED_TRANSACTIONS;
floci's tests record it from DynamoDB on EXISTS, INSERT and UPDATE errors, and
paritysuite/dynamodb-conformance's tests/tier3/error-messages/partiqlGrammar.test.ts, from
DynamoDB, eu-west-2, October 2026, on a statement that does not parse)."""
BATCH_READ_WITHOUT_KEY: Final = (
    "Select statements within BatchExecuteStatement must specify the primary key in the where "
    "clause."
)
"""BatchExecuteStatement's refusal of a read that is not one whole key, in DynamoDB's
words as floci-io/floci's DynamoDbPartiQLEdgeCaseIntegrationTest records them (eu-west-2,
2026-09-17; a key with a filter, or a key attribute named twice, is refused so)."""
WRITE_VERBS: Final = frozenset({"INSERT", "UPDATE", "DELETE", "EXISTS"})
TRANSACT_ACTIONS: Final = {
    "INSERT": "Put",
    "UPDATE": "Update",
    "DELETE": "Delete",
    "EXISTS": "ConditionCheck",
}
"""The TransactWriteItems action each write statement of ExecuteTransaction becomes."""
RETURNING: Final = {
    ("ALL", "OLD"): "ALL_OLD",
    ("ALL", "NEW"): "ALL_NEW",
    ("MODIFIED", "OLD"): "UPDATED_OLD",
    ("MODIFIED", "NEW"): "UPDATED_NEW",
}


@dataclass
class Statement:
    """One statement as the request of the operation that runs it."""

    kind: str
    """SELECT, INSERT, UPDATE, DELETE or EXISTS."""
    table: Table
    request: dict[str, Any]
    """The Query, Scan, PutItem, UpdateItem or DeleteItem request (an EXISTS: the body of
    its ConditionCheck)."""
    get: dict[str, Any] | None = None
    """A SELECT of one whole key: its GetItem request (batches and transactions read so)."""
    extra: dict[str, Any] = field(default_factory=dict)
    partitions: list[AttributeValue] = field(default_factory=list)
    """A SELECT of several partition-key values (`pk IN [...]`, operation "Queries"): the
    values, in the order they are read, each one the value of `partition_value`'s
    placeholder in its own Query."""
    partition_value: str = ""
    partition_key: str = ""
    """The partition key of the table or index those Queries read (NextToken's key names
    the value to resume at)."""


def _split(tokens: list[Token], words: tuple[str, ...]) -> list[tuple[str, list[Token]]]:
    """The clauses of a statement: (keyword, its tokens) at each top-level keyword."""
    out: list[tuple[str, list[Token]]] = []
    for tok, top in with_depth(tokens):
        if top and tok.kind == "word" and tok.text.upper() in words:
            out.append((tok.text.upper(), []))
            continue
        if not out:
            raise malformed(f"Unexpected {tok.text!r}")
        out[-1][1].append(tok)
    return out


def _once(split: list[tuple[str, list[Token]]]) -> dict[str, list[Token]]:
    """The clauses of a statement that takes each at most once (all but UPDATE, which may
    SET twice), by keyword: a second ORDER BY or WHERE is refused rather than read over
    the first."""
    clauses: dict[str, list[Token]] = {}
    for word, tokens in split:
        if word in clauses:
            raise malformed(f"{word} given twice")
        clauses[word] = tokens
    return clauses


def _table_of(state: EmulatorState, tokens: list[Token]) -> tuple[Table, str | None]:
    if not tokens:
        raise malformed("Expected a table name")
    table = state.table(identifier(tokens[0]))
    if len(tokens) == 1:
        return table, None
    if len(tokens) == 3 and tokens[1].text == ".":
        return table, identifier(tokens[2])
    raise malformed(f"Unexpected {tokens[1].text!r} after the table name")


def _where(
    table: Table,
    tokens: list[Token],
    tr: Translation,
    incomplete: str = "Where clause does not contain a mandatory equality on all key attributes",
) -> tuple[dict[str, Any], str | None]:
    """The key an UPDATE, DELETE or EXISTS names (an equality on every key attribute) and
    the condition the rest of its WHERE makes; `incomplete` is DynamoDB's refusal of a
    WHERE without the whole key, which it words per statement."""
    parts = conjuncts(tokens) if tokens else []
    key: dict[str, Any] = {}
    rest: list[str] = []
    for part in parts:
        found = equality(part, tr)
        if found is not None and found[0] in table.schema.names and found[0] not in key:
            key[found[0]] = found[1]
        else:
            rest.append("(" + expression(part, tr) + ")")
    if set(key) != set(table.schema.names):
        raise validation(incomplete)
    return key, " AND ".join(rest) or None


def _both(first: str, second: str | None) -> str:
    return first if second is None else f"{first} AND {second}"


def _existing(table: Table, condition: str | None, tr: Translation) -> str:
    """The ConditionExpression of a statement whose item must exist (an UPDATE, which is
    no upsert, and an EXISTS) and meet the rest of its WHERE."""
    return _both(f"attribute_exists({tr.name(table.schema.pk.name)})", condition)


def _select(state: EmulatorState, clauses: dict[str, list[Token]], tr: Translation) -> Statement:
    table, index = _table_of(state, clauses.get("FROM", []))
    projection = clauses["SELECT"]
    paths: list[str] = []
    if not (len(projection) == 1 and projection[0].text == "*"):
        part: list[Token] = []
        for tok in [*projection, Token("op", ",")]:
            if tok.text == ",":
                if not part:
                    raise malformed("Empty projection")
                paths.append(expression(part, tr))
                part = []
            else:
                part.append(tok)
    where = clauses.get("WHERE", [])
    parts = conjuncts(where) if where else []
    if index is not None:
        source = table.gsis.get(index) or table.lsis.get(index)
        if source is None:
            raise validation(f"The table does not have the specified index: {index}")
        schema = source.schema
    else:
        schema = table.schema
    key_part: list[Token] | None = None
    key_values: list[AttributeValue] | None = None
    sort_part: list[Token] | None = None
    rest: list[list[Token]] = []
    whole_key: dict[str, Any] = {}
    for part in parts:
        if schema.composite:
            # An index with a multi-attribute key is read by a Scan of it with the WHERE as
            # its filter: the same items, charged as a Scan (how DynamoDB plans a SELECT
            # on such an index is not documented).
            rest.append(part)
            continue
        probe = Translation(parameters=tr.parameters)
        found = equality(part, probe)
        keyed = key_part is not None or key_values is not None
        listed = membership(part, probe) if found is None and not keyed else None
        if found is not None and found[0] == schema.pk.name and not keyed:
            key_part = part
            whole_key[found[0]] = found[1]
        elif listed is not None and listed[0] == schema.pk.name:
            # [AWS] An IN on the partition key is not a Scan: "an equality or IN
            # condition with a partition key" keeps a SELECT off the full table
            # (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html);
            # DynamoDB reads it as one Query a value (floci-io/floci's PartiQL tests,
            # recorded on DynamoDB). One value is a plain equality.
            key_values = _partition_values(listed[1], schema.pk)
            if len(key_values) == 1:
                whole_key[schema.pk.name] = key_values[0]
        elif sort_part is None and schema.sk is not None and _on_sort_key(part, schema.sk.name):
            sort_part = part
            if found is not None:
                whole_key[found[0]] = found[1]
        else:
            rest.append(part)
    request: dict[str, Any] = {"TableName": table.name}
    if index is not None:
        request["IndexName"] = index
    if paths:
        request["ProjectionExpression"] = ", ".join(paths)
    if rest:
        request["FilterExpression"] = " AND ".join("(" + expression(p, tr) + ")" for p in rest)
    kind = "Scan"
    placeholder = ""
    if key_part is not None or key_values is not None:
        kind = "Query"
        if key_values is None:
            assert key_part is not None
            condition = expression(key_part, tr)
        else:
            placeholder = tr.value(key_values[0])
            condition = f"{tr.name(schema.pk.name)} = {placeholder}"
            if len(key_values) > 1:
                kind = "Queries"
        if sort_part is not None:
            condition += " AND " + expression(sort_part, tr)
        request["KeyConditionExpression"] = condition
    elif sort_part is not None:
        rest_text = request.get("FilterExpression")
        request["FilterExpression"] = _both("(" + expression(sort_part, tr) + ")", rest_text)
    order = clauses.get("ORDER")
    if order is not None:
        conditions = 0 if kind == "Scan" else 1 if key_values is None else len(key_values)
        upward, forward = _ordering(order, schema, where, conditions)
        if not forward:
            request["ScanIndexForward"] = False
        if key_values is not None:
            # [AWS] The partitions in the order of the partition key, each in the order
            # of the sort key: "pk IN ['o', 'p'] ORDER BY pk DESC, sk ASC" answers p/1,
            # p/2, p/3, o/1, o/2, o/3 (floci-io/floci, recorded on DynamoDB).
            key_values = sorted(key_values, key=sort_value, reverse=not upward)
    tr.placeholders(request)
    get = None
    if index is None and not rest and set(whole_key) == set(table.schema.names):
        get = {"TableName": table.name, "Key": whole_key}
        if paths:
            get["ProjectionExpression"] = request["ProjectionExpression"]
            get["ExpressionAttributeNames"] = {
                k: v for k, v in tr.names.items() if k in request["ProjectionExpression"]
            }
    statement = Statement("SELECT", table, request, get, {"operation": kind})
    if kind == "Queries" and key_values is not None:
        statement.partitions = key_values
        statement.partition_value = placeholder
        statement.partition_key = schema.pk.name
    return statement


def _partition_values(values: list[AttributeValue], key: KeyDef) -> list[AttributeValue]:
    """The values of a partition-key IN, checked as DynamoDB checks them before it reads
    (floci-io/floci's DynamoDbPartiQLKeyPlan, whose rules it records from DynamoDB):
    each a key value of the key's type, none twice, at most 50; their order kept."""
    if not values:
        raise validation(EMPTY_IN)
    seen: set[Any] = set()
    for value in values:
        kind = next(iter(value))
        if kind not in ("S", "N", "B"):
            raise validation(
                f"Key value must be of type S, N, or B. Key name: {key.name}, Key type: {kind}"
            )
        if kind != key.type:
            raise validation(
                "Key attribute's data type should match its data type in table's schema: "
                f"Key {key.name}"
            )
        ordered = sort_value(value)
        if ordered in seen:
            raise validation(OVERLAPPING_PARTITIONS)
        seen.add(ordered)
    if len(values) > MAX_PARTITIONS:
        raise validation(TOO_MANY_PARTITIONS)
    return values


def _ordering(
    order: list[Token], schema: KeySchema, where: list[Token], conditions: int
) -> tuple[bool, bool]:
    """What an ORDER BY asks: (the partitions in ascending partition-key order, the
    ScanIndexForward of each partition's Query). DynamoDB orders only what its Queries
    return, by the key of the table or index read
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html:
    "ORDER BY key [DESC|ASC] , ..."), so an ORDER BY of anything else, or on a SELECT
    that is a Scan, is refused, in the order DynamoDB checks (no WHERE, a term that is not
    a key attribute, no equality or IN on the partition key: `conditions` is the number
    of partition-key values the WHERE names, 0 for a Scan; several, and the partition key
    not ordered by)."""
    if not order or not order[0].is_word("BY"):
        raise malformed("Expected BY after ORDER")
    if not where:
        raise validation(ORDER_BY_WITHOUT_WHERE)
    ascending: dict[str, bool] = {}
    for term in _commas(order[1:]):
        if term[0].kind not in ("word", "qid") or not (
            len(term) == 1 or (len(term) == 2 and term[1].is_word("ASC", "DESC"))
        ):
            raise malformed("ORDER BY takes key attribute names, each with ASC or DESC")
        name = identifier(term[0])
        if name not in schema.names:
            # [AWS] The wording DynamoDB answers, as floci-io/floci's PartiQL tests record
            # it (checked on DynamoDB); DynamoDB Local says "Variable reference" for
            # "Attribute".
            raise validation(f"Attribute {name} in ORDER BY clause must be part of the primary key")
        ascending.setdefault(name, not term[-1].is_word("DESC"))
    if conditions == 0:
        raise validation(ORDER_BY_WITHOUT_PARTITION_KEY)
    upward = ascending.get(schema.pk.name, True)
    if conditions > 1 and schema.pk.name not in ascending:
        # [AWS] floci-io/floci, recorded on DynamoDB: "pk IN ['o', 'p'] ORDER BY sk DESC".
        raise validation(ORDER_BY_WITHOUT_HASH_KEY)
    if schema.sk is None:
        return upward, True
    # [AWS] An ORDER BY that names only the partition key returns the sort key descending
    # (floci-io/floci, checked on DynamoDB, eu-west-2, 2026-09-17: "pk = 'o' ORDER BY pk
    # ASC" answers sk 3, 2, 1; over two partitions, "ORDER BY pk DESC" p/3, p/2, p/1,
    # o/3, ...).
    return upward, ascending.get(schema.sk.name, False)


def _on_sort_key(part: list[Token], sort_key: str) -> bool:
    """Whether a conjunct is a key condition on the sort key (=, <, ..., BETWEEN,
    begins_with)."""
    if len(part) >= 3 and part[0].kind in ("word", "qid") and identifier(part[0]) == sort_key:
        return part[1].text in ("=", "<", "<=", ">", ">=") or part[1].is_word("BETWEEN")
    return (
        len(part) >= 4
        and part[0].is_word("BEGINS_WITH")
        and part[1].text == "("
        and part[2].kind in ("word", "qid")
        and identifier(part[2]) == sort_key
    )


def _insert(state: EmulatorState, clauses: dict[str, list[Token]], tr: Translation) -> Statement:
    into = clauses.get("INTO", [])
    value = clauses.get("VALUE")
    if value is None:
        raise malformed("INSERT needs INTO table VALUE {...}")
    table, index = _table_of(state, into)
    if index is not None:
        raise malformed("INSERT into an index")
    item, end = parse_value(value, 0, tr)
    if end != len(value) or "M" not in item:
        raise malformed("VALUE must be one {...} tuple")
    request = {
        "TableName": table.name,
        "Item": item["M"],
        "ConditionExpression": f"attribute_not_exists({tr.name(table.schema.pk.name)})",
    }
    return Statement("INSERT", table, tr.placeholders(request))


def _returning(tokens: list[Token] | None) -> str | None:
    if tokens is None:
        return None
    words = tuple(t.text.upper() for t in tokens)
    if len(words) != 3 or words[2] != "*" or words[:2] not in RETURNING:
        raise malformed("RETURNING takes ALL OLD *, ALL NEW *, MODIFIED OLD * or MODIFIED NEW *")
    return RETURNING[(words[0], words[1])]


def _update(
    state: EmulatorState, split: list[tuple[str, list[Token]]], tr: Translation
) -> Statement:
    table, _ = _table_of(state, split[0][1])
    sets: list[str] = []
    removes: list[str] = []
    where: list[Token] = []
    returning: list[Token] | None = None
    for word, tokens in split[1:]:
        if word == "SET":
            for assignment in _commas(tokens):
                if len(assignment) < 3:
                    raise malformed("SET needs path = value")
                eq = next((n for n, t in enumerate(assignment) if t.text == "="), -1)
                if eq < 1:
                    raise malformed("SET needs path = value")
                path = expression(assignment[:eq], tr)
                sets.append(f"{path} = {expression(assignment[eq + 1 :], tr)}")
        elif word == "REMOVE":
            removes.extend(expression(p, tr) for p in _commas(tokens))
        elif word == "WHERE":
            where = tokens
        elif word == "RETURNING":
            returning = tokens
    if not sets and not removes:
        raise malformed("UPDATE needs SET or REMOVE")
    key, condition = _where(table, where, tr)
    parts = []
    if sets:
        parts.append("SET " + ", ".join(sets))
    if removes:
        parts.append("REMOVE " + ", ".join(removes))
    request: dict[str, Any] = {
        "TableName": table.name,
        "Key": key,
        "UpdateExpression": " ".join(parts),
        "ConditionExpression": _existing(table, condition, tr),
    }
    returns = _returning(returning)
    if returns is not None:
        request["ReturnValues"] = returns
    return Statement("UPDATE", table, tr.placeholders(request))


def _commas(tokens: list[Token]) -> list[list[Token]]:
    out: list[list[Token]] = [[]]
    for tok, top in with_depth(tokens):
        if top and tok.text == ",":
            out.append([])
            continue
        out[-1].append(tok)
    if any(not p for p in out):
        raise malformed("Empty item in a list")
    return out


def _delete(state: EmulatorState, clauses: dict[str, list[Token]], tr: Translation) -> Statement:
    table, _ = _table_of(state, clauses.get("FROM", []))
    key, condition = _where(table, clauses.get("WHERE", []), tr)
    request: dict[str, Any] = {"TableName": table.name, "Key": key}
    if condition is not None:
        request["ConditionExpression"] = condition
    returns = _returning(clauses.get("RETURNING"))
    if returns is not None:
        request["ReturnValues"] = returns
    return Statement("DELETE", table, tr.placeholders(request))


def _exists(state: EmulatorState, tokens: list[Token], tr: Translation) -> Statement:
    """EXISTS(SELECT ... FROM "table" WHERE key... AND condition) as the ConditionCheck
    it stands for: "You can use EXISTS to perform the same function as ConditionCheck
    does in the TransactWriteItems API", and "The SELECT statement must specify a full
    primary key and one other condition"
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.exists.html).
    The WHERE is read by the rule an UPDATE's is, so the check is that the item exists
    and meets the condition."""
    closing = next((n for n, (_, top) in enumerate(with_depth(tokens[1:]), 1) if top), None)
    if len(tokens) < 3 or tokens[1].text != "(" or closing != len(tokens) - 1:
        raise malformed("EXISTS takes one (SELECT ...)")
    inner = tokens[2:-1]
    if not inner or not inner[0].is_word("SELECT"):
        raise malformed("EXISTS takes a SELECT")
    clauses = _once(_split(inner, ("SELECT", "FROM", "WHERE", "ORDER")))
    if not clauses["SELECT"]:
        raise malformed("Expected a projection after SELECT")
    if "ORDER" in clauses:
        raise malformed("ORDER BY in EXISTS")
    table, index = _table_of(state, clauses.get("FROM", []))
    if index is not None:
        raise validation(EXISTS_ON_INDEX)
    key, condition = _where(table, clauses.get("WHERE", []), tr, EXISTS_NOT_ONE_ITEM)
    if condition is None:
        raise validation(EXISTS_NOT_ONE_ITEM)
    request = {
        "TableName": table.name,
        "Key": key,
        "ConditionExpression": _existing(table, condition, tr),
    }
    return Statement("EXISTS", table, tr.placeholders(request))


def _outside_transaction(statement: Statement) -> Statement:
    """A statement ExecuteStatement or BatchExecuteStatement may run: not an EXISTS,
    which has nothing to check outside a transaction's writes."""
    if statement.kind == "EXISTS":
        raise validation(EXISTS_OUTSIDE_TRANSACTION)
    return statement


def _parameters(parameters: Any) -> list[AttributeValue]:
    """A statement's Parameters, each checked as an attribute value."""
    params = parameters if isinstance(parameters, list) else []
    for value in params:
        check_value(value)
    return params


def plan(state: EmulatorState, text: Any, parameters: Any) -> Statement:
    """A statement (with its Parameters) as the request that runs it. The statement is
    a string of 1 to 8192 characters, checked with the request's shape (shapes.py)."""
    params = _parameters(parameters)
    tokens = tokenize(text, len(params))
    tr = Translation(parameters=params)
    if not tokens or tokens[0].kind != "word":
        raise malformed("Expected SELECT, INSERT, UPDATE, DELETE or EXISTS")
    verb = tokens[0].text.upper()
    if verb == "SELECT":
        split = _split(tokens, ("SELECT", "FROM", "WHERE", "ORDER"))
        return _select(state, _once(split), tr)
    if verb == "INSERT":
        split = _split(tokens[1:], ("INTO", "VALUE"))
        return _insert(state, _once(split), tr)
    if verb == "UPDATE":
        split = _split(tokens, ("UPDATE", "SET", "REMOVE", "WHERE", "RETURNING"))
        return _update(state, split, tr)
    if verb == "DELETE":
        split = _split(tokens[1:], ("FROM", "WHERE", "RETURNING"))
        return _delete(state, _once(split), tr)
    if verb == "EXISTS":
        return _exists(state, tokens, tr)
    raise malformed(f"Unsupported statement {tokens[0].text}")


def _run(state: EmulatorState, statement: Statement, options: dict[str, Any]) -> dict[str, Any]:
    """Run one planned statement with the request's options; the operation's reply."""
    request = {**statement.request, **options}
    try:
        if statement.kind == "SELECT":
            operation = statement.extra["operation"]
            if operation == "Queries":
                return _queries(state, statement, request)
            if operation == "Query":
                return query_scan.query(state, request)
            return query_scan.scan(state, request)
        if statement.kind == "INSERT":
            return single_item.put_item(state, request)
        if statement.kind == "UPDATE":
            return single_item.update_item(state, request)
        return single_item.delete_item(state, request)
    except DynamoError as exc:
        if statement.kind == "INSERT" and exc.name == "ConditionalCheckFailedException":
            raise DynamoError(
                "DuplicateItemException", "Duplicate primary key exists in table"
            ) from None
        raise


def _queries(state: EmulatorState, statement: Statement, request: dict[str, Any]) -> dict[str, Any]:
    """One page of a SELECT over several partition-key values, run as DynamoDB runs it:
    a Query of each value in turn, each through `query_scan.query` (validated, read,
    throttled and charged as that Query is; the page's ConsumedCapacity their sum). The
    request's Limit counts across the Queries, so a page goes on into the next value's
    Query while the Limit has items left, and ends where a Query stops (its Limit or
    1 MB): the page's LastEvaluatedKey is that Query's, whose partition key names the
    value the next page resumes at, so NextToken is encoded as a single Query's is.
    [AWS] floci-io/floci records DynamoDB paging so: "pk IN ['o', 'p'] ORDER BY pk DESC"
    with Limit 2 answers p/3, p/2, then p/1, o/3."""
    start = request.pop("ExclusiveStartKey", None)
    limit = query_scan.page_limit(request)
    first = 0 if start is None else _resume_at(statement, start)
    values: dict[str, Any] = dict(request.get("ExpressionAttributeValues") or {})
    items: list[Any] = []
    consumed: dict[str, Any] | None = None
    out: dict[str, Any] = {}
    for index in range(first, len(statement.partitions)):
        values[statement.partition_value] = statement.partitions[index]
        one = {**request, "ExpressionAttributeValues": dict(values)}
        if start is not None and index == first:
            one["ExclusiveStartKey"] = start
        if limit is not None:
            one["Limit"] = limit
        reply = query_scan.query(state, one)
        items.extend(reply.get("Items", []))
        consumed = _summed(consumed, reply.get("ConsumedCapacity"))
        if "LastEvaluatedKey" in reply:
            out["LastEvaluatedKey"] = reply["LastEvaluatedKey"]
            break
        if limit is not None:
            # A Query that reads its whole Limit stops with a LastEvaluatedKey (above),
            # so what is left here is at least 1.
            limit -= int(reply["ScannedCount"])
    out["Items"] = items
    if consumed is not None:
        out["ConsumedCapacity"] = consumed
    return out


def _resume_at(statement: Statement, start: dict[str, Any]) -> int:
    """The partition a NextToken resumes: the one its key's partition-key value names (a
    token of another statement resumes at the first, whose Query then refuses it as
    outside its key condition)."""
    wanted = start.get(statement.partition_key)
    if not isinstance(wanted, dict):
        return 0
    check_value(wanted)
    for index, value in enumerate(statement.partitions):
        if set(value) == set(wanted) and sort_value(value) == sort_value(wanted):
            return index
    return 0


def _summed(total: dict[str, Any] | None, one: dict[str, Any] | None) -> dict[str, Any] | None:
    """Two ConsumedCapacity as one: every unit added, at every level (the table's, each
    index's), the names kept."""
    if one is None:
        return total
    if total is None:
        return one
    out = dict(total)
    for key, value in one.items():
        mine = out.get(key)
        if isinstance(value, dict):
            out[key] = _summed(mine if isinstance(mine, dict) else None, value)
        elif isinstance(value, (float, int)) and isinstance(mine, (float, int)):
            out[key] = mine + value
        else:
            out[key] = value
    return out


def _encode(key: dict[str, Any]) -> str:
    return base64.b64encode(orjson.dumps(key)).decode()


def _decode(token: str) -> dict[str, Any]:
    try:
        key = orjson.loads(base64.b64decode(token, validate=True))
    except ValueError:
        raise validation("Invalid NextToken") from None
    if not isinstance(key, dict):
        raise validation("Invalid NextToken")
    return key


def execute_statement(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    text = member(req, "Statement", str, required=True)
    statement = _outside_transaction(plan(state, text, req.get("Parameters")))
    options: dict[str, Any] = {}
    for name in ("ReturnConsumedCapacity",):
        if name in req:
            options[name] = req[name]
    if statement.kind == "SELECT":
        for name in ("ConsistentRead", "Limit"):
            if name in req:
                options[name] = req[name]
        token = member(req, "NextToken", str)
        if token is not None:
            options["ExclusiveStartKey"] = _decode(token)
    elif "ReturnValuesOnConditionCheckFailure" in req:
        options["ReturnValuesOnConditionCheckFailure"] = req["ReturnValuesOnConditionCheckFailure"]
    reply = _run(state, statement, options)
    out: dict[str, Any] = {"Items": reply.get("Items", [])}
    if statement.kind != "SELECT" and "Attributes" in reply:
        out["Items"] = [reply["Attributes"]]
    if "LastEvaluatedKey" in reply:
        out["LastEvaluatedKey"] = reply["LastEvaluatedKey"]
        out["NextToken"] = _encode(reply["LastEvaluatedKey"])
    if "ConsumedCapacity" in reply:
        out["ConsumedCapacity"] = reply["ConsumedCapacity"]
    return out


def batch_execute_statement(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    raw = member(req, "Statements", list, required=True)  # 1 to 25: shapes.py
    mode = req.get("ReturnConsumedCapacity", "NONE")
    responses: list[dict[str, Any]] = []
    consumed: dict[str, dict[str, Any]] = {}
    for entry in raw:
        if not isinstance(entry, dict):
            raise validation("Statements entries must be objects")
        try:
            planned = plan(state, entry.get("Statement"), entry.get("Parameters"))
            statement = _outside_transaction(planned)
            options: dict[str, Any] = {"ReturnConsumedCapacity": mode} if mode != "NONE" else {}
            if statement.kind == "SELECT":
                if statement.get is None:
                    raise validation(BATCH_READ_WITHOUT_KEY)
                if entry.get("ConsistentRead") is not None:
                    options["ConsistentRead"] = entry["ConsistentRead"]
                reply = single_item.get_item(state, {**statement.get, **options})
                response: dict[str, Any] = {"TableName": statement.table.name}
                if "Item" in reply:
                    response["Item"] = reply["Item"]
            else:
                on_fail = entry.get("ReturnValuesOnConditionCheckFailure")
                if on_fail is not None:
                    options["ReturnValuesOnConditionCheckFailure"] = on_fail
                reply = _run(state, statement, options)
                response = {"TableName": statement.table.name}
            _add_consumed(consumed, reply.get("ConsumedCapacity"))
            responses.append(response)
        except DynamoError as exc:
            error: dict[str, Any] = {
                "Code": ERROR_CODES.get(exc.name, exc.name),
                "Message": exc.message,
            }
            if "Item" in exc.extra:
                error["Item"] = exc.extra["Item"]
            responses.append({"Error": error})
    out: dict[str, Any] = {"Responses": responses}
    if mode != "NONE":
        out["ConsumedCapacity"] = list(consumed.values())
    return out


def _add_consumed(totals: dict[str, dict[str, Any]], one: dict[str, Any] | None) -> None:
    if not one:
        return
    total = totals.setdefault(one["TableName"], {"TableName": one["TableName"]})
    for unit in ("CapacityUnits", "ReadCapacityUnits", "WriteCapacityUnits"):
        if unit in one:
            total[unit] = total.get(unit, 0.0) + one[unit]


def _verb(text: Any) -> str:
    """A statement's first word, upper-cased ("" if it has none)."""
    if not isinstance(text, str):
        return ""
    words = text.split(None, 1)
    head = words[0] if words else ""
    end = next((n for n, c in enumerate(head) if not c.isalpha()), len(head))
    return head[:end].upper()


def _in_statement(number: int, exc: DynamoError) -> DynamoError:
    """A statement's ValidationException as ExecuteTransaction answers it, naming the
    statement (IN_STATEMENT); its other errors (a missing table) stand as they are."""
    if exc.name != "ValidationException":
        return exc
    return DynamoError(exc.name, IN_STATEMENT.format(number, exc.message), exc.prefix, exc.extra)


def _plan_transaction(state: EmulatorState, raw: list[Any]) -> list[tuple[Statement, Any]]:
    """ExecuteTransaction's statements, planned, in the order DynamoDB refuses them: every
    statement's Parameters first (floci-io/floci records DynamoDB answering a bad
    parameter without the statement prefix, ahead of a statement that does not parse),
    then a mix of reads and writes, told from each statement's verb before any statement
    is read further (DynamoDB Local checks it as it parses each one), then each
    statement, its validation errors prefixed with its place (IN_STATEMENT)."""
    entries: list[dict[str, Any]] = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise validation("TransactStatements entries must be objects")
        _parameters(entry.get("Parameters"))
        entries.append(entry)
    verbs = [_verb(entry.get("Statement")) for entry in entries]
    if "SELECT" in verbs and any(verb in WRITE_VERBS for verb in verbs):
        raise validation(MIXED_TRANSACTION)
    statements: list[tuple[Statement, Any]] = []
    for number, entry in enumerate(entries):
        try:
            statement = plan(state, entry.get("Statement"), entry.get("Parameters"))
            if statement.kind == "SELECT":
                if "IndexName" in statement.request:
                    raise validation(TRANSACTION_READ_ON_INDEX)
                if statement.get is None:
                    raise validation(TRANSACTION_READ_WITHOUT_KEY)
            elif "ReturnValues" in statement.request:
                raise validation(TRANSACTION_RETURNING)
        except DynamoError as exc:
            raise _in_statement(number, exc) from None
        statements.append((statement, entry.get("ReturnValuesOnConditionCheckFailure")))
    return statements


def execute_transaction(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    raw = member(req, "TransactStatements", list, required=True)  # 1 to 100: shapes.py
    statements = _plan_transaction(state, raw)
    options: dict[str, Any] = {}
    if "ReturnConsumedCapacity" in req:
        options["ReturnConsumedCapacity"] = req["ReturnConsumedCapacity"]
    if all(statement.kind == "SELECT" for statement, _ in statements):
        gets = [{"Get": statement.get} for statement, _ in statements]
        return transactions.transact_get_items(state, {"TransactItems": gets, **options})
    actions = []
    for statement, on_fail in statements:
        body = dict(statement.request)
        if on_fail is not None:
            body["ReturnValuesOnConditionCheckFailure"] = on_fail
        kind = TRANSACT_ACTIONS[statement.kind]
        actions.append({kind: body})
    if "ClientRequestToken" in req:
        options["ClientRequestToken"] = req["ClientRequestToken"]
    try:
        reply = transactions.transact_write_items(state, {"TransactItems": actions, **options})
    except DynamoError as exc:
        reasons = exc.extra.get("CancellationReasons")
        if reasons is not None:
            for (statement, _), reason in zip(statements, reasons, strict=True):
                if statement.kind == "INSERT" and reason.get("Code") == "ConditionalCheckFailed":
                    reason["Code"] = "DuplicateItem"
                    reason["Message"] = "Duplicate primary key exists in table"
            raise transactions.cancelled(reasons) from None
        raise
    return reply
