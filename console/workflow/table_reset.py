"""A resumed `run` meets the table a fresh run meets.

A table run that was killed, interrupted or failed after its load began may have
heated the table and split its partitions (DynamoDB splits for heat; so does the
emulator): run again on that table, smoke's hot key throttled 0.8 % instead of 10.8 %.
So before such a table run goes again, its table is deleted and created anew from the
playbook's spec (the same name, the same tags), seeded again, and any earlier repeat
of the same table runs again first, so that a later repeat meets the history a fresh
run gives it (badOnDemand#2 meets the table #1 and the pause left). Each of these runs
records why in the result (`restart`, docs/results.md).

The same calls on both targets (DeleteTable, CreateTable, ListTagsOfResource,
DescribeContributorInsights): the emulator drops a deleted table's capacity state, and on
AWS the run owns its tables (their `hotbench:run-id` tag says so). A table that cannot
be made again (not the run's, an AWS refusal) is not run on: the step refuses with what
to do instead (exit 5), rather than mix a heated table's figures with a fresh one's.
"""

from __future__ import annotations

import time
from typing import Any

from console.run.errors import StateError
from console.run.hooks import Hooks
from console.run.state import Restart, RunState, Status, TableRun
from console.run.tables import find_spec
from console.targets.aws_kit import RUN_TAG as RUN_ID_TAG
from console.targets.awserrors import error_code
from loadgen.format.playbook import Playbook

WAIT_S = 600.0
"""How long a deletion or creation may take (AWS: seconds to minutes; the emulator: at
once)."""


def restarts(state: RunState) -> dict[str, Restart]:
    """Per variant, the restart its table needs: the first table run of it whose attempt
    may have sent load (killed, interrupted or failed)."""
    out: dict[str, Restart] = {}
    for table_run in state.table_runs:
        how = table_run.attempted
        if how is not None and table_run.variant not in out:
            out[table_run.variant] = Restart(after=how, attempt_of=table_run.label)
    return out


def restore_tables(
    state: RunState, playbook: Playbook, client: Any, hooks: Hooks, save: Any
) -> None:
    """For every table an earlier attempt may have heated: make it anew, mark it to be
    seeded again, and put every table run of it that had finished or was attempted back
    to run, each with its `restart`. `save()` records the state after each table."""
    for variant, restart in restarts(state).items():
        table = state.tables.get(variant)
        if table is None:
            continue
        again = [
            tr for tr in state.table_runs if tr.variant == variant and tr.status != Status.PENDING
        ]
        earlier = [tr.label for tr in again if tr.label != restart.attempt_of]
        hooks.say(
            f"{restart.attempt_of} was {restart.after} during its table run: its table may "
            f"be heated and split, so {table.name} is made anew"
            + (f" and {', '.join(earlier)} run again first" if earlier else "")
            + " (a fresh run's table)"
        )
        recreate_table(client, playbook, variant, table.name, state.run_id, state.region)
        table.seeded_items = None  # seeded again, as a fresh run's table is
        for table_run in again:
            _to_run_again(table_run, restart)
        save()


def _to_run_again(table_run: TableRun, restart: Restart) -> None:
    table_run.status = Status.PENDING
    table_run.restart = restart
    table_run.result_path = None
    table_run.interrupted = False


def recreate_table(
    client: Any, playbook: Playbook, variant: str, name: str, run_id: str, region: str
) -> None:
    """Delete the run's table `name` and create it again from the playbook's spec, with
    its tags and Contributor Insights as they were. StateError (exit 5) when it is not the
    run's or cannot be made again: the run then stops rather than run on a heated table."""
    from loadgen.live.resultstore import wait_active

    spec = find_spec(playbook, variant)
    try:
        described = client.describe_table(TableName=name)["Table"]
        tags = _tags(client, described.get("TableArn"))
        owner = tags.get(RUN_ID_TAG)
        if owner is not None and owner != run_id:
            raise StateError(
                f"{name} carries {RUN_ID_TAG}={owner}, not {run_id}: it is not this run's, "
                "so it is not deleted; its figures would mix with a heated table's"
            )
        insights = _insights_enabled(client, name)
        client.delete_table(TableName=name)
        _wait_gone(client, name)
        request = spec.create_table_request(name, tags=tags or {RUN_ID_TAG: run_id})
        client.create_table(**request)
        wait_active(client, name, WAIT_S)
        if insights:
            client.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    except StateError:
        raise
    except Exception as exc:  # an AWS refusal, a timeout: say so and stop, never mix
        code = error_code(exc) or type(exc).__name__
        raise StateError(
            f"could not make {name} anew for a fresh run ({code}: {exc}); nothing was run "
            f"on it. `hotbench down {run_id}` and a new `hotbench up` start from fresh "
            f"tables (region {region})"
        ) from None


def _tags(client: Any, arn: str | None) -> dict[str, str]:
    if not arn:
        return {}
    try:
        listed = client.list_tags_of_resource(ResourceArn=arn).get("Tags", [])
    except Exception as exc:  # an endpoint without tags: the run id is written anew
        if error_code(exc) in ("UnknownOperationException", "UnrecognizedClientException"):
            return {}
        raise
    return {t["Key"]: t["Value"] for t in listed}


def _insights_enabled(client: Any, name: str) -> bool:
    try:
        status = client.describe_contributor_insights(TableName=name)
    except Exception as exc:  # the emulator has no Contributor Insights
        if error_code(exc) in ("UnknownOperationException", "ValidationException"):
            return False
        raise
    return status.get("ContributorInsightsStatus") in ("ENABLED", "ENABLING")


def _wait_gone(client: Any, name: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            client.describe_table(TableName=name)
        except Exception as exc:
            if error_code(exc) == "ResourceNotFoundException":
                return
            raise
        if time.monotonic() > deadline:
            raise TimeoutError(f"{name} still there {WAIT_S:.0f} s after DeleteTable")
        time.sleep(0.5)
