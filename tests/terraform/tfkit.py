"""Helpers and paths for the Terraform kit tests (a unique name, unlike `conftest`, so
`from tfkit import ...` cannot pick up another folder's module)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TERRAFORM = REPO / "terraform"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC_FILE = REPO / "playbooks" / "hot-partition.yaml"


def copy_module(name: str, dest: Path) -> Path:
    """Copy terraform/modules/<name> to ``dest`` so `.terraform/` never lands in the repo."""
    target = dest / name
    shutil.copytree(
        TERRAFORM / "modules" / name, target, ignore=shutil.ignore_patterns(".terraform*")
    )
    return target


def load_fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


# -- the spec rules, written again in Python -------------------------------------------
# An independent statement of what modules/spec must compute from a spec entry, so the
# HCL and the Python side cannot drift apart silently.

WARM_MINIMUM = {"read": 12000, "write": 4000}


def _warm(requested: Any, provisioned: dict[str, Any] | None) -> dict[str, int] | None:
    """A side left unset starts at the minimum, or at the provisioned capacity when that is
    higher; null when nothing asks for more than that."""
    if not requested:
        return None
    floor = {
        side: max(WARM_MINIMUM[side], (provisioned or {}).get(side) or 0) for side in WARM_MINIMUM
    }
    read = requested.get("read") or 0
    write = requested.get("write") or 0
    if read <= floor["read"] and write <= floor["write"]:
        return None
    return {
        "read_units_per_second": max(read, floor["read"]),
        "write_units_per_second": max(write, floor["write"]),
    }


def _on_demand(entry: dict[str, Any], billing: str) -> dict[str, Any] | None:
    cap = entry.get("on_demand_max") or {}
    if billing != "PAY_PER_REQUEST" or (cap.get("read") is None and cap.get("write") is None):
        return None
    return {"max_read_request_units": cap.get("read"), "max_write_request_units": cap.get("write")}


def expected_settings(entry: dict[str, Any], run_id: str) -> dict[str, Any]:
    """What modules/spec output `tables[<name>]` must be for one YAML entry."""
    billing = entry["billing_mode"]
    prov = billing == "PROVISIONED"
    keys = [entry["partition_key"], entry.get("sort_key")]
    for g in entry.get("gsis") or []:
        keys += [g["partition_key"], g.get("sort_key")]
    attrs: dict[str, str] = {}
    for k in keys:
        if k:
            attrs.setdefault(k["name"], k["type"])
    gsis = []
    for g in entry.get("gsis") or []:
        read = g.get("read_capacity") or entry.get("read_capacity")
        write = g.get("write_capacity") or entry.get("write_capacity")
        gsis.append(
            {
                "name": g["name"],
                "key_schema": [
                    {"attribute_name": g["partition_key"]["name"], "key_type": "HASH"},
                    *(
                        [{"attribute_name": g["sort_key"]["name"], "key_type": "RANGE"}]
                        if g.get("sort_key")
                        else []
                    ),
                ],
                "projection_type": g.get("projection", "ALL"),
                "non_key_attributes": g.get("non_key_attributes", [])
                if g.get("projection") == "INCLUDE"
                else None,
                "read_capacity": read if prov else None,
                "write_capacity": write if prov else None,
                "on_demand_throughput": _on_demand(g, billing),
                "warm_throughput": _warm(
                    g.get("warm_throughput"), {"read": read, "write": write} if prov else None
                ),
            }
        )
    table_capacity = (
        {"read": entry["read_capacity"], "write": entry["write_capacity"]} if prov else None
    )
    return {
        "variant": entry["name"],
        "name": f"hotbench-{run_id}-{entry['name']}",
        "billing_mode": billing,
        "hash_key": entry["partition_key"]["name"],
        "range_key": (entry.get("sort_key") or {}).get("name"),
        "attributes": [{"name": n, "type": attrs[n]} for n in sorted(attrs)],
        "read_capacity": entry.get("read_capacity") if prov else None,
        "write_capacity": entry.get("write_capacity") if prov else None,
        "on_demand_throughput": _on_demand(entry, billing),
        "warm_throughput": _warm(entry.get("warm_throughput"), table_capacity),
        "contributor_insights_mode": entry.get("contributor_insights"),
        "table_class": entry.get("table_class", "STANDARD"),
        "gsis": gsis,
        "auto_scaling": _auto_scaling(entry) if prov else [],
    }


def _auto_scaling(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """One target-tracking entry per scalable dimension of the table, then each GSI."""
    owners = [(None, entry.get("auto_scaling"))] + [
        (g["name"], g.get("auto_scaling")) for g in entry.get("gsis") or []
    ]
    out = []
    for index, settings in owners:
        for d in ("read", "write"):
            policy = (settings or {}).get(d)
            if policy is None:
                continue
            unit = "Read" if d == "read" else "Write"
            out.append(
                {
                    "key": f"{'table' if index is None else 'index-' + index}-{d}",
                    "index_name": index,
                    "resource_suffix": "" if index is None else f"/index/{index}",
                    "scalable_dimension": (
                        f"dynamodb:{'table' if index is None else 'index'}:{unit}CapacityUnits"
                    ),
                    "predefined_metric_type": f"DynamoDB{unit}CapacityUtilization",
                    "target_value": policy["target_pct"],
                    "min_capacity": policy["min"],
                    "max_capacity": policy["max"],
                    "scale_in_cooldown": policy.get("scale_in_cooldown_s", 0),
                    "scale_out_cooldown": policy.get("scale_out_cooldown_s", 0),
                    "disable_scale_in": policy.get("disable_scale_in", False),
                }
            )
    return out
