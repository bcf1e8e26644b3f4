"""A live run on the emulator puts each variant's auto scaling on its table through
`/_hotbench/tables/T/auto-scaling` after CreateTable; the history rides in the request."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.format.playbook import parse_playbook
from loadgen.live.auto_scaling_route import AutoScalingRouteError, put_auto_scaling
from tests.loadgen.conftest import emulator_table

PLAYBOOK = parse_playbook(
    {
        "name": "as",
        "tables": [
            {
                "name": "t",
                "partition_key": {"name": "pk"},
                "read_capacity": 5,
                "write_capacity": 100,
                "auto_scaling": {"write": {"target_pct": 70, "min": 100, "max": 4000}},
                "history": {"previous_provisioned": {"write": 3000}},
                "gsis": [
                    {
                        "name": "byG",
                        "partition_key": {"name": "gk"},
                        "read_capacity": 5,
                        "write_capacity": 5,
                        "auto_scaling": {"read": {"target_pct": 50, "min": 5, "max": 50}},
                    }
                ],
            }
        ],
        "load": {
            "attributes": {"pk": {"dist": "uuid"}, "gk": {"dist": "uuid"}},
            "phases": [{"operation": "put", "rate": 10, "duration_s": 1}],
        },
    }
)


@pytest.fixture
def emu() -> Iterator[EmulatorServer]:
    with EmulatorServer(EmulatorOptions(create_delay_s=0), port=0) as server:
        yield server


def _view(emu: EmulatorServer, path: str) -> Any:
    with urllib.request.urlopen(emu.endpoint_url + path, timeout=10) as reply:
        return json.loads(reply.read())


def test_the_variants_policies_reach_the_emulators_table_and_gsi(emu: EmulatorServer) -> None:
    spec = PLAYBOOK.tables[0]
    emulator_table(emu.endpoint_url, PLAYBOOK, "run-t")
    lines = put_auto_scaling(emu.endpoint_url, "run-t", spec)
    assert lines == [
        "run-t: write auto scaling at 70 % of 100-4,000",
        "run-t/byG: read auto scaling at 50 % of 5-50",
    ]
    view = _view(emu, "/_hotbench/capacity?table=run-t")["indexes"]
    assert view["$table"]["auto_scaling"] == spec.auto_scaling_specs()[None].as_request()
    assert view["byG"]["auto_scaling"] == spec.auto_scaling_specs()["byG"].as_request()
    history = _view(emu, "/_hotbench/partitions?table=run-t")["history"]
    assert history == {"previous_provisioned_write": 3000.0}


def test_a_table_the_emulator_does_not_have_is_said(emu: EmulatorServer) -> None:
    with pytest.raises(AutoScalingRouteError, match=r"nope: the emulator refused .*404"):
        put_auto_scaling(emu.endpoint_url, "nope", PLAYBOOK.tables[0])


def test_an_endpoint_with_no_such_route_is_said() -> None:
    with pytest.raises(AutoScalingRouteError, match="could not set auto scaling"):
        put_auto_scaling("http://127.0.0.1:9", "t", PLAYBOOK.tables[0])


def test_the_local_target_puts_the_policy_on_after_create_table(
    emu: EmulatorServer, tmp_path: Any
) -> None:
    """`hotbench up` on the local target: create_tables (the target's own module) puts
    each variant's auto scaling on through the route and says so."""
    from datetime import UTC, datetime

    from console.run.hooks import Hooks
    from console.run.state import EmulatorProcess, RunState, StateStore
    from console.targets.local import create_tables
    from loadgen.live.playbook_run import LOCAL_CREDENTIALS
    from loadgen.live.resultstore import make_client

    url = emu.endpoint_url
    port = int(url.rsplit(":", 1)[1].rstrip("/"))
    state = RunState(
        run_id="hb-as",
        target="local",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="as",
        emulator=EmulatorProcess(
            pid=1, port=port, scale=1.0, started_at=datetime.now(UTC), log_path="x"
        ),
    )
    said: list[str] = []
    client = make_client(url, "us-east-1", LOCAL_CREDENTIALS)
    create_tables(
        StateStore(tmp_path),
        state,
        PLAYBOOK,
        client,
        Hooks(say=said.append),
        lambda run_id, variant: f"{run_id}-{variant}",  # the local target's naming
    )
    assert "hb-as-t: write auto scaling at 70 % of 100-4,000" in said
    view = _view(emu, "/_hotbench/capacity?table=hb-as-t")["indexes"]
    assert view["$table"]["auto_scaling"]["Write"]["MinCapacity"] == 100
