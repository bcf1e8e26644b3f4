"""The worker image's promise without Docker: loadgen/requirements-worker.txt alone, in a
fresh venv, runs `python -m loadgen.live.worker` through the barrier against the emulator.

This is what the Dockerfile does (pip install -r requirements-worker.txt, then the
package with --no-deps): a worker that imported something the file does not pin (the
console's pydantic-settings, Textual, Terraform) fails here as it would on Fargate. The
install comes from the package registry, bounded by a timeout.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.emulator_options import EmulatorOptions
from loadgen.live.coordinator import FleetOptions, run_fleet
from loadgen.live.fleet import LocalFleet
from loadgen.live.resultstore import ResultStore, make_client

from .conftest import CREDS, make_plan, tiny_playbook

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT_S = 600


def _install_commands(venv: Path) -> list[list[str]]:
    """A fresh venv and the worker's pins in it: through uv when the suite's venv has it
    (make installs it: about 5 s instead of pip's 30-60 s on a 2-core machine, the same
    resolution from the same file), through pip as the Dockerfile does otherwise."""
    python = str(venv / "bin" / "python")
    requirements = str(ROOT / "loadgen" / "requirements-worker.txt")
    uv = Path(sys.executable).with_name("uv")
    if uv.is_file():
        return [
            [str(uv), "venv", "-q", "--python", sys.executable, str(venv)],
            [str(uv), "pip", "install", "-q", "--python", python, "-r", requirements],
        ]
    return [
        [sys.executable, "-m", "venv", str(venv)],
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            requirements,
        ],
    ]


@pytest.fixture(scope="module")
def worker_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    venv = tmp_path_factory.mktemp("worker-venv") / "venv"
    for command in _install_commands(venv):
        installed = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
    yield str(venv / "bin" / "python")


@pytest.mark.e2e  # a venv of the worker's pins, then a worker in it: ~11 s
def test_the_pinned_requirements_alone_run_a_worker(worker_python: str) -> None:
    from emulator.server import EmulatorServer

    # nothing beyond the pins: the console's own dependencies are absent
    probe = subprocess.run(
        [worker_python, "-c", "import pydantic_settings"], capture_output=True, timeout=60
    )
    assert probe.returncode != 0
    with EmulatorServer(EmulatorOptions(create_delay_s=0), port=0) as server:
        endpoint = str(server.endpoint_url)
        client = make_client(endpoint, "us-east-1", CREDS)
        client.create_table(**tiny_playbook().tables[0].create_table_request("tbl"))
        store = ResultStore(client, "results-venv", "venv-run")
        store.create_table()
        plan = make_plan(endpoint, store.run_id, rate=100, duration_s=1.0, workers=2)
        env = {
            "HOTBENCH_RUN_ID": store.run_id,
            "HOTBENCH_RESULTS_TABLE": store.table,
            "HOTBENCH_CONTROL_ENDPOINT": endpoint,
            "AWS_REGION": "us-east-1",
            "HOTBENCH_BARRIER_TIMEOUT_S": "120",
            # the repository's sources, as the image copies them (no site-packages of ours)
            "PYTHONPATH": str(ROOT),
            "HOTBENCH_PURE": "1",
            **CREDS,
        }
        run = run_fleet(
            plan,
            store,
            LocalFleet(python=worker_python),
            env,
            FleetOptions(barrier_timeout_s=120, lead_s=1.0),
        )
    assert not run.partial, run.notes
    assert run.totals().succeeded == run.offered == 100
