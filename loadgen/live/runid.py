"""Run ids: one format for a one-shot `hotbench run` and a workflow run made by `up`, so a
table name (`<run id>-<variant>`) or a tag says which run made it, whichever path did."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime


def new_run_id() -> str:
    """`hb-` + UTC month, day and time + 4 hex digits: sorts by time within a year, fits
    Terraform's 24-character run_id rule (lowercase, digits, '-') and ECS's startedBy
    limit, and two runs started in the same second still differ."""
    return f"hb-{datetime.now(UTC):%m%d%H%M%S}-{secrets.token_hex(2)}"
