"""`down`'s parts: local (tables, emulator, orphaned workers) and aws (tasks, Terraform
destroy, the sweep by tag)."""

from __future__ import annotations

from console.infra.tf_errors import TerraformError
from console.workflow import local, processes
from console.workflow.awserrors import aws_errors
from console.workflow.errors import WorkflowError
from console.workflow.hooks import Hooks
from console.workflow.models import DownReport, Leftover
from console.workflow.processes import WORKER_MARKER
from console.workflow.run_state import (
    RunState,
    StateStore,
    utc_now,
)
from console.workflow.settings import Settings
from console.workflow.tablerun import stop_tasks


def down_local(store: StateStore, state: RunState, hooks: Hooks) -> DownReport:
    removed: list[str] = []
    leftovers: list[Leftover] = []
    notes: list[str] = []
    for table_run in state.table_runs:
        for pid in table_run.worker_pids:
            if processes.is_ours(pid, WORKER_MARKER):
                processes.stop(pid, WORKER_MARKER)
                removed.append(f"worker process {pid}")
    emu = state.emulator
    names = [t.name for t in state.tables.values() if t.deleted_at is None]
    if state.results_table:
        names.append(state.results_table)
    if emu is not None and local.emulator_alive(emu):
        client = local.client(state)
        for name in names:
            try:
                client.delete_table(TableName=name)
                removed.append(f"table {name}")
            except Exception as exc:
                if getattr(exc, "response", {}).get("Error", {}).get("Code") != (
                    "ResourceNotFoundException"
                ):
                    leftovers.append(
                        Leftover(kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}")
                    )
        remaining = set(client.list_tables().get("TableNames", [])) & set(names)
        for name in sorted(remaining):
            leftovers.append(
                Leftover(kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}")
            )
        if local.stop_emulator(emu):
            removed.append(f"emulator process {emu.pid}")
            # its tables lived in its memory: none survives it
            leftovers = [x for x in leftovers if x.kind != "dynamodb:table"]
        else:
            leftovers.append(
                Leftover(kind="process", id=str(emu.pid), delete_command=f"kill -9 {emu.pid}")
            )
    elif emu is not None and emu.stopped_at is None and names:
        notes.append(f"the emulator (pid {emu.pid}) was already gone; its tables went with it")
    now = utc_now()
    if emu is not None and not local.emulator_alive(emu):
        emu.stopped_at = emu.stopped_at or now
    for table in state.tables.values():
        if table.deleted_at is None and not any(x.id == table.name for x in leftovers):
            table.deleted_at = now
    return DownReport(
        run_id=state.run_id, target="local", removed=removed, leftovers=leftovers, notes=notes
    )


def down_aws(store: StateStore, state: RunState, settings: Settings, hooks: Hooks) -> DownReport:
    from console.workflow import aws
    from console.workflow.sweep import sweep

    removed: list[str] = []
    notes: list[str] = []
    session = aws.session(settings)
    if any(t.stopped_at is None for t in state.tasks):
        removed += [f"task {arn}" for arn in stop_tasks(state, session.client("ecs"))]
        store.save(state)
    tf_state = state.terraform
    if tf_state is not None and tf_state.destroyed_at is None:
        hooks.say("terraform destroy")
        try:
            with aws_errors("terraform destroy", state.region):
                aws.terraform(tf_state, settings).destroy(on_progress=hooks.say)
            tf_state.destroyed_at = utc_now()
            removed.append("terraform stack")
            for table in state.tables.values():
                table.deleted_at = table.deleted_at or tf_state.destroyed_at
        except (WorkflowError, TerraformError) as exc:
            notes.append(f"terraform destroy failed: {exc}")
        store.save(state)
    hooks.say("sweeping by tag hotbench:run-id=" + state.run_id)
    with aws_errors("tag:GetResources", state.region):
        leftovers = sweep(session.client, aws.RUN_TAG, state.run_id, state.region)
    return DownReport(
        run_id=state.run_id, target="aws", removed=removed, leftovers=leftovers, notes=notes
    )
