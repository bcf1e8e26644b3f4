"""One request per iteration: `operation: put` (the default), with `consistent_read` for
reads. At open arrivals without the application's retries this is every playbook's
first kind, which the `requests` engines run (tests/golden)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from loadgen.format.kinds.families import Iterations
from loadgen.format.workload_spec import GetStep, PutStep, QueryStep, UpdateStep

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase
    from loadgen.format.workload_spec import AnyStep


@dataclass(frozen=True, slots=True)
class OneOperation(Iterations):
    name = "one operation"
    fields = ("operation", "consistent_read")
    one_request = True

    operation: str
    consistent_read: bool = False

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return "operation" in phase.model_fields_set

    @classmethod
    def read(cls, phase: Phase) -> OneOperation:
        return cls(phase.operation, phase.consistent_read)

    @property
    def label(self) -> str:
        return self.operation

    @property
    def entries(self) -> tuple[AnyStep, ...]:
        """The operation as a step of weight 1, so that a closed loop of one operation
        runs through the interpreter as a mix of one entry."""
        return (self.step(),)

    def step(self) -> AnyStep:
        op = self.operation
        if op == "get":
            return GetStep(op="get", name="get", weight=1.0, consistent_read=self.consistent_read)
        if op == "query":
            return QueryStep(
                op="query", name="query", weight=1.0, consistent_read=self.consistent_read
            )
        if op == "update":
            return UpdateStep(op="update", name="update", weight=1.0)
        return PutStep(op="put", name="put", weight=1.0)

    def summary(self, load: str, tail: str) -> str:
        return f"{self.operation} {load} {tail}"
