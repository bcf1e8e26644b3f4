"""What the plan, tally and down steps return: typed, JSON-ready (`--json`), printable.

Money is always a list of `CostLine`s (quantity x unit price = usd) with the price table's
region and date, so a reader can redo the arithmetic and see which prices were used.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from console.cost.lines import CostLine
from console.run.settings import FleetName, TargetName
from loadgen.results.records import Leftover


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SetupSpan(Frozen):
    """A stretch of the run the tables stand through (apply, seeding, load, ...)."""

    label: str
    seconds: float


class PlannedIndex(Frozen):
    name: str
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None
    on_demand_max_read: int | None = None
    on_demand_max_write: int | None = None


class PlannedTable(Frozen):
    """A table `up` will create, as the playbook describes it."""

    variant: str
    name: str
    billing_mode: str
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None
    on_demand_max_read: int | None = None
    on_demand_max_write: int | None = None
    contributor_insights: str | None = None
    auto_scaling: bool = False
    """Application Auto Scaling target tracking on the table or a GSI (Terraform creates
    it; a first use in the account creates its service-linked role)."""
    gsis: list[PlannedIndex] = Field(default_factory=list)
    seed_items: int = 0
    per_hour_usd: float = 0.0
    """Provisioned capacity of the table and its GSIs: billed every hour it exists."""


class PlannedFleet(Frozen):
    """The workers: Lambda invocations or Fargate tasks on AWS, processes locally."""

    workers: int
    vcpu: float
    memory_gb: float
    architecture: str = "X86_64"
    per_hour_usd: float = 0.0
    """While the workers run (locally: what the same workers would cost on AWS)."""
    name: str = "ecs"
    """The fleet (console/targets/fleets/): local, ecs, lambda."""
    worker_kind: str = "Fargate tasks"
    summary: str = ""
    """One line: what the workers are and why they are this size."""
    in_flight: int = 0
    """The most workers running at once (Lambda: twice the workers while a window hands
    over to the next); what the account's concurrency must allow."""


class FleetCost(Frozen):
    """One AWS fleet's estimate of the same run, for the plan's comparison."""

    name: FleetName
    worker_kind: str
    total_usd: float
    chosen: bool
    """The fleet this plan is for (the others are what it would cost instead)."""
    stand_s: float
    """Seconds the tables stand from apply to destroy with this fleet."""
    workers_usd: float
    """What its workers are billed (tasks or invocations)."""
    start_s: float
    """Each table run's workers' start, launch to GO (the tables stand through it)."""
    image_s: float
    """The worker image's build, when the fleet needs one (the tables stand through it)."""


class PlanReport(Frozen):
    """What `up` would create and what the whole run would cost; `plan` creates nothing."""

    target: TargetName
    region: str
    playbook_path: str
    playbook_name: str
    tables: list[PlannedTable]
    fleet: PlannedFleet
    load_s: float
    """Seconds of load over every table run (phases x repeats)."""
    pauses_s: float
    """Seconds of pauses between repeats (the tables stay up, billed)."""
    setup_s: float
    """Seconds of the AWS setup: apply, image, seeding, fleet starts, destroy (billed)."""
    setup: list[SetupSpan] = Field(default_factory=list)
    """The spans the tables stand through, in order, as the estimate prices them."""
    seed_s: float = 0.0
    """Expected seconds of seeding: the wait before the first load. Every table at
    loadgen.load.seed.seed_rate (what the table takes at the run's scale, halved) where the
    clock is real (AWS); where the target skips its clock (the emulator) the pace is kept
    on it and the wait is the emulator's write speed (loadgen.load.seed.seeding_wall_s)."""
    per_hour_while_up: float
    per_hour_while_running: float
    fleets: list[FleetCost] = Field(default_factory=list)
    """Every AWS fleet's estimate of the run, the chosen one first: the comparison."""
    lines: list[CostLine]
    """The estimate of the whole run, line by line."""
    estimated_cost_usd: float
    prices_region: str
    prices_as_of: date
    prices_source: str
    hypothetical: bool
    """True locally: what the same run would cost on AWS (the emulator is free)."""
    notes: list[str] = Field(default_factory=list)


class CostTally(Frozen):
    """What a run cost, from what it used and for how long."""

    run_id: str
    target: TargetName
    lines: list[CostLine]
    total_usd: float
    prices_region: str
    prices_as_of: date
    prices_source: str
    hypothetical: bool
    """True locally: what the same run would have cost on AWS."""
    notes: list[str] = Field(default_factory=list)


def _as_down_writes_it(left: Leftover) -> dict[str, str]:
    """`down`'s JSON shape of a leftover (kept as it was before the result format and
    `down` shared one record): what it is, its id, the command that deletes it."""
    return {"kind": left.kind, "id": left.id, "delete_command": left.delete_command}


DownLeftover = Annotated[Leftover, PlainSerializer(_as_down_writes_it)]
"""Something `down` could not confirm gone (found by the sweep), and how to delete it by
hand: the run's one leftover record (loadgen.results.records), in `down`'s JSON shape."""


class DownReport(Frozen):
    """What `down` removed and what, if anything, is left."""

    run_id: str
    target: TargetName
    removed: list[str] = Field(default_factory=list)
    leftovers: list[DownLeftover] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @property
    def nothing_left(self) -> bool:
        return not self.leftovers
