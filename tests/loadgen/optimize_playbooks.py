"""Small playbooks for the tests of `hotbench optimize`: seconds of load, so a search of a
few trials simulates in seconds."""

from __future__ import annotations

from typing import Any

import yaml

LAUNCH = """\
name: tiny-launch
tables:
  - name: t
    partition_key: {name: id, type: S}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 1000
load:
  attributes:
    id: {dist: uuid}
  phases:
    - {name: launch, operation: put, rate: 6000, duration_s: 5}
criteria:
  - {name: no throttles, metric: throttle_rate, table: t, max: 0}
optimize:
  tables:
    t: {}
  trials: 8
"""
"""A new on-demand table under 6,000 writes/s for 5 s: over its ~4,130/s ceiling."""

HOT_KEY = """\
name: tiny-hot-key
tables:
  - name: bad
    partition_key: {name: warehouseId, type: S}
    sort_key: {name: itemId, type: S}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 10000
    item_size_bytes: 1000
load:
  attributes:
    warehouseId: {dist: weighted, weights: {WH-TOKYO: 80, WH-OSAKA: 10, WH-FUKUOKA: 10}}
    itemId: {dist: uniform, count: 5000, format: "SKU-{:05d}"}
  phases:
    - {name: rush, operation: put, rate: 4000, duration_s: 8}
optimize:
  tables:
    bad:
      write_shards: {key: warehouseId, max_shards: 8}
      billing_modes: [PROVISIONED]
  trials: 8
"""
"""M1's hot key for 8 s, marked shardable; no criteria (the default: at most 1 %)."""


def data(text: str, **changes: Any) -> dict[str, Any]:
    """The playbook's mapping, with `optimize` keys replaced (month=..., trials=...)."""
    out: dict[str, Any] = yaml.safe_load(text)
    out["optimize"] = {**out.get("optimize", {}), **changes}
    return out
