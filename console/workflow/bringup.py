"""`up`'s parts every target shares: the cost question, the deadline's reaper, creating
tables by CreateTable, a table's record (each target's provisioning: console/targets/)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from console.cost.expected_usage import table_use
from console.workflow import processes
from console.workflow.awserrors import error_code
from console.workflow.errors import CostRefused
from console.workflow.hooks import Hooks
from console.workflow.models import PlanReport
from console.workflow.planning import variants_in_runs
from console.workflow.run_context import run_settings
from console.workflow.run_state import (
    RunState,
    StateStore,
    TableState,
    utc_now,
)
from console.workflow.settings import Settings
from loadgen.playbook import Playbook, TableSpec

REAPER_MODULE = "console.workflow.reaper"


def where(report: PlanReport) -> str:
    return "would cost on AWS" if report.hypothetical else "is estimated at"


def refuse_over_limit(report: PlanReport, settings: Settings) -> None:
    """--max-cost-usd against what the run costs on its target (a local run: nothing),
    or, with --max-cost-of aws, against what it would cost on AWS, local runs included."""
    limit = settings.max_cost_usd
    if limit is None:
        return
    local_but_aws_asked = report.hypothetical and settings.max_cost_of == "aws"
    if report.hypothetical and not local_but_aws_asked:
        return  # free where it runs: the limit guards money
    cost = report.estimated_cost_usd
    if cost > limit:
        basis = " (--max-cost-of aws)" if local_but_aws_asked else ""
        raise CostRefused(
            f"the run {where(report)} ${cost:,.2f}, over --max-cost-usd "
            f"${limit:,.2f}{basis}; nothing was created (fewer tables, a shorter "
            "playbook or a higher limit)"
        )


def confirm_cost(report: PlanReport, hooks: Hooks) -> None:
    question = (
        f"Create {len(report.tables)} table(s) and {report.fleet.workers} worker(s) on "
        f"{report.target}? The run {where(report)} ${report.estimated_cost_usd:,.2f} "
        f"(${report.per_hour_while_up:,.2f}/h while up, "
        f"+${report.per_hour_while_running:,.2f}/h while workers run; prices "
        f"{report.prices_region} as of {report.prices_as_of})"
    )
    if not hooks.confirm(question):
        raise CostRefused("not confirmed; nothing was created (--yes skips the question)")


def start_reaper(store: StateStore, state: RunState, settings: Settings) -> None:
    """A detached process that runs `down` at the deadline if the run is still up: the
    hard wall-clock limit holds even when the terminal that started the run is gone."""
    if state.reaper_pid is not None and processes.is_ours(state.reaper_pid, state.run_id):
        return
    argv = [
        "-m",
        REAPER_MODULE,
        state.run_id,
        "--settings",
        run_settings(state, settings).model_dump_json(),
        "--runs-dir",
        str(store.runs_dir.resolve()),
    ]
    state.reaper_pid = processes.spawn_detached(argv, store.run_dir(state.run_id) / "reaper.log")
    store.save(state)


def create_tables(
    store: StateStore,
    state: RunState,
    playbook: Playbook,
    client: Any,
    hooks: Hooks,
    table_name: Callable[[str, str], str],
) -> None:
    """Each variant's table and the results table, by CreateTable (the local target;
    on AWS Terraform creates them). `table_name(run_id, variant)` is the target's."""
    from loadgen.resultstore import ResultStore, wait_active

    specs = variants_in_runs(playbook)
    for i, spec in enumerate(specs):
        hooks.check_cancel()
        name = table_name(state.run_id, spec.name)
        hooks.progress("creating tables", i / (len(specs) + 1))
        existing = state.tables.get(spec.name)
        if existing is None or existing.deleted_at is not None:
            hooks.say(f"creating {name}")
            try:
                client.create_table(
                    **spec.create_table_request(name, tags={"hotbench:run-id": state.run_id})
                )
            except Exception as exc:
                if error_code(exc) != "ResourceInUseException":
                    raise
            state.tables[spec.name] = table_state(spec, name)
            store.save(state)
        wait_active(client, name)
    results = f"{state.run_id}-results"
    if state.results_table is None:
        hooks.say(f"creating {results}")
        # a no-op when a resumed up made it before it was killed
        ResultStore(client, results, state.run_id).create_table()
        state.results_table = results
        store.save(state)
    wait_active(client, results)
    hooks.progress("creating tables", 1.0)


def table_state(spec: TableSpec, name: str, arn: str | None = None) -> TableState:
    """The state of a table about to be created: the fields the cost record reads
    (console.cost.expected_usage.table_use, the one reading of a spec's billed shape) plus where
    and since when."""
    billed = dataclasses.asdict(table_use(spec, name, ()))
    del billed["spans"]
    return TableState(variant=spec.name, arn=arn, created_at=utc_now(), **billed)
