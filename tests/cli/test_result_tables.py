"""The printed tables: RCU columns for reads, the per-phase view, and live latency."""

from __future__ import annotations

import pytest
from rich.console import Console

from console.cli import main
from console.render.results_table import phases_differ, results_table
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.records import Counts, PlaybookResult, RunResult
from tests.conftest import BUILT_IN_SIMULATIONS, PLAYBOOKS


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["simulate", *argv, "--quiet"]) == 0
    return capsys.readouterr().out


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")
def test_reads_get_rcu_columns_and_differing_phases_a_per_phase_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """new-table-ceiling's 12,762 reads/s and its write windows, visible at last."""
    out = _out(capsys, str(PLAYBOOKS / "new-table-ceiling.yaml"))
    assert "RCU peak 1s" in out and "RCU peak 1min" in out
    assert "new-table-ceiling: per phase" in out
    reads = next(line for line in out.splitlines() if " reads " in line)
    assert "get" in reads and "12,762" in reads and "RCU" in reads
    w8000 = next(line for line in out.splitlines() if " w8000 " in line)
    assert "8,000" in w8000 and "%" in w8000
    assert "per phase" not in _out(capsys, str(PLAYBOOKS / "new-table-ceiling.yaml"), "--no-phases")


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")
def test_one_phase_of_writes_keeps_the_table_narrow_unless_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _out(capsys, str(PLAYBOOKS / "hot-partition.yaml"))
    assert "RCU peak" not in out and "per phase" not in out
    out = _out(capsys, str(PLAYBOOKS / "hot-partition.yaml"), "--phases")
    assert "hot-partition: per phase" in out and "morning-rush" in out


def test_a_live_run_shows_p50_and_p99_and_names_the_timed_count() -> None:
    latency = LatencyHistogram()
    for ms in (1, 2, 2, 3, 40):
        latency.record(ms / 1000)
    run = RunResult("hot", 1, 1, seconds={0: Counts(sent=5, succeeded=5)}, latency=latency)
    result = PlaybookResult("p", "run", 1.0, runs=[run])
    console = Console(width=250, record=True)
    console.print(results_table(result))
    text = console.export_text()
    assert "p50" in text and "p99" in text and "ms" in text
    block = run.to_json()["latency_ms"]
    assert block["timed_requests"] == 5 and "count" not in block
    assert not phases_differ(result)
