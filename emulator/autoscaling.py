"""Application Auto Scaling target tracking for DynamoDB, as the model runs it.

A table or GSI under auto scaling has a policy per scalable dimension (read capacity,
write capacity), each with a target utilization, a minimum and a maximum, cooldowns and
whether it may scale in [AWS]. It sees the table as CloudWatch does, 1-minute sums of
the consumed units, and acts through the two alarms target tracking creates [AWS,
docs/reference.md#auto-scaling-target-tracking]:

- AlarmHigh: `autoscale_out_datapoints` (2) consecutive datapoints above the target
  utilization of the provisioned capacity -> scale out to the consumption divided by the
  target;
- AlarmLow: `autoscale_in_datapoints` (15) consecutive datapoints under the target minus
  `autoscale_in_margin_pct` (20) points -> scale in likewise.

An alarm in ALARM invokes the policy once a minute while it stays there [AWS], so an
action that could not run (the table was UPDATING, a decrease over the day's limit) is
tried again at the next datapoint. The action is an UpdateTable under DynamoDB's own rules
(`emulator/capacity_changes.py`): it takes time to apply, and decreases are limited.

Everything here is pure: no clock is read (the model's tick passes the time) and nothing
runs for a table without a policy (no scaler object exists for it).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from emulator.buckets import MeteredBucket
from emulator.capacity_changes import ChangeRefused, change_capacity
from emulator.capacity_record import ScalingEvent
from emulator.params import CapacityParams

if TYPE_CHECKING:
    from emulator.capacity import TableCapacity

READ: Final = "read"
WRITE: Final = "write"

TARGET_LOW: Final = 20.0
TARGET_HIGH: Final = 90.0
"""[AWS reference.md#auto-scaling-target-tracking] "You can set the auto scaling target
utilization values between 20 and 90 percent" (floats, not a tuple: compiled, a Final
float is a constant, a Final tuple a module static that an import cycle can leave unset)."""
MIN_CAPACITY: Final = 1
"""[AWS] the least provisioned capacity of a table or GSI (1 read and 1 write unit)."""


class AutoScalingError(ValueError):
    """An auto-scaling setting the model cannot take; the text names the field and the
    values it accepts."""


@dataclass(frozen=True)
class TargetTracking:
    """One scalable dimension's target tracking: RegisterScalableTarget's MinCapacity and
    MaxCapacity and PutScalingPolicy's TargetTrackingScalingPolicyConfiguration, whose
    cooldowns default to 0 s for DynamoDB and scale-in to enabled [AWS]."""

    target_pct: float
    min_capacity: int
    max_capacity: int
    scale_out_cooldown_s: float = 0.0
    scale_in_cooldown_s: float = 0.0
    disable_scale_in: bool = False

    def __post_init__(self) -> None:
        if not TARGET_LOW <= self.target_pct <= TARGET_HIGH:
            raise AutoScalingError(
                f"TargetValue must be from {TARGET_LOW:g} to {TARGET_HIGH:g} (percent), "
                f"got {self.target_pct:g}"
            )
        if self.min_capacity < MIN_CAPACITY:
            raise AutoScalingError(
                f"MinCapacity must be at least {MIN_CAPACITY}, got {self.min_capacity}"
            )
        if self.max_capacity < self.min_capacity:
            raise AutoScalingError(
                f"MaxCapacity ({self.max_capacity}) must be at least MinCapacity "
                f"({self.min_capacity})"
            )
        for name, value in (
            ("ScaleOutCooldown", self.scale_out_cooldown_s),
            ("ScaleInCooldown", self.scale_in_cooldown_s),
        ):
            if value < 0:
                raise AutoScalingError(f"{name} must be 0 or more seconds, got {value:g}")

    def as_request(self) -> dict[str, Any]:
        """The AWS-shaped form the control route takes and shows."""
        return {
            "MinCapacity": self.min_capacity,
            "MaxCapacity": self.max_capacity,
            "TargetTrackingScalingPolicyConfiguration": {
                "TargetValue": self.target_pct,
                "ScaleOutCooldown": self.scale_out_cooldown_s,
                "ScaleInCooldown": self.scale_in_cooldown_s,
                "DisableScaleIn": self.disable_scale_in,
            },
        }

    @classmethod
    def from_request(cls, raw: Any, where: str) -> TargetTracking:
        """From {MinCapacity, MaxCapacity, TargetTrackingScalingPolicyConfiguration:
        {TargetValue, ScaleOutCooldown, ScaleInCooldown, DisableScaleIn}}."""
        if not isinstance(raw, dict):
            raise AutoScalingError(f"{where} must be an object")
        _known(
            raw, ("MinCapacity", "MaxCapacity", "TargetTrackingScalingPolicyConfiguration"), where
        )
        policy = raw.get("TargetTrackingScalingPolicyConfiguration")
        if not isinstance(policy, dict):
            raise AutoScalingError(
                f"{where}.TargetTrackingScalingPolicyConfiguration is required "
                "(an object with TargetValue)"
            )
        _known(
            policy,
            ("TargetValue", "ScaleOutCooldown", "ScaleInCooldown", "DisableScaleIn"),
            f"{where}.TargetTrackingScalingPolicyConfiguration",
        )
        disable = policy.get("DisableScaleIn", False)
        if not isinstance(disable, bool):
            raise AutoScalingError(f"{where}...DisableScaleIn must be true or false")
        return cls(
            target_pct=_number(policy.get("TargetValue"), f"{where}...TargetValue"),
            min_capacity=_whole(raw.get("MinCapacity"), f"{where}.MinCapacity"),
            max_capacity=_whole(raw.get("MaxCapacity"), f"{where}.MaxCapacity"),
            scale_out_cooldown_s=_number(
                policy.get("ScaleOutCooldown", 0), f"{where}...ScaleOutCooldown"
            ),
            scale_in_cooldown_s=_number(
                policy.get("ScaleInCooldown", 0), f"{where}...ScaleInCooldown"
            ),
            disable_scale_in=disable,
        )


@dataclass(frozen=True)
class AutoScalingSpec:
    """A table's or GSI's auto scaling: a policy for reads, for writes, or both."""

    read: TargetTracking | None = None
    write: TargetTracking | None = None

    def policies(self) -> list[tuple[str, TargetTracking]]:
        out = []
        if self.read is not None:
            out.append((READ, self.read))
        if self.write is not None:
            out.append((WRITE, self.write))
        return out

    def as_request(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.read is not None:
            out["Read"] = self.read.as_request()
        if self.write is not None:
            out["Write"] = self.write.as_request()
        return out

    @classmethod
    def from_request(cls, raw: Any, where: str = "auto scaling") -> AutoScalingSpec:
        """From {Read: {...}, Write: {...}} (each as `TargetTracking.from_request`)."""
        if not isinstance(raw, dict):
            raise AutoScalingError(f"{where} must be an object with Read and/or Write")
        _known(raw, ("Read", "Write"), where)
        read = raw.get("Read")
        write = raw.get("Write")
        if read is None and write is None:
            raise AutoScalingError(f"{where} needs Read, Write or both")
        return cls(
            read=None if read is None else TargetTracking.from_request(read, f"{where}.Read"),
            write=None if write is None else TargetTracking.from_request(write, f"{where}.Write"),
        )


def _known(raw: dict[str, Any], names: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise AutoScalingError(f"{where}: unknown field {unknown[0]!r} (valid: {', '.join(names)})")


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise AutoScalingError(f"{where} must be a number, got {value!r}")
    return float(value)


def _whole(value: Any, where: str) -> int:
    number = _number(value, where)
    if number != int(number):
        raise AutoScalingError(f"{where} must be a whole number of capacity units, got {value!r}")
    return int(number)


@dataclass(frozen=True)
class ScalingWish:
    """What a policy asks for at one evaluation: `capacity` units of its dimension,
    because of `cause`; `scale_out` tells the direction (for the cooldowns)."""

    capacity: int
    scale_out: bool
    cause: str


class DimensionScaler:
    """One scalable dimension under target tracking at run time: its CloudWatch view
    (1-minute sums of the consumed units, read from a metered bucket) and its two alarms.

    The model's tick calls `tick` once a second; a datapoint closes at each period's end
    and reaches the alarms `autoscale_alarm_delay_s` later, when `evaluate` may return a
    wish. The table carries it out under DynamoDB's rules and reports back (`done`)."""

    __slots__ = (
        "arrivals",
        "bucket",
        "dimension",
        "in_blocked_until",
        "index",
        "last_total",
        "next_close",
        "out_blocked_until",
        "points",
        "policy",
        "refusal",
    )

    def __init__(
        self,
        index: str | None,
        dimension: str,
        policy: TargetTracking,
        bucket: MeteredBucket,
        now: float,
        p: CapacityParams,
    ) -> None:
        self.index = index
        self.dimension = dimension
        self.policy = policy
        self.bucket = bucket
        period = p.autoscale_period_s
        # The minute the policy starts in is not seen whole: the first datapoint is the
        # first whole period after it [?: CloudWatch has the earlier minutes too, but the
        # model begins counting only here].
        self.next_close = (math.floor(now / period) + 1) * period
        self.last_total = bucket.consumed
        self.arrivals: deque[tuple[float, float]] = deque()
        """(when the alarms see it, units consumed in its period), in order."""
        self.points: deque[float] = deque(
            maxlen=max(p.autoscale_out_datapoints, p.autoscale_in_datapoints)
        )
        """The datapoints the alarms have seen, newest last (full-scale unit sums)."""
        self.out_blocked_until = -math.inf
        self.in_blocked_until = -math.inf
        self.refusal: str | None = None
        """The last refusal recorded, so a limit hit every minute is recorded once."""

    def tick(self, now: float, p: CapacityParams) -> bool:
        """Close the periods that ended by `now`; True when a datapoint reached the
        alarms (evaluate then)."""
        while now >= self.next_close:
            total = self.bucket.consumed
            self.arrivals.append(
                (self.next_close + p.autoscale_alarm_delay_s, (total - self.last_total) / p.scale)
            )
            self.last_total = total
            self.next_close += p.autoscale_period_s
        arrived = False
        while self.arrivals and self.arrivals[0][0] <= now:
            self.points.append(self.arrivals.popleft()[1])
            arrived = True
        return arrived

    def evaluate(self, now: float, provisioned: float, p: CapacityParams) -> ScalingWish | None:
        """The alarms on the datapoints seen so far, against the capacity in force; the
        capacity to ask for, or None. Outside [min, max] the policy first brings the
        capacity inside it [AWS: a scalable target keeps its capacity within its bounds]."""
        policy = self.policy
        unit = "RCU" if self.dimension == READ else "WCU"
        if provisioned < policy.min_capacity:
            return ScalingWish(
                policy.min_capacity, True, f"auto scaling: under the minimum capacity ({unit})"
            )
        if provisioned > policy.max_capacity:
            return ScalingWish(
                policy.max_capacity, False, f"auto scaling: over the maximum capacity ({unit})"
            )
        target = policy.target_pct / 100.0
        period = p.autoscale_period_s
        full = provisioned * period  # one period's sum at 100 % utilization
        n_out = p.autoscale_out_datapoints
        recent = list(self.points)
        if len(recent) >= n_out and now >= self.out_blocked_until:
            out = recent[-n_out:]
            if all(v > target * full for v in out):
                wanted = _capacity(min(out) / period / target, policy)
                if wanted > provisioned:
                    return ScalingWish(
                        wanted,
                        True,
                        f"auto scaling: scale-out alarm ({n_out} x 1 min > "
                        f"{policy.target_pct:g} % of {provisioned:g} {unit}: "
                        f"{_percents(out, full)})",
                    )
        n_in = p.autoscale_in_datapoints
        if policy.disable_scale_in or len(recent) < n_in or now < self.in_blocked_until:
            return None
        low_pct = policy.target_pct - p.autoscale_in_margin_pct
        window = recent[-n_in:]
        if all(v < low_pct / 100.0 * full for v in window):
            wanted = _capacity(max(window) / period / target, policy)
            if wanted < provisioned:
                return ScalingWish(
                    wanted,
                    False,
                    f"auto scaling: scale-in alarm ({n_in} x 1 min < {low_pct:g} % of "
                    f"{provisioned:g} {unit}, peak {_percents([max(window)], full)})",
                )
        return None

    def done(self, wish: ScalingWish, effective_at: float) -> None:
        """The table took the change; cooldowns run from when it is in force [AWS: "after
        a scale out activity completes"]. A scale-out is never held back by a scale-in
        cooldown [AWS]."""
        self.refusal = None
        if wish.scale_out:
            self.out_blocked_until = effective_at + self.policy.scale_out_cooldown_s
        else:
            self.in_blocked_until = effective_at + self.policy.scale_in_cooldown_s


def _capacity(units_per_s: float, policy: TargetTracking) -> int:
    """Capacity units for a consumption at the target utilization, rounded up, within
    the policy's bounds [? the rounding: capacity is set in whole units]."""
    wanted = math.ceil(units_per_s - 1e-9)
    return max(policy.min_capacity, min(policy.max_capacity, wanted))


def _percents(values: list[float], full: float) -> str:
    return ", ".join(f"{100.0 * v / full:.0f} %" for v in values) if full > 0 else "-"


def run_scalers(table: TableCapacity, now: float) -> None:
    """Once a second (the table's tick): each policy whose datapoint arrived evaluates
    its alarms, and its wish becomes an UpdateTable of that one dimension. On demand a
    policy is kept but does nothing [AWS: the settings stay, inactive]; while the table
    or GSI is UPDATING the wish waits for the next datapoint (the alarm invokes the policy
    again a minute later [AWS]); a refusal is recorded once until a change succeeds."""
    p = table.p
    for scaler in table.scalers:
        if not scaler.tick(now, p):
            continue
        index = table.index(scaler.index)
        limits = index.limits
        if not limits.provisioned:
            continue
        read = scaler.dimension == READ
        current = (limits.rcu if read else limits.wcu) or 0.0
        wish = scaler.evaluate(now, current, p)
        if wish is None:
            continue
        if table.base.pending_limits is not None or index.pending_limits is not None:
            continue
        wanted = (
            replace(limits, rcu=float(wish.capacity))
            if read
            else replace(limits, wcu=float(wish.capacity))
        )
        try:
            events = change_capacity(table, {scaler.index: wanted}, now, wish.cause)
        except ChangeRefused as refused:
            # Nobody else would see a refusal of auto scaling's: it goes in the record,
            # once until a change succeeds (the alarm asks again every minute).
            if scaler.refusal != refused.error:
                scaler.refusal = refused.error
                index.record.events.append(
                    ScalingEvent(
                        now,
                        scaler.index,
                        scaler.dimension,
                        current,
                        float(wish.capacity),
                        wish.cause,
                        refused=f"{refused.error}: {refused.message}",
                    )
                )
            continue
        effective = [e.effective_at for e in events if e.effective_at is not None]
        scaler.done(wish, max(effective) if effective else now)
