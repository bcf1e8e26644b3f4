"""The variables file (`*.tfvars.json`) that points the Terraform kit at a playbook: what
`hotbench optimize --out DIR` writes beside `best.yaml`, so that
`terraform apply -var-file=DIR/best.tfvars.json` in terraform/examples/own-table (or the
root stack) creates the recommended tables as they are (docs/optimize.md#terraform)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

RUN_ID = re.compile(r"^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$")
"""terraform/variables.tf's rule for run_id: 1-24 of a-z, 0-9 and '-', ends alphanumeric."""


def run_id_for(name: str) -> str:
    """A valid run_id made from a playbook's name (`opt-` and its letters and digits)."""
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    run_id = f"opt-{slug}"[:24].rstrip("-")
    return run_id if RUN_ID.match(run_id) else "opt"


def tfvars(
    spec_file: Path,
    run_id: str,
    owner: str,
    expires_in_h: float,
    region: str,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The example's variables: the spec file (absolute: Terraform resolves a relative one
    from where it runs), the run's id, owner and expiry (the tags every resource gets),
    and the region."""
    expires = (now or datetime.now(UTC)) + timedelta(hours=expires_in_h)
    return {
        "spec_file": str(spec_file.resolve()),
        "run_id": run_id,
        "owner": owner,
        "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
    }
