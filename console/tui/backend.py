"""The workflow's steps bound to one Settings: the only door from the console to the work.

Every method blocks (files, HTTP to the emulator, AWS, Terraform): the app calls them
from thread workers only. Snapshot tests subclass this with fixed data.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from console.workflow import (
    CostTally,
    DownReport,
    Hooks,
    PlanReport,
    RunOptions,
    RunState,
    Settings,
    StateStore,
    UpOptions,
    WatchFrame,
)
from console.workflow import steps as workflow
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.playbook import Playbook, load_playbook
from loadgen.results import PlaybookResult


class Backend:
    """What the console can ask of the workflow, for one runs folder and target."""

    def __init__(self, settings: Settings, params: CapacityParams = DEFAULT_PARAMS) -> None:
        self.settings = settings
        self.params = params
        """The model's parameters for the preview (`hotbench console --params FILE`)."""
        self.store = StateStore(settings.runs_dir)

    # -- before anything exists ---------------------------------------------------------
    def playbook(self, path: str | Path) -> Playbook:
        return load_playbook(path)

    def plan(self, path: str | Path, options: UpOptions) -> PlanReport:
        return workflow.plan(path, self.settings, options)

    def preview(self, path: str | Path, pause_scale: float = 1.0) -> PlaybookResult:
        """The same playbook through the capacity model in virtual time (`simulate`), with
        the pauses between repeats as the live run's physics will see them, so the results
        screen compares like with like (a split for heat needs the pause): whole on the
        local target, whose emulator skips the rest of each pause on its clock; shortened
        by `--pause-scale` on AWS, where time cannot be skipped."""
        from loadgen.runners import SimulatedRunner

        playbook = load_playbook(path)
        if self.settings.target == "local":
            pause_scale = 1.0  # the local emulator's clock skips the rest of each pause
        if pause_scale != 1.0 and playbook.load.runs:
            runs = [
                r.model_copy(update={"pause_s": r.pause_s * pause_scale})
                for r in playbook.load.runs
            ]
            load = playbook.load.model_copy(update={"runs": runs})
            playbook = playbook.model_copy(update={"load": load})
        return SimulatedRunner(self.params).run(playbook)

    def advice(self, path: str | Path) -> list[str] | None:
        """The advisor's lines for the plan screen: the hottest key's share and the first
        limit each table hits (the same arithmetic as `hotbench advise` and the check
        reports)."""
        from loadgen import advise as advisor

        playbook = load_playbook(path)
        return [line for table in advisor.advise(playbook) for line in table.lines()]

    def hot_keys(self, path: str | Path) -> dict[str, list[str]]:
        """Per table variant, the hottest partition-key values (the advisor's)."""
        from loadgen import advise as advisor

        playbook = load_playbook(path)
        out: dict[str, list[str]] = {}
        for table in advisor.advise(playbook):
            out[table.table] = sorted(
                {c.hot_key.value for c in table.checks if c.hot_key and c.scope == "table"}
            )
        return out

    # -- the steps ------------------------------------------------------------------------
    def up(
        self, path: str | Path, hooks: Hooks, options: UpOptions, run_id: str | None = None
    ) -> RunState:
        return workflow.up(path, self.settings, hooks, options, run_id)

    def prewarm(self, run_id: str, hooks: Hooks) -> RunState:
        return workflow.prewarm(run_id, self.settings, hooks)

    def run(self, run_id: str, hooks: Hooks, options: RunOptions) -> PlaybookResult:
        return workflow.run(run_id, self.settings, hooks, options)

    def watch(self, run_id: str, stop: threading.Event) -> Iterator[WatchFrame]:
        return workflow.watch(run_id, self.settings, stop=stop)

    def tally(self, run_id: str) -> CostTally:
        return workflow.tally(run_id, self.settings)

    def meter(self, state: RunState) -> CostTally:
        """The cost so far, for the header's meter: the tally's arithmetic over the state
        as it is, read-only (the `tally` step also records itself in the state)."""
        from console.cost.tally import tally_state

        return tally_state(state, self.settings.price_region)

    def down(self, run_id: str, hooks: Hooks) -> DownReport:
        return workflow.down(run_id, self.settings, hooks)

    # -- reading ----------------------------------------------------------------------------
    def runs(self) -> list[RunState]:
        return workflow.runs(self.settings)

    def state(self, run_id: str) -> RunState:
        return self.store.load(run_id)

    def result(self, state: RunState) -> PlaybookResult | None:
        """A finished run's result, from the table runs' files (resuming at results)."""
        from console.workflow.runrecord import read_run

        runs = [
            read_run(self.store.run_dir(state.run_id) / r.result_path)
            for r in state.table_runs
            if r.result_path
        ]
        if not runs:
            return None
        return PlaybookResult(
            playbook=state.playbook_name,
            mode="run",
            scale=state.scale,
            runs=runs,
            target=state.target,
        )

    def partitions(self, state: RunState, variant: str) -> dict[str, Any] | None:
        """The emulator's partition map of one table (local runs; None elsewhere)."""
        if state.emulator is None or variant not in state.tables:
            return None
        from console.workflow.local import (
            metrics,
            partitions,
        )

        name = state.tables[variant].name
        found: dict[str, Any] | None = partitions(state.emulator, name)
        recent = metrics(state.emulator, seconds=1)
        if found is None or recent is None:
            return found
        # The map's partitions carry units taken since creation; the metrics carry each
        # partition's utilisation over the last second (the heat against its limit).
        indexes = (recent.get("tables", {}).get(name) or {}).get("indexes", {})
        for index in found.get("indexes", []):
            live = indexes.get(index.get("index") or "$table") or {}
            heat = {p["id"]: p.get("utilisation") for p in live.get("partitions", [])}
            for part in index.get("partitions", []):
                part["utilisation"] = heat.get(part["id"])
        return found

    def insights(
        self, state: RunState, variant: str, clients: tuple[Any, Any] | None = None
    ) -> list[dict[str, Any]] | None:
        """AWS: each Contributor Insights rule of the table and its GSIs (named as DynamoDB
        DescribeContributorInsights lists them) with its top contributors over the last
        five minutes (CloudWatch GetInsightRuleReport, 1-minute periods). None when the
        playbook did not enable Contributor Insights on the table."""
        table = state.tables.get(variant)
        if state.target != "aws" or table is None or not table.contributor_insights:
            return None
        from datetime import UTC, datetime, timedelta

        from console.workflow import aws
        from console.workflow.awserrors import aws_errors

        if clients is None:
            boto = aws.session(self.settings)
            clients = (boto.client("dynamodb"), boto.client("cloudwatch"))
        dynamodb, cloudwatch = clients
        end = datetime.now(UTC)
        out: list[dict[str, Any]] = []
        for index in [None, *(g.name for g in table.gsis)]:
            where = {"TableName": table.name} | ({"IndexName": index} if index else {})
            with aws_errors("dynamodb:DescribeContributorInsights", state.region):
                rules = dynamodb.describe_contributor_insights(**where).get(
                    "ContributorInsightsRuleList", []
                )
            for rule in rules:
                with aws_errors("cloudwatch:GetInsightRuleReport", state.region):
                    report = cloudwatch.get_insight_rule_report(
                        RuleName=rule,
                        StartTime=end - timedelta(minutes=5),
                        EndTime=end,
                        Period=60,
                        MaxContributorCount=10,
                        OrderBy="Sum",
                    )
                out.append(
                    {
                        "index": index,
                        "rule": rule,
                        "contributors": [
                            (" / ".join(c.get("Keys", [])), c.get("ApproximateAggregateValue", 0.0))
                            for c in report.get("Contributors", [])
                        ],
                    }
                )
        return out

    def export_dir(self, run_id: str) -> Path:
        return self.store.run_dir(run_id)
