"""DynamoDB's JSON 1.0 wire protocol: error bodies and the exceptions that produce them.

An SDK decides which exception to raise from the `__type` after its last '#', and
fills `response['Error']` from the body's other members, so every refusal the endpoint
sends goes through `DynamoError.body()`. The prefixes are the ones DynamoDB itself
sends: service errors under `com.amazonaws.dynamodb.v20120810#`, request validation
under `com.amazon.coral.validate#`, protocol errors under `com.amazon.coral.service#`.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

AUTH_ERRORS: Final = frozenset(
    {
        "MissingAuthenticationTokenException",
        "IncompleteSignatureException",
        "InvalidSignatureException",
        "UnrecognizedClientException",
    }
)
"""The service layer's refusals of a request's credentials: unlike its protocol errors,
their text is under "message" (as DynamoDB answers dynalite's test/connection.js)."""
DYNAMODB: Final = "com.amazonaws.dynamodb.v20120810#"
CORAL_VALIDATE: Final = "com.amazon.coral.validate#"
CORAL_SERVICE: Final = "com.amazon.coral.service#"
_dumps: Final = orjson.dumps
"""Compact JSON, as DynamoDB's bodies are (orjson writes no spaces)."""

NOT_FOUND_MESSAGE: Final = "Requested resource not found"
CONDITION_FAILED_MESSAGE: Final = "The conditional request failed"
ITEM_TOO_LARGE_MESSAGE: Final = "Item size has exceeded the maximum allowed size"


class DynamoError(Exception):
    """A refusal as DynamoDB words it; raised anywhere in request handling."""

    def __init__(
        self,
        name: str,
        message: str,
        prefix: str = DYNAMODB,
        extra: dict[str, Any] | None = None,
        status: int = 400,
        payload: bytes | None = None,
    ) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.prefix = prefix
        self.extra = extra or {}
        self.status = status
        self._payload = payload
        """`payload()` encoded already, by a caller that has it (a throttle's is made
        once); it must be what `payload()` would encode."""

    def body(self) -> dict[str, Any]:
        if self.prefix == CORAL_SERVICE and self.name not in AUTH_ERRORS:
            # [AWS] the service layer's errors (SerializationException,
            # UnknownOperationException) carry their text under "Message", and none at all
            # for a body that is not JSON or an operation that does not exist (as DynamoDB
            # answers dynalite's test/connection.js and helpers.assertSerialization).
            out: dict[str, Any] = {"__type": f"{self.prefix}{self.name}"}
            if self.message:
                out["Message"] = self.message
            return {**out, **self.extra}
        return {"__type": f"{self.prefix}{self.name}", "message": self.message, **self.extra}

    def payload(self) -> bytes:
        """The body's bytes as DynamoDB sends them: compact JSON, no spaces (the bytes
        its x-amz-crc32 covers: dynalite's test/connection.js checks both against AWS)."""
        if self._payload is not None:
            return self._payload
        return _dumps(self.body())


def validation(message: str) -> DynamoError:
    """ValidationException: the request is well-formed JSON but not a valid request."""
    return DynamoError("ValidationException", message, CORAL_VALIDATE)


def invalid_parameter(detail: str) -> DynamoError:
    """The most common DynamoDB validation wording."""
    return validation(f"One or more parameter values were invalid: {detail}")


def serialization(message: str) -> DynamoError:
    """SerializationException: the body is not JSON, or a member has the wrong JSON type."""
    return DynamoError("SerializationException", message, CORAL_SERVICE)


def unknown_operation() -> DynamoError:
    """[AWS] an X-Amz-Target that names no operation: the type alone, no message."""
    return DynamoError("UnknownOperationException", "", CORAL_SERVICE)


def not_found(detail: str | None = None) -> DynamoError:
    message = NOT_FOUND_MESSAGE if detail is None else f"{NOT_FOUND_MESSAGE}: {detail}"
    return DynamoError("ResourceNotFoundException", message)


def in_use(message: str) -> DynamoError:
    return DynamoError("ResourceInUseException", message)


def condition_failed(item: dict[str, Any] | None = None) -> DynamoError:
    """ConditionalCheckFailedException, with the item when ReturnValuesOnCondition..."""
    extra = {"Item": item} if item is not None else None
    return DynamoError("ConditionalCheckFailedException", CONDITION_FAILED_MESSAGE, extra=extra)


def internal(message: str = "Internal server error") -> DynamoError:
    """Only for bugs in the emulator: a client mistake must never end up here."""
    return DynamoError("InternalServerError", message, status=500)


def null_member(member: str) -> DynamoError:
    """What DynamoDB says when a required member is missing."""
    return validation(
        f"1 validation error detected: Value null at '{member}' failed to "
        "satisfy constraint: Member must not be null"
    )


# --- typed access to request members -----------------------------------------------------
# botocore validates parameters before sending, but raw HTTP clients (and the fuzz test)
# do not: every member is read through these so a wrong type is a 400, never a crash.


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def member(
    req: dict[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    required: bool = False,
    default: Any = None,
) -> Any:
    """Read `req[name]` checking its JSON type; SerializationException on a wrong type."""
    value = req.get(name)
    if value is None:
        if required:
            raise null_member(_lower_first(name))
        return default
    if (
        isinstance(value, bool)
        and kind is not bool
        and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        raise type_error(value, kind)
    if not isinstance(value, kind):
        raise type_error(value, kind)
    return value


_JAVA: Final = {str: "String", int: "Long", bool: "Boolean"}


def json_kind(value: Any) -> str:
    """The JSON token DynamoDB's parser names in a type error."""
    if isinstance(value, bool):
        return "TRUE_VALUE" if value else "FALSE_VALUE"
    if isinstance(value, int):
        return "NUMBER_VALUE"
    if isinstance(value, float):
        return "DECIMAL_VALUE"
    return "STRING_VALUE"


def java_type_error(value: Any, java: str) -> DynamoError:
    """SerializationException for `value` where DynamoDB's parser wanted a scalar of the
    Java type `java` (String, Long, Integer, Boolean), in its words; shared by `member`
    and the request's shape check (shapes.py)."""
    if isinstance(value, dict):
        return serialization("Start of structure or map found where not expected")
    if isinstance(value, list):
        return serialization(f"Unrecognized collection type class java.lang.{java}")
    return serialization(f"{json_kind(value)} cannot be converted to {java}")


def type_error(value: Any, kind: type | tuple[type, ...]) -> DynamoError:
    """SerializationException for `value` where a `kind` was expected, in the words of
    DynamoDB's parser."""
    expected = kind[0] if isinstance(kind, tuple) else kind
    if isinstance(value, dict):
        return serialization("Start of structure or map found where not expected")
    if expected in _JAVA:
        return java_type_error(value, _JAVA[expected])
    if expected is dict and isinstance(value, list):
        return serialization(
            "Unrecognized collection type java.util.Map<java.lang.String, "
            "com.amazonaws.dynamodb.v20120810.AttributeValue>"
        )
    return serialization("Unexpected field type")


def table_name(req: dict[str, Any]) -> str:
    name: str = member(req, "TableName", str, required=True)
    if not 1 <= len(name) <= 1024:
        raise validation(
            f"1 validation error detected: Value '{name}' at 'tableName' failed "
            "to satisfy constraint: Member must have length between 1 and 1024"
        )
    return name


_NAME: Final = re.compile(r"[a-zA-Z0-9_.-]+")
"""[AWS] table and index names: 3 to 255 of these characters (Developer Guide,
"Naming rules": https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html)."""


def check_name(name: str, where: str = "tableName") -> None:
    """A table or index name as DynamoDB's request validation checks it. Not run on
    every request: a table found by name has a valid one (it was checked when created),
    so the data plane checks only a name it cannot find."""
    if name.startswith("arn:"):
        return
    if len(name) < 3 or len(name) > 255:
        raise validation(
            f"1 validation error detected: Value '{name}' at '{where}' failed to satisfy "
            "constraint: Member must have length "
            + ("greater than or equal to 3" if len(name) < 3 else "less than or equal to 255")
        )
    if _NAME.fullmatch(name) is None:
        raise validation(
            f"1 validation error detected: Value '{name}' at '{where}' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
        )
