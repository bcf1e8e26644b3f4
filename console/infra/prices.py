"""Prices used by the cost estimate, all in one place with their source.

us-east-1, USD, as recorded in docs/reference.md#prices (2026-11-30). Confirm them with the
AWS Price List API (boto3 client ``pricing`` in us-east-1, GetProducts with ServiceCode
AmazonDynamoDB / AmazonECS / AmazonCloudWatch); other regions differ.
"""

from __future__ import annotations

from typing import Final

REGION: Final = "us-east-1"
SOURCE: Final = (
    "docs/reference.md#prices (AWS pricing pages; provisioned and Fargate "
    "figures third-party), us-east-1"
)

#: Provisioned capacity, billed per hour while the table exists, used or not.
PROVISIONED_WCU_HOUR: Final = 0.00065
PROVISIONED_RCU_HOUR: Final = 0.00013

#: On-demand request units (since 2024-11-01); nothing is billed while idle.
ON_DEMAND_PER_MILLION_WRITE_UNITS: Final = 0.625
ON_DEMAND_PER_MILLION_READ_UNITS: Final = 0.125

#: Fargate Linux, per task-hour, billed per second with a 1-minute minimum.
FARGATE_VCPU_HOUR: Final = {"X86_64": 0.04048, "ARM64": 0.03238}
FARGATE_GB_HOUR: Final = {"X86_64": 0.004445, "ARM64": 0.00356}

#: CloudWatch dashboards: $3 per month each past the account's first three.
DASHBOARD_MONTH: Final = 3.0
HOURS_PER_MONTH: Final = 730.0
