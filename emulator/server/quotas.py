"""DynamoDB's bounds and quotas on a table's capacity, checked before the model sees it.

Why here and not in the model: the model pre-splits a table into the partitions its
capacity needs (ceil(RCU/3000 + WCU/1000) at creation, doubled by an increase:
emulator/partitioning.py), so the work of a CreateTable or UpdateTable grows with the
capacity asked for. DynamoDB refuses a value past 10^12 units outright ("Given value ...
is out of bounds") and anything past the account's quotas with LimitExceededException;
the endpoint does the same, so no request can ask the model for more partitions than a
table within DynamoDB's default quotas has (at most ceil(40,000/3,000 + 40,000/1,000) =
54 per table or index at creation, 64 after doublings).

[AWS] quotas: "Service, account, and table quotas in Amazon DynamoDB",
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
(per table or GSI 40,000 read and 40,000 write units; per account 80,000 of each, over
the provisioned tables and GSIs of a region; 2,500 tables per account and region), and
DescribeLimits, which reports them:
https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

from emulator.server.protocol import DynamoError, validation
from emulator.tableconfig import PAY_PER_REQUEST

MAX_UNITS: Final = 1_000_000_000_000
"""[AWS] the largest ReadCapacityUnits or WriteCapacityUnits DynamoDB's request
validation lets through; one more is "Given value ... is out of bounds" (answered by
DynamoDB to the request tests of dynalite, a DynamoDB clone tested against AWS)."""

ACCOUNT_QUOTA_UNITS: Final = 80_000
"""[AWS] default account quota: read (and, separately, write) capacity units over all
provisioned tables and GSIs of an account in a region (DescribeLimits
AccountMax{Read,Write}CapacityUnits)."""

MAX_TABLES: Final = 2_500
"""[AWS] default quota of tables per account and region."""

UNITS: Final = (("ReadCapacityUnits", "read"), ("WriteCapacityUnits", "write"))


def limit_exceeded(message: str) -> DynamoError:
    return DynamoError("LimitExceededException", f"Subscriber limit exceeded: {message}")


def _throughputs(request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(what, ProvisionedThroughput) of a CreateTable-shaped request's table and GSIs."""
    if request.get("BillingMode") == PAY_PER_REQUEST:
        return
    pt = request.get("ProvisionedThroughput")
    if isinstance(pt, dict):
        yield "table", pt
    for gsi in request.get("GlobalSecondaryIndexes") or []:
        if isinstance(gsi, dict) and isinstance(gsi.get("ProvisionedThroughput"), dict):
            yield f"index {gsi.get('IndexName')}", gsi["ProvisionedThroughput"]


def _warm(request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    warm = request.get("WarmThroughput")
    if isinstance(warm, dict):
        yield "table", warm
    for gsi in request.get("GlobalSecondaryIndexes") or []:
        if isinstance(gsi, dict) and isinstance(gsi.get("WarmThroughput"), dict):
            yield f"index {gsi.get('IndexName')}", gsi["WarmThroughput"]


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def check_bounds(request: dict[str, Any]) -> None:
    """Each provisioned value at most 10^12 units, in DynamoDB's words; the table's first,
    then its indexes', reads before writes (DynamoDB names the first it meets)."""
    for what, pt in _throughputs(request):
        for unit, _ in UNITS:
            value = _number(pt.get(unit))
            if value is not None and value > MAX_UNITS:
                suffix = "" if what == "table" else f" for {what}"
                raise validation(f"Given value {value} for {unit} is out of bounds{suffix}")


def check_quotas(
    request: dict[str, Any], others: Iterable[dict[str, Any]], table_quota: float
) -> None:
    """A table's settings within the per-table and per-account quotas: each table or GSI
    at most `table_quota` read and write units (provisioned, and warm throughput, which
    pre-splits as much), and the provisioned units of this table plus `others` (the
    account's other tables, CreateTable-shaped) at most the account quota."""
    quota = int(table_quota)
    for what, pt in _throughputs(request):
        for unit, word in UNITS:
            value = _number(pt.get(unit))
            if value is not None and value > quota:
                raise limit_exceeded(
                    f"Provisioned throughput for a single table or global secondary index "
                    f"cannot exceed {quota} {word} capacity units ({what} asks for {value}); "
                    "DescribeLimits gives the quota"
                )
    for what, warm in _warm(request):
        for unit in ("ReadUnitsPerSecond", "WriteUnitsPerSecond"):
            value = _number(warm.get(unit))
            if value is not None and value > quota:
                raise limit_exceeded(
                    f"WarmThroughput {unit} of {what} ({value}) exceeds the per-table "
                    f"throughput quota of {quota}; DescribeLimits gives the quota"
                )
    for unit, word in UNITS:
        total = provisioned_total(request, unit) + sum(provisioned_total(o, unit) for o in others)
        if total > ACCOUNT_QUOTA_UNITS:
            raise limit_exceeded(
                f"Provisioned throughput of the account would reach {total:g} {word} "
                f"capacity units, over the account quota of {ACCOUNT_QUOTA_UNITS} "
                "(DescribeLimits AccountMax"
                f"{'Read' if word == 'read' else 'Write'}CapacityUnits)"
            )


def provisioned_total(request: dict[str, Any], unit: str) -> float:
    """The `unit` (ReadCapacityUnits or WriteCapacityUnits) a table provisions, its GSIs'
    included; 0 on demand."""
    return float(sum(_number(pt.get(unit)) or 0 for _, pt in _throughputs(request)))


def check_table_count(count: int) -> None:
    """A new table within the account's table quota."""
    if count >= MAX_TABLES:
        raise limit_exceeded(
            f"The account already has {count} tables, the quota of tables per account and region"
        )
