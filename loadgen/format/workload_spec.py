"""The playbook format of load models beyond one operation at an open rate.

A phase's load is an open arrival rate (`rate`/`ramp`, as before) or a closed population
(`users`, optionally ramped, with `think_s` or `pacing_s` between iterations), and does
one of: `operation` (as before), a weighted `mix` of operations, or a named `scenario`
of ordered steps with per-user variables. This module holds those parts of the format;
`loadgen.format.playbook` builds the phase from them, and `loadgen.load.scenario` interprets them
for the simulation and the live worker alike (one interpreter).

Why steps are separate models per operation (discriminated by `op`): an unknown field
on a step can then be answered with the fields valid for THAT operation, the way the
rest of the playbook's validation answers a typo.
"""

from __future__ import annotations

import random
import string
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

VAR_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"

BUILTIN_VARS = {
    "user": "the user's number, 0..users-1",
    "iteration": "the user's iteration number, from 0",
    "n": "a batch or transaction member's number, from 0 (batch and transaction keys only)",
    "seq": "a number that grows by one per use across the phase: inserts grow the key space",
    "now": "the time of the step in whole milliseconds (virtual in simulation)",
}
"""Names a key template may use without declaring them, and what each holds."""


FailureReason = Literal[
    "lock_timeout",
    "condition_failed",
    "throttled",
    "retries_exhausted",
    "unprocessed_items",
    "transaction_cancelled",
    "error",
]
"""Why an iteration failed; `throttled` with one attempt, `retries_exhausted` after the
SDK retried. Part of the format: a criterion names one (scenario_failure_rate)."""

FAILURE_REASONS: tuple[str, ...] = FailureReason.__args__  # type: ignore[attr-defined]


class StrictSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- the application's SDK retries ---------------------------------------------------------

RetryMode = Literal["none", "standard", "legacy", "adaptive"]


class RetrySpec(StrictSpec):
    """The application's SDK retry policy (not the instrument's: hotbench itself never
    retries a measured request). `none` keeps one attempt per request, as every
    playbook did before; the others are botocore's modes with their documented
    constants as defaults (loadgen.load.sdk_retry holds them)."""

    mode: RetryMode = "none"
    max_attempts: int | None = Field(default=None, ge=1, le=100)
    """Attempts including the first; default the mode's own (standard 3, legacy 10 for
    DynamoDB, adaptive 3)."""

    @model_validator(mode="before")
    @classmethod
    def _a_mode_alone(cls, data: Any) -> Any:
        # `retry: standard` is the short form of `retry: {mode: standard}`.
        return {"mode": data} if isinstance(data, str) else data


# --- step parts ----------------------------------------------------------------------------

KeyTemplate = dict[str, str | int]
"""Attribute name -> value or template such as "LOCK#{namespace}" or "user{seq}". Key
attributes a step leaves out are drawn from the load's attribute distributions, as a
single-operation phase draws them."""

Condition = Literal["attribute_not_exists", "version"]
"""attribute_not_exists: the write succeeds only on a new item. version: only when the
item's version equals the user's `version_var`; the write sets the next version."""

Capturable = Literal["now", "items", "bytes", "version", "last_key"]
"""What a step's result can be captured into a user variable: the time the step ended
(a watermark for "what changed since"), the items or bytes it returned, the item's
version, the last evaluated key of a page."""

OnFailure = Literal["fail", "continue", "retry"]
OnUnprocessed = Literal["retry", "fail", "ignore"]


class Backoff(StrictSpec):
    """Exponential backoff with full jitter between polls or application retries."""

    initial_s: float = Field(default=0.05, gt=0, le=60)
    max_s: float = Field(default=2.0, gt=0, le=600)
    multiplier: float = Field(default=2.0, ge=1, le=10)


class ThinkRange(StrictSpec):
    """A think time drawn uniformly between min and max seconds (Locust's `between`)."""

    min: float = Field(ge=0)
    max: float = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> ThinkRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min:g} is above max {self.max:g}")
        return self


Think = float | ThinkRange


def think_seconds(think: Think, rng: random.Random) -> float:
    """One pause: a fixed think time, or uniform in its range (the one rule of a
    scenario's steps and of a user's think between iterations, simulated and live)."""
    if isinstance(think, ThinkRange):
        return rng.uniform(think.min, think.max)
    return float(think)


def think_words(think: Think) -> str:
    """A think time for people: `1.5 s`, `1-3 s`."""
    if isinstance(think, ThinkRange):
        return f"{think.min:g}-{think.max:g} s"
    return f"{think:g} s"


def think_mean(think: Think | None) -> float:
    """A think time's mean seconds (a range's midpoint; none: 0), for what is worked
    out ahead of a run (advise's cycle times, the engine's start spread)."""
    if think is None:
        return 0.0
    if isinstance(think, ThinkRange):
        return (think.min + think.max) / 2
    return float(think)


class _Step(StrictSpec):
    """What every step has: a name, repeats, a pause after, a failure policy, captures."""

    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]{1,100}$")
    """Names the step in results (p50/p99 per step); required in a scenario, default the
    operation in a mix."""
    weight: float | None = Field(default=None, gt=0)
    """A mix entry's share (any positive numbers; they are normalised). Mix only."""
    repeat: int = Field(default=1, ge=1, le=10_000)
    """Times the step runs in a row within one iteration."""
    think_s: Think = 0.0
    """Pause after the step (each repeat)."""
    on_failure: OnFailure = "fail"
    """fail: end the iteration as failed; continue: go on to the next step; retry: run the
    step again after `retry_backoff`, up to `retry_attempts` more times, then fail."""
    retry_attempts: int = Field(default=3, ge=1, le=100)
    retry_backoff: Backoff = Field(default_factory=Backoff)
    capture: dict[str, Capturable] = Field(default_factory=dict)
    """User variable -> what of this step's result to keep in it (for later steps and the
    next iterations)."""

    @property
    def label(self) -> str:
        return self.name or str(getattr(self, "op", "step"))


class _WriteStep(_Step):
    key: KeyTemplate = Field(default_factory=dict)
    size_bytes: int | None = Field(default=None, ge=1, le=400 * 1024)
    """Item size written; default the table's item_size_bytes."""
    attributes: KeyTemplate = Field(default_factory=dict)
    """Other attributes written (index keys, a timestamp); default drawn as the keys are."""
    condition: Condition | None = None
    version_var: str = Field(default="version", pattern=VAR_PATTERN)


class GetStep(_Step):
    op: Literal["get"]
    key: KeyTemplate = Field(default_factory=dict)
    consistent_read: bool = False


class PutStep(_WriteStep):
    op: Literal["put"]


class UpdateStep(_WriteStep):
    op: Literal["update"]


class DeleteStep(_Step):
    op: Literal["delete"]
    key: KeyTemplate = Field(default_factory=dict)
    condition: Condition | None = None
    version_var: str = Field(default="version", pattern=VAR_PATTERN)


class QueryStep(_Step):
    op: Literal["query"]
    index: str | None = None
    """A GSI of the table; default the table itself."""
    key: KeyTemplate = Field(default_factory=dict)
    """The partition key value (of the index when `index` is set)."""
    collection: bool = False
    """Read the item collection actually stored under the key (paged at 1 MB, charged by
    the items' summed size); false reads one item, as a single-operation query does."""
    since: str | None = Field(default=None, pattern=VAR_PATTERN)
    """Only the items written after the time held in this user variable (a watermark a
    previous step captured with `now`); needs a sort key that grows with time."""
    limit: int | None = Field(default=None, ge=1)
    """Items per page (DynamoDB's Limit)."""
    pages: int | None = Field(default=None, ge=1)
    """At most this many pages; default every page."""
    consistent_read: bool = False


class ScanStep(_Step):
    op: Literal["scan"]
    index: str | None = None
    segments: int = Field(default=1, ge=1, le=1_000_000)
    """Parallel scan segments (TotalSegments); this user scans segment user % segments."""
    pages: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=1)
    consistent_read: bool = False


class BatchWriteStep(_Step):
    op: Literal["batch_write"]
    items: int = Field(ge=1, le=25)
    """Puts (or deletes) in one BatchWriteItem: DynamoDB takes at most 25."""
    key: KeyTemplate = Field(default_factory=dict)
    """Each member's key; `{n}` is the member's number."""
    size_bytes: int | None = Field(default=None, ge=1, le=400 * 1024)
    attributes: KeyTemplate = Field(default_factory=dict)
    """Other attributes each member writes (index keys); `{n}` is the member's number."""
    delete: bool = False
    on_unprocessed: OnUnprocessed = "retry"
    """What the application does with UnprocessedItems: resend them (up to
    `unprocessed_retries` times, with `retry_backoff`), fail the step, or ignore them."""
    unprocessed_retries: int = Field(default=8, ge=0, le=100)


class BatchGetStep(_Step):
    op: Literal["batch_get"]
    keys: int = Field(ge=1, le=100)
    """Keys in one BatchGetItem: DynamoDB takes at most 100."""
    key: KeyTemplate = Field(default_factory=dict)
    on_unprocessed: OnUnprocessed = "retry"
    unprocessed_retries: int = Field(default=8, ge=0, le=100)
    consistent_read: bool = False


class TransactMember(StrictSpec):
    """One action of a transaction, on its own item."""

    action: Literal["put", "update", "delete", "condition_check"]
    key: KeyTemplate = Field(default_factory=dict)
    size_bytes: int | None = Field(default=None, ge=1, le=400 * 1024)
    condition: Condition | None = None
    version_var: str = Field(default="version", pattern=VAR_PATTERN)

    @model_validator(mode="after")
    def _check_has_condition(self) -> TransactMember:
        if self.action == "condition_check" and self.condition is None:
            raise ValueError("a condition_check needs a condition")
        return self


class TransactWriteStep(_Step):
    op: Literal["transact_write"]
    members: list[TransactMember] = Field(min_length=1, max_length=100)


class TransactGetMember(StrictSpec):
    key: KeyTemplate = Field(default_factory=dict)


class TransactGetStep(_Step):
    op: Literal["transact_get"]
    members: list[TransactGetMember] = Field(min_length=1, max_length=100)


class LockStep(_Step):
    """Acquire a lock item: a conditional PutItem that succeeds when the item is absent
    or expired (`attribute_not_exists(pk) OR expiresAt < :now`), polled with backoff up
    to `wait_s`; held until a `release` step names it, renewed every `heartbeat_s`."""

    op: Literal["lock"]
    key: KeyTemplate = Field(default_factory=dict)
    ttl_s: float = Field(default=30.0, gt=0, le=86_400)
    wait_s: float = Field(default=60.0, ge=0, le=86_400)
    """Give up (the iteration fails with lock_timeout) after polling this long."""
    poll: Backoff = Field(default_factory=Backoff)
    heartbeat_s: float | None = Field(default=None, gt=0)
    """Renew the lock (an UpdateItem of expiresAt) this often while it is held."""
    size_bytes: int = Field(default=100, ge=1, le=400 * 1024)


class ReleaseStep(_Step):
    """Release a lock: a DeleteItem conditional on this user still owning it."""

    op: Literal["release"]
    lock: str
    """The name of the lock step it releases."""


class ThinkStep(_Step):
    op: Literal["think"]
    seconds: Think


class ScenarioCall(_Step):
    """A mix entry that runs a named scenario as one iteration (YCSB F's
    read-modify-write is a two-step scenario in a mix with plain reads)."""

    op: Literal["scenario"]
    scenario: str


Operation = Literal[
    "get",
    "put",
    "update",
    "delete",
    "query",
    "scan",
    "batch_write",
    "batch_get",
    "transact_write",
    "transact_get",
]
"""A request as DynamoDB sees it (a lock is a conditional put; a release a delete)."""

OPERATIONS: tuple[str, ...] = (*get_args(Operation), "lock", "release", "think", "scenario")
"""Every `op` a step may have: the requests, and the steps the interpreter makes of
them (a lock, its release, a think, a call of a scenario)."""


def step_tag(op: str) -> str:
    """The tag pydantic puts in an error's location for a step of `op`: marked with
    `op=` so the playbook's error path can tell it from a field name."""
    return f"op={op}"


def _op_of(data: Any) -> str | None:
    op = data.get("op") if isinstance(data, dict) else getattr(data, "op", None)
    return step_tag(op) if isinstance(op, str) and op in OPERATIONS else None


Step = Annotated[
    Annotated[GetStep, Tag("op=get")]
    | Annotated[PutStep, Tag("op=put")]
    | Annotated[UpdateStep, Tag("op=update")]
    | Annotated[DeleteStep, Tag("op=delete")]
    | Annotated[QueryStep, Tag("op=query")]
    | Annotated[ScanStep, Tag("op=scan")]
    | Annotated[BatchWriteStep, Tag("op=batch_write")]
    | Annotated[BatchGetStep, Tag("op=batch_get")]
    | Annotated[TransactWriteStep, Tag("op=transact_write")]
    | Annotated[TransactGetStep, Tag("op=transact_get")]
    | Annotated[LockStep, Tag("op=lock")]
    | Annotated[ReleaseStep, Tag("op=release")]
    | Annotated[ThinkStep, Tag("op=think")]
    | Annotated[ScenarioCall, Tag("op=scenario")],
    Discriminator(
        _op_of,
        custom_error_type="step_op",
        custom_error_message="op must be one of: " + ", ".join(OPERATIONS),
    ),
]
"""One step of a scenario or one entry of a mix."""

AnyStep = (
    GetStep
    | PutStep
    | UpdateStep
    | DeleteStep
    | QueryStep
    | ScanStep
    | BatchWriteStep
    | BatchGetStep
    | TransactWriteStep
    | TransactGetStep
    | LockStep
    | ReleaseStep
    | ThinkStep
    | ScenarioCall
)
"""The static type of a validated step (for type hints; `Step` validates)."""


class Users(StrictSpec):
    """A population that moves from `start` to `end` users over the phase, linearly or in
    `steps` (k6's ramping-vus, Gatling's rampConcurrentUsers)."""

    start: int = Field(ge=0, le=100_000)
    end: int = Field(ge=0, le=100_000)
    steps: int | None = Field(default=None, ge=1)


def template_names(template: str | int) -> list[str]:
    """The variable names a key template refers to ("LOCK#{ns}" -> ["ns"])."""
    if not isinstance(template, str):
        return []
    try:
        return [name for _, name, _, _ in string.Formatter().parse(template) if name]
    except ValueError:
        return ["{"]  # an unbalanced brace: reported as an unknown name "{"


def step_templates(step: AnyStep) -> list[tuple[tuple[str | int, ...], str | int]]:
    """Every template a step holds, each with its location inside the step."""
    out: list[tuple[tuple[str | int, ...], str | int]] = []
    for field in ("key", "attributes"):
        for attr, value in (getattr(step, field, None) or {}).items():
            out.append(((field, attr), value))
    for m, member in enumerate(getattr(step, "members", None) or []):
        for attr, value in member.key.items():
            out.append((("members", m, "key", attr), value))
    return out
