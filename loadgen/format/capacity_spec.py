"""A table variant's `auto_scaling:` and `history:` in the playbook.

Both are the playbook's spelling of the emulator's own classes (emulator/autoscaling.py
`AutoScalingSpec` / `TargetTracking`, emulator/tableconfig.py `TableHistory`): a
playbook's block is validated by building that class, so the rules (target 20-90 %,
minimum at least 1, maximum at least the minimum, no negative history) live once, in
the emulator, and an error here says what the emulator would, in the playbook's words.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import Field, model_validator

from emulator.autoscaling import AutoScalingError, AutoScalingSpec, TargetTracking
from emulator.tableconfig import TableConfigError, TableHistory
from loadgen.format.workload_spec import StrictSpec

_PLAYBOOK_NAMES: Final = (
    ("TargetValue", "target_pct"),
    ("MinCapacity", "min"),
    ("MaxCapacity", "max"),
    ("ScaleOutCooldown", "scale_out_cooldown_s"),
    ("ScaleInCooldown", "scale_in_cooldown_s"),
)
"""The AWS field names the emulator's messages use, and the playbook's for each."""


def _in_playbook_words(message: str) -> str:
    for aws, ours in _PLAYBOOK_NAMES:
        message = message.replace(aws, ours)
    return message


class TargetTrackingSettings(StrictSpec):
    """Target tracking on one dimension (reads or writes) of a table or GSI: what
    RegisterScalableTarget (min, max) and PutScalingPolicy (the rest) are given."""

    target_pct: float
    """Target utilization of the provisioned capacity, percent (20 to 90)."""
    min: int
    """The least capacity the policy sets (MinCapacity)."""
    max: int
    """The most capacity the policy sets (MaxCapacity)."""
    scale_out_cooldown_s: float = 0.0
    scale_in_cooldown_s: float = 0.0
    disable_scale_in: bool = False

    @model_validator(mode="after")
    def _as_the_emulator_takes_it(self) -> TargetTrackingSettings:
        self.target_tracking()
        return self

    def target_tracking(self) -> TargetTracking:
        """This policy as the emulator's `TargetTracking` (ValueError naming the field
        when the emulator would refuse it)."""
        try:
            return TargetTracking(
                target_pct=self.target_pct,
                min_capacity=self.min,
                max_capacity=self.max,
                scale_out_cooldown_s=self.scale_out_cooldown_s,
                scale_in_cooldown_s=self.scale_in_cooldown_s,
                disable_scale_in=self.disable_scale_in,
            )
        except AutoScalingError as bad:
            raise ValueError(_in_playbook_words(str(bad))) from None


class AutoScalingSettings(StrictSpec):
    """`auto_scaling:` of a table or GSI: a policy for reads, writes or both."""

    read: TargetTrackingSettings | None = None
    write: TargetTrackingSettings | None = None

    @model_validator(mode="after")
    def _one_at_least(self) -> AutoScalingSettings:
        if self.read is None and self.write is None:
            raise ValueError("auto_scaling needs read, write or both (each {target_pct, min, max})")
        return self

    def spec(self) -> AutoScalingSpec:
        """The emulator's `AutoScalingSpec` for this block."""
        return AutoScalingSpec(
            read=None if self.read is None else self.read.target_tracking(),
            write=None if self.write is None else self.write.target_tracking(),
        )


class HistoryUnits(StrictSpec):
    """Read and write units per second (full scale); either may be omitted."""

    read: float | None = Field(default=None, ge=0)
    write: float | None = Field(default=None, ge=0)


class History(StrictSpec):
    """`history:` of a table that existed before the run (docs/model.md
    #how-partitions-are-made, rule 3): each value raises what it takes at once."""

    previous_on_demand_peak: HistoryUnits | None = None
    """The highest rate it served on demand (it absorbs double that at once)."""
    previous_provisioned: HistoryUnits | None = None
    """The highest capacity it was provisioned at (its partitions stay)."""
    previous_warm: HistoryUnits | None = None
    """Warm throughput set earlier (never lowered)."""

    @model_validator(mode="after")
    def _as_the_emulator_takes_it(self) -> History:
        if not self.table_history().known():
            raise ValueError(
                "history needs at least one of previous_on_demand_peak, "
                "previous_provisioned, previous_warm (each {read, write})"
            )
        return self

    def table_history(self) -> TableHistory:
        """The emulator's `TableHistory` for this block."""
        values: dict[str, Any] = {}
        for name in ("previous_on_demand_peak", "previous_provisioned", "previous_warm"):
            units: HistoryUnits | None = getattr(self, name)
            if units is None:
                continue
            if units.read is not None:
                values[f"{name}_read"] = units.read
            if units.write is not None:
                values[f"{name}_write"] = units.write
        try:
            return TableHistory(**values)
        except TableConfigError as bad:
            raise ValueError(str(bad)) from None
