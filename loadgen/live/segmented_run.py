"""A capacity-change phase live: the phase's UpdateTable made on the table the run uses,
through the DynamoDB API (the local emulator and AWS alike), and a run with such phases
driven as segments.

The workers run phases on a timeline fixed at their start barrier (T0 + each phase's
offset), and a `wait: active` phase lasts as long as DynamoDB takes, which nobody knows
ahead. So a run whose load holds capacity changes is run as segments: each stretch of
load phases on its own fleet run, and between two of them the change, made by the
runner (never by a worker) with `TableChanger.change`, which waits while the table is
UPDATING before it asks (DynamoDB refuses an UpdateTable on an UPDATING table:
https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html) and,
with `wait: active`, after. The segments' results are joined on one clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from loadgen.format.kinds import Control
from loadgen.format.playbook import Phase, Playbook
from loadgen.results.capacity_series import ChangeOutcome
from loadgen.results.records import PhaseResult, RunResult

MAX_WAIT_S = 4 * 3600.0
"""The longest the runner waits for a table to be ACTIVE (a split takes minutes)."""


class TableChanger(Protocol):
    """Changes a run's table between segments, and reads what its capacity did; each
    target has one (console.targets: the emulator's endpoint, an AWS account)."""

    def change(self, control: Control, table_name: str) -> ChangeOutcome:
        """Make the phase's UpdateTable (after waiting while the table is UPDATING); with
        `control.waits`, return once the table and its GSIs are ACTIVE again."""

    def capacity(self, table_name: str, start: float, end: float) -> dict[str, Any] | None:
        """The table's capacity series and events between `start` and `end` (this
        changer's `clock`), on the run's clock; None where the target cannot say."""

    def clock(self) -> float:
        """Now, on the clock `capacity` is read by."""


def described_busy(table: dict[str, Any]) -> bool:
    """Whether a DescribeTable's table (or one of its GSIs) is UPDATING or CREATING."""
    if table.get("TableStatus", "ACTIVE") != "ACTIVE":
        return True
    return any(
        g.get("IndexStatus", "ACTIVE") != "ACTIVE"
        for g in table.get("GlobalSecondaryIndexes") or []
    )


@dataclass
class ClientChanger:
    """A TableChanger over a DynamoDB client (boto3's: the emulator or AWS). `sleep`
    passes time while it waits (real time, or the emulator's skippable clock);
    `read_capacity(table, start, end)` is the target's reading of the capacity."""

    client: Any
    sleep: Callable[[float], None] = time.sleep
    poll_s: float = 1.0
    now: Callable[[], float] = time.monotonic
    read_capacity: Callable[[str, float, float], dict[str, Any] | None] = field(
        default=lambda _t, _s, _e: None
    )
    records_own: bool = False
    """Whether `capacity` adds the changes this changer made to what `read_capacity`
    found (where the source keeps no record of UpdateTable calls: AWS)."""
    made: list[dict[str, Any]] = field(default_factory=list)
    """The changes made, as capacity events on this changer's clock."""

    def _describe(self, table_name: str) -> dict[str, Any]:
        table: dict[str, Any] = self.client.describe_table(TableName=table_name)["Table"]
        return table

    def _wait(self, table_name: str) -> dict[str, Any]:
        started = self.now()
        table = self._describe(table_name)
        while described_busy(table) and self.now() - started < MAX_WAIT_S:
            self.sleep(self.poll_s)
            table = self._describe(table_name)
        return table

    def change(self, control: Control, table_name: str) -> ChangeOutcome:
        from botocore.exceptions import ClientError

        table = self._wait(table_name)  # no UpdateTable on an UPDATING table
        request = control.request(table_name, table)
        outcome = ChangeOutcome(request)
        asked = self.now()
        event: dict[str, Any] = {"t": asked, "index": None, "what": "UpdateTable"}
        event |= {"from": None, "to": None, "cause": "UpdateTable", "effective_at": None}
        event |= {"refused": None, "request": request}
        self.made.append(event)
        try:
            self.client.update_table(**request)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            outcome.error = str(error.get("Code") or "ClientError")
            outcome.message = str(error.get("Message") or exc)
            event["refused"] = outcome.error
            return outcome
        if control.waits:
            self._wait(table_name)
            outcome.active_after_s = round(self.now() - asked, 3)
            event["effective_at"] = self.now()
        return outcome

    def capacity(self, table_name: str, start: float, end: float) -> dict[str, Any] | None:
        found = self.read_capacity(table_name, start, end)
        own = [e for e in self.made if start <= e["t"] < end] if self.records_own else []
        if not own:
            return found
        out = found or {"$table": {"series": [], "events": []}}
        table = out.setdefault("$table", {"series": [], "events": []})
        for e in own:
            done = e["effective_at"]
            shifted = {**e, "t": round(e["t"] - start, 3)}
            shifted["effective_at"] = None if done is None else round(done - start, 3)
            table["events"].append(shifted)
        table["events"].sort(key=lambda e: e["t"])
        return out

    def clock(self) -> float:
        return self.now()


def segments(playbook: Playbook) -> list[list[tuple[int, Phase]]]:
    """The load's phases in stretches the workers run on one timeline: a control phase
    is a stretch of its own."""
    out: list[list[tuple[int, Phase]]] = []
    for i, phase in enumerate(playbook.load.phases):
        engine = phase.kind.engine
        if engine == "control" or not out or out[-1][0][1].kind.engine == "control":
            out.append([(i, phase)])
        else:
            out[-1].append((i, phase))
    return out


def has_changes(playbook: Playbook) -> bool:
    return any(p.kind.engine == "control" for p in playbook.load.phases)


RunSegment = Callable[[Playbook, int], RunResult]
"""Runs the load phases of a playbook (narrowed to one segment; the int: the segment's
number, for a fresh fleet run id) on a fleet and returns its result."""


def run_in_segments(
    playbook: Playbook,
    table: str,
    repeat: int,
    table_name: str,
    run_segment: RunSegment,
    changer: TableChanger,
    say: Callable[[str], None],
) -> RunResult:
    """One table run of a playbook with capacity changes: its load in segments, each
    change between them, joined on the run's clock (a segment starts where the last
    ended: the fleet's own start, a few seconds, is not part of the run's time)."""
    run = RunResult(table, repeat, 0.0)
    offset = 0.0
    started = changer.clock()
    anchored = False  # the run's clock put on the changer's at the first change
    for number, stretch in enumerate(segments(playbook)):
        _, first = stretch[0]
        if first.kind.engine == "control":
            control = first.kind.capacity_change()
            say(f"{first.name}: {control.words()}")
            at = changer.clock()
            if not anchored:
                # The fleets' barriers take seconds that are not the run's: the run's
                # time 0 on the changer's clock is put where the first change lands.
                started, anchored = at - offset, True
            outcome = changer.change(control, table_name)
            took = float(math.ceil(max(first.duration_s, changer.clock() - at) - 1e-9))
            say(f"{first.name}: {outcome.words()}")
            for second in range(int(offset), int(offset + took)):
                run.second(second)
            run.phases.append(
                PhaseResult(first.name, control.label, offset, took, 0, change=outcome)
            )
            offset += took
            continue
        # The segment's phases alone; criteria are judged on the joined run, not here.
        narrowed = playbook.model_copy(
            update={
                "load": playbook.load.model_copy(update={"phases": [p for _, p in stretch]}),
                "criteria": [],
            }
        )
        part = run_segment(narrowed, number)
        _join(run, part, offset)
        offset += part.duration_s
    run.duration_s = offset
    run.capacity = changer.capacity(table_name, started, changer.clock())
    return run


def _join(run: RunResult, part: RunResult, offset: float) -> None:
    """`part`'s counts, phases and notes into `run`, `offset` seconds in."""
    shift = int(offset)
    for t, counts in part.seconds.items():
        run.second(t + shift).add(counts)
    for t, its in part.iterations.items():
        run.iterations[t + shift] = its
    for phase in part.phases:
        phase.start_s += offset
        if phase.first_throttle_s is not None and run.first_throttle_s is None:
            run.first_throttle_s = phase.start_s + phase.first_throttle_s
        run.phases.append(phase)
    run.notes += part.notes
    run.partial = run.partial or part.partial
    run.workers = part.workers
    if part.latency is not None:
        if run.latency is None:
            run.latency = part.latency
        else:
            run.latency.merge(part.latency)
    if part.scheduled is not None:
        run.scheduled = (run.scheduled or 0) + part.scheduled


def emulator_changer(
    client: Any, endpoint: str, table_name: str, skip: Callable[[float], None] | None
) -> ClientChanger:
    """The changer of a table on a hotbench emulator at `endpoint`: waits on the
    emulator's clock (skipped, when it is our in-process emulator, so a 5-minute split
    costs no real time) and reads the capacity from its `/_hotbench/capacity` view."""
    import json
    import urllib.parse
    import urllib.request

    from loadgen.results.capacity_series import moved, run_capacity

    url = f"{endpoint.rstrip('/')}/_hotbench/capacity?table={urllib.parse.quote(table_name)}"

    def view() -> dict[str, Any]:
        with urllib.request.urlopen(url, timeout=5.0) as reply:
            out: dict[str, Any] = json.loads(reply.read())
        return out

    def now() -> float:
        return float(view()["now_s"])

    def read(_table: str, start: float, end: float) -> dict[str, Any] | None:
        capacity = run_capacity(view()["indexes"], start, end)
        return capacity if moved(capacity) else None

    try:
        now()
    except (OSError, ValueError, KeyError):
        # Another DynamoDB-compatible endpoint (DynamoDB Local): no view and no clock of
        # its own to read, so real time, and no capacity series.
        return ClientChanger(client, time.sleep, 1.0, time.monotonic)
    return ClientChanger(client, skip or time.sleep, 1.0, now, read)
