"""What DynamoDB says when it refuses a request: exception class, message, reason.

The texts are DynamoDB's own (docs/reference.md#errors-and-throttle-reasons), so an SDK
pointed at the emulator raises the same exception with the same `response['Error']` as
against AWS.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final


class Cause(StrEnum):
    """Why a request was refused; the suffix of a DynamoDB throttle reason."""

    KEY_RANGE = "KeyRangeThroughputExceeded"
    PROVISIONED = "ProvisionedThroughputExceeded"
    ACCOUNT_LIMIT = "AccountLimitExceeded"
    MAX_ON_DEMAND = "MaxOnDemandThroughputExceeded"


PROVISIONED_EXCEPTION: Final = "ProvisionedThroughputExceededException"
THROTTLING_EXCEPTION: Final = "ThrottlingException"

TABLE_PROVISIONED_MESSAGE: Final = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)
INDEX_PROVISIONED_MESSAGE: Final = (
    "The level of configured provisioned throughput for one or more global secondary "
    "indexes of the table was exceeded. Consider increasing your provisioning level for "
    "the under-provisioned global secondary indexes with the UpdateTable API."
)
ON_DEMAND_MESSAGE: Final = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is "
    "automatically scaling your table or index so please try again shortly. If exceptions "
    "persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)
MAX_ON_DEMAND_MESSAGE: Final = (
    "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
)


@dataclass(frozen=True, slots=True)
class ThrottleSite:
    """A place on a request's route that can refuse it, and how that refusal reads."""

    on_index: bool
    cause: Cause
    resource_arn: str
    provisioned_table: bool
    _on_write: Throttle = field(init=False, repr=False, compare=False)
    _on_read: Throttle = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Both refusals made once: a Throttle is immutable, and under mypyc a frozen
        # dataclass's __init__ is interpreted, too slow to run on every refusal.
        object.__setattr__(self, "_on_write", self._throttle(True))
        object.__setattr__(self, "_on_read", self._throttle(False))

    def throttle(self, is_write: bool) -> Throttle:
        """The refusal of a write or of a read at this site."""
        return self._on_write if is_write else self._on_read

    def _throttle(self, is_write: bool) -> Throttle:
        scope = "Index" if self.on_index else "Table"
        reason = f"{scope}{'Write' if is_write else 'Read'}{self.cause.value}"
        if self.provisioned_table:
            # [? reference.md#errors-and-throttle-reasons] AWS leaves open which class a
            # key-range throttle uses per capacity mode: we follow the table's mode, so one
            # table always raises one class.
            exception = PROVISIONED_EXCEPTION
            message = INDEX_PROVISIONED_MESSAGE if self.on_index else TABLE_PROVISIONED_MESSAGE
        else:
            exception = THROTTLING_EXCEPTION
            message = (
                MAX_ON_DEMAND_MESSAGE if self.cause is Cause.MAX_ON_DEMAND else ON_DEMAND_MESSAGE
            )
        return Throttle(exception, message, reason, self.resource_arn)


@dataclass(frozen=True, slots=True)
class Throttle:
    """A refusal as the client sees it."""

    exception: str
    message: str
    reason: str
    resource: str
    extra: dict[str, object] = field(init=False, repr=False, compare=False)
    """The body's members besides `__type` and `message` (the reasons list), made once."""
    payload: bytes = field(init=False, repr=False, compare=False)
    """`body()` as the endpoint sends it (compact JSON, as every error body), encoded once so
    that a refusal does not pay for json.dumps (interpreted Python) each time."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "extra",
            {self.reasons_member: [{"reason": self.reason, "resource": self.resource}]},
        )
        object.__setattr__(self, "payload", json.dumps(self.body(), separators=(",", ":")).encode())

    @property
    def reasons_member(self) -> str:
        """The member that carries the reasons list: botocore's model names it
        ThrottlingReasons on ProvisionedThroughputExceededException and
        throttlingReasons on ThrottlingException."""
        if self.exception == PROVISIONED_EXCEPTION:
            return "ThrottlingReasons"
        return "throttlingReasons"

    def body(self) -> dict[str, object]:
        """The JSON body DynamoDB sends with HTTP 400."""
        return {
            "__type": f"com.amazonaws.dynamodb.v20120810#{self.exception}",
            "message": self.message,
            **self.extra,
        }
