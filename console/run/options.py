"""Per-step choices that are not settings: they belong to one run, not to the machine."""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.emulator_options import EmulatorOptions
from loadgen.format.trim import Trim


@dataclass(frozen=True)
class UpOptions:
    """Fixed at `up` and kept in the run state (the plan prices them)."""

    workers: int = 2
    """Worker processes locally; on AWS Fargate tasks, or Lambda invocations at a time (at
    least enough that none offers more than one worker can, lambda_fleet.py)."""
    scale: float = 0.1
    """Local: the emulator's scale and the fraction of the playbook's rates offered
    (figures are reported in full-scale units). AWS runs at 1."""
    task_cpu: int = 1024
    """AWS: Fargate task CPU units (1024 = 1 vCPU)."""
    task_memory: int = 2048
    """AWS: Fargate task memory in MiB."""
    cpu_architecture: str = "X86_64"
    """AWS: the workers' CPU architecture (Fargate tasks and Lambda functions alike)."""
    lambda_memory_mb: int | None = None
    """AWS Lambda: each function's memory in MB (CPU grows with it); None: sized to each
    worker's share of the rate (console/targets/fleets/lambda_fleet.py)."""
    emulator: EmulatorOptions = field(
        default_factory=lambda: EmulatorOptions(store="keys", create_delay_s=0.0)
    )
    """Local: the emulator `up` starts (its scale is the run's): its item store (a
    playbook's items are synthetic, so keys by default), its memory bound, its CreateTable
    -> ACTIVE delay (none by default) and its capacity parameters (`--params FILE`, an
    absolute path). AWS has its own."""
    seed_items: int | None = None
    """The most items the run will seed per table (`--seed-items` of `run` or the
    console; None: the playbook's seed_items), so the plan shows, times and prices the
    seeding the run does."""
    trim: Trim = field(default_factory=Trim)
    """The playbook shortened for a first try (`--duration-scale`, `--table`, `--phase`):
    the plan prices it, and `up` keeps the trimmed playbook as the run's copy."""


@dataclass(frozen=True)
class WarmTarget:
    """A warm throughput to set on a table (index None) or one of its GSIs."""

    variant: str
    index: str | None = None
    read: int | None = None
    write: int | None = None


@dataclass(frozen=True)
class RunOptions:
    """How the `run` step drives the load (as `hotbench run`'s flags)."""

    pause_scale: float = 1.0
    """Share of each pause between repeats waited in real time (the emulator is a
    separate process here, so its clock cannot be skipped: shorter pauses shorten the
    physics too)."""
    seed_items: int | None = None
    """Seed at most this many items per table (None: the playbook's seed_items)."""
    barrier_timeout_s: float | None = None
    """Seconds the start barrier waits from the fleet's start; None: the target's
    default (60 s locally, 300 s on AWS, where a task pulls its image first)."""
    timeout_s: float | None = None
    """Per-request timeout (None: the instrument's default)."""
