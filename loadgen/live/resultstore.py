"""The run's results table: plan, barrier and counts, out of band.

Everything a run needs to be finished lives here as items, never only in a connection or
in the coordinator's memory (M4: "runners write their results as items in a small
DynamoDB results table; the driver polls until it has a row per runner"). Layout, one
partition per run (pk `run_id` S, sk `item` S):

    plan                  the RunPlan (playbook, table, scale, fleet size, limits)
    start#<w>             worker w claimed its start (conditional: a second start refuses)
    ready#<w>             worker w is at the barrier
    go                    T0 (wall clock) and the workers admitted, written by the coordinator
    abort                 the coordinator gave up (message); workers waiting leave
    progress#<w>          worker w's counts so far, rewritten every few seconds
    final#<w>             worker w's last word: status, counts, histogram, snapshot
    refused#<w>#<stamp>   a duplicate start of worker w that refused (and why)

A run split into windows (loadgen.live.windows: a Lambda invocation lasts 15 minutes at
most) has one claim and one pair of reports per worker and window: window 0 keeps the
keys above, window j > 0 adds `#w<j>` (`start#3#w1`, `progress#3#w1`, `final#3#w1`).

Bodies are zlib-compressed JSON in a binary attribute `body`; a body over 350 KB is split
into `<sk>#part#<version>#<i>` items written before its head item, which names the
version: a reader never sees a head whose parts are missing, nor mixes the parts of two
writes (a rewrite makes new part items, then the new head, then deletes the old parts; a
reader that finds a part gone re-reads the head). These control writes use boto3 with its
standard retries: they are not measurements, and losing one would lose a worker. A retry
of a conditional write can fail its own condition when the first attempt's reply was lost,
so the start claim carries this process's token and a claim that finds its own token is
its own. Every item carries `expires_at` (epoch seconds), the results table's TTL
attribute (terraform/modules/results-table), so a forgotten run's items go away by
themselves even if the table outlives it.
"""

from __future__ import annotations

import json
import secrets
import time
import zlib
from typing import Any

from loadgen.live.messages import COMPLETE, RUNNING, PhaseShare, RunPlan, WorkerReport
from loadgen.live.windows import Slot
from loadgen.results.iteration_results import at_second

PART_BYTES = 350_000
ITEM_TTL_S = 7 * 24 * 3600
"""How long an item is kept: long past any run and its tally, short enough that items of
a forgotten run do not pile up."""


def make_client(
    endpoint_url: str | None, region: str, credentials: dict[str, str] | None = None
) -> Any:
    """A boto3 DynamoDB client for control traffic (standard retry mode, timeouts);
    `credentials` (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) overrides the standard chain."""
    import boto3
    from botocore.config import Config

    config = Config(
        retries={"mode": "standard", "max_attempts": 5}, connect_timeout=5, read_timeout=15
    )
    keys: dict[str, str] = {}
    if credentials:
        keys = {
            "aws_access_key_id": credentials["AWS_ACCESS_KEY_ID"],
            "aws_secret_access_key": credentials["AWS_SECRET_ACCESS_KEY"],
        }
    return boto3.client(
        "dynamodb", endpoint_url=endpoint_url, region_name=region, config=config, **keys
    )


class ResultStore:
    """Items of one run in the results table."""

    def __init__(self, client: Any, table: str, run_id: str, ttl_s: float = ITEM_TTL_S) -> None:
        self.client = client
        self.table = table
        self.run_id = run_id
        self.ttl_s = ttl_s
        self.token = secrets.token_hex(8)
        """Names this process's claims, so a retried claim recognises its own."""
        self._parts_written: dict[str, tuple[str, int]] = {}
        """sk -> (version, parts) of this process's last split write, deleted after the
        next head is written."""

    # --- table --------------------------------------------------------------------------
    def create_table(self) -> None:
        """Create the results table if it is missing (local runs; Terraform does it on AWS)."""
        try:
            self.client.describe_table(TableName=self.table)
            return
        except self.client.exceptions.ResourceNotFoundException:
            pass
        self.client.create_table(
            TableName=self.table,
            BillingMode="PAY_PER_REQUEST",
            KeySchema=[
                {"AttributeName": "run_id", "KeyType": "HASH"},
                {"AttributeName": "item", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "run_id", "AttributeType": "S"},
                {"AttributeName": "item", "AttributeType": "S"},
            ],
            # Its items are read back: a hotbench emulator running `--store keys` for the
            # load's tables keeps this one whole (docs/emulator.md, "Item stores and the
            # memory bound").
            Tags=[{"Key": "hotbench:store", "Value": "full"}],
        )
        wait_active(self.client, self.table)

    # --- raw items ----------------------------------------------------------------------
    def _key(self, sk: str) -> dict[str, Any]:
        return {"run_id": {"S": self.run_id}, "item": {"S": sk}}

    def _expiry(self) -> dict[str, Any]:
        # DynamoDB TTL reads a Number of whole epoch seconds.
        return {"expires_at": {"N": str(int(time.time() + self.ttl_s))}}

    def put(self, sk: str, payload: dict[str, Any], condition_new: bool = False) -> bool:
        """Write an item; with `condition_new`, only if it does not exist (False if it did)."""
        blob = zlib.compress(json.dumps(payload, separators=(",", ":")).encode(), 6)
        parts = [blob[i : i + PART_BYTES] for i in range(0, len(blob), PART_BYTES)] or [b""]
        version = f"{time.time_ns():x}.{secrets.token_hex(2)}"
        if len(parts) > 1:
            for i, part in enumerate(parts):
                self.client.put_item(
                    TableName=self.table,
                    Item={
                        **self._key(_part_key(sk, version, i)),
                        "body": {"B": part},
                        **self._expiry(),
                    },
                )
            head: dict[str, Any] = {
                **self._key(sk),
                "parts": {"N": str(len(parts))},
                "version": {"S": version},
            }
        else:
            head = {**self._key(sk), "body": {"B": parts[0]}}
        head["at"] = {"N": repr(time.time())}
        head.update(self._expiry())
        kwargs: dict[str, Any] = {"TableName": self.table, "Item": head}
        if condition_new:
            kwargs["ConditionExpression"] = "attribute_not_exists(#i)"
            kwargs["ExpressionAttributeNames"] = {"#i": "item"}
        try:
            self.client.put_item(**kwargs)
        except self.client.exceptions.ConditionalCheckFailedException:
            return False
        self._drop_old_parts(sk, (version, len(parts)) if len(parts) > 1 else None)
        return True

    def _drop_old_parts(self, sk: str, new: tuple[str, int] | None) -> None:
        """Delete the parts of this process's previous write of `sk` (its head no longer
        names them); a reader still holding the old head re-reads the new one."""
        old = self._parts_written.pop(sk, None)
        if new is not None:
            self._parts_written[sk] = new
        if old is None:
            return
        old_version, count = old
        for i in range(count):
            self.client.delete_item(
                TableName=self.table, Key=self._key(_part_key(sk, old_version, i))
            )

    def _decode(self, item: dict[str, Any], rereads: int = 3) -> dict[str, Any]:
        if "parts" in item:
            sk = item["item"]["S"]
            version = item["version"]["S"]
            chunks = []
            for i in range(int(item["parts"]["N"])):
                part = self._get_raw(_part_key(sk, version, i))
                if part is None:  # rewritten since the head was read: read the new one
                    fresh = self._get_raw(sk)
                    if fresh is None or rereads == 0:
                        raise LookupError(f"{sk}: part {i} of version {version} is gone")
                    return self._decode(fresh, rereads - 1)
                chunks.append(part["body"]["B"])
            blob = b"".join(chunks)
        else:
            blob = item["body"]["B"]
        data: dict[str, Any] = json.loads(zlib.decompress(blob))
        return data

    def _get_raw(self, sk: str) -> dict[str, Any] | None:
        out = self.client.get_item(TableName=self.table, Key=self._key(sk), ConsistentRead=True)
        item: dict[str, Any] | None = out.get("Item")
        return item

    def get(self, sk: str) -> dict[str, Any] | None:
        item = self._get_raw(sk)
        return None if item is None else self._decode(item)

    def query(self, prefix: str) -> dict[str, dict[str, Any]]:
        """Items whose sk starts with `prefix` (split parts excluded), decoded."""
        out: dict[str, dict[str, Any]] = {}
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "ConsistentRead": True,
            "KeyConditionExpression": "run_id = :r AND begins_with(#i, :p)",
            "ExpressionAttributeNames": {"#i": "item"},
            "ExpressionAttributeValues": {":r": {"S": self.run_id}, ":p": {"S": prefix}},
        }
        while True:
            page = self.client.query(**kwargs)
            for item in page.get("Items", []):
                sk = item["item"]["S"]
                if "#part#" not in sk:
                    out[sk] = self._decode(item)
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # --- the run's items ----------------------------------------------------------------
    def put_plan(self, plan: RunPlan) -> None:
        self.put("plan", plan.to_json())

    def get_plan(self) -> RunPlan:
        data = self.get("plan")
        if data is None:
            raise LookupError(f"run {self.run_id}: no plan item in table {self.table}")
        return RunPlan.from_json(data)

    def claim_start(self, worker: int, window: int = 0) -> bool:
        """Claim worker `worker`'s start (of its `window`, in a split run); False if
        another process holds the claim.

        The put is conditional on the item not existing. If its first attempt succeeded
        but the reply was lost, botocore's retry finds the item and fails the condition:
        the claim is then read back, and it is ours when it carries our token.
        """
        sk = slot_key("start", (worker, window))
        if self.put(sk, {"worker": worker, "at": time.time(), "token": self.token}, True):
            return True
        held = self.get(sk)
        return held is not None and held.get("token") == self.token

    def put_ready(self, worker: int) -> None:
        self.put(f"ready#{worker}", {"worker": worker, "at": time.time()})

    def ready_workers(self) -> set[int]:
        return {int(v["worker"]) for v in self.query("ready#").values()}

    def put_go(self, t0: float, workers: list[int]) -> None:
        self.put("go", {"t0": t0, "workers": workers})

    def get_go(self) -> dict[str, Any] | None:
        return self.get("go")

    def put_abort(self, message: str) -> None:
        self.put("abort", {"message": message})

    def get_abort(self) -> str | None:
        data = self.get("abort")
        return None if data is None else str(data.get("message", "aborted"))

    def put_report(self, kind: str, report: WorkerReport | dict[str, Any]) -> None:
        payload = report.to_json() if isinstance(report, WorkerReport) else report
        slot = (int(payload["worker"]), int(payload.get("window", 0)))
        self.put(slot_key(kind, slot), payload)

    def slot_reports(self, kind: str) -> dict[Slot, WorkerReport]:
        """Every (worker, window)'s report of `kind` (`progress` or `final`)."""
        out: dict[Slot, WorkerReport] = {}
        for v in self.query(f"{kind}#").values():
            report = WorkerReport.from_json(v)
            out[(report.worker, report.window)] = report
        return out

    def reports(self, kind: str) -> dict[int, WorkerReport]:
        """Each worker's report of `kind`; in a split run, its windows' reports added up
        (merge_windows). The coordinator, which must tell the windows apart, reads
        `slot_reports`."""
        by_worker: dict[int, list[WorkerReport]] = {}
        for (worker, _window), report in sorted(self.slot_reports(kind).items()):
            by_worker.setdefault(worker, []).append(report)
        return {w: merge_windows(reports) for w, reports in by_worker.items()}

    def put_refusal(self, worker: int, why: str) -> None:
        self.put(f"refused#{worker}#{time.time():.6f}", {"worker": worker, "why": why})

    def refusals(self) -> list[dict[str, Any]]:
        return list(self.query("refused#").values())


def slot_key(kind: str, slot: Slot) -> str:
    """`kind#<w>` for window 0 (an unsplit run's only one), `kind#<w>#w<j>` after it."""
    worker, window = slot
    return f"{kind}#{worker}" + (f"#w{window}" if window else "")


def merge_windows(reports: list[WorkerReport]) -> WorkerReport:
    """One worker's reports of several windows as one: counts and iterations added per
    second, histograms merged, each phase's offered share added, the first throttle the
    earliest, notes joined; the status is the first that is not `complete`. Each request
    belongs to one window (its due time), so adding counts none twice."""
    if len(reports) == 1:
        return reports[0]
    first = reports[0]
    merged = WorkerReport(first.worker, window=first.window)
    merged.phases = [PhaseShare(**vars(p)) for p in first.phases]
    merged.first_throttle_s = None
    for report in reports:
        for t, counts in report.seconds.items():
            merged.second(t).add(counts)
        for t, its in report.iterations.items():
            at_second(merged.iterations, t).add(its)
        merged.latency.merge(report.latency)
        if report is not first:
            for share, other in zip(merged.phases, report.phases, strict=False):
                share.offered += other.offered
                earlier = other.first_throttle_s
                if earlier is not None and (
                    share.first_throttle_s is None or earlier < share.first_throttle_s
                ):
                    share.first_throttle_s = earlier
        if report.first_throttle_s is not None and (
            merged.first_throttle_s is None or report.first_throttle_s < merged.first_throttle_s
        ):
            merged.first_throttle_s = report.first_throttle_s
        merged.notes += report.notes
        merged.progress_write_failures += report.progress_write_failures
        merged.written_at = max(merged.written_at, report.written_at)
        if merged.status == RUNNING or (merged.status == COMPLETE and report.status != COMPLETE):
            merged.status = report.status
        merged.snapshot = merged.snapshot or report.snapshot
    return merged


def _part_key(sk: str, version: str, index: int) -> str:
    return f"{sk}#part#{version}#{index}"


def wait_active(client: Any, table: str, timeout_s: float = 120.0) -> None:
    """Poll DescribeTable until ACTIVE (a waiter with a clear error at the end)."""
    deadline = time.monotonic() + timeout_s
    while True:
        status = client.describe_table(TableName=table)["Table"].get("TableStatus")
        if status == "ACTIVE":
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {table} not ACTIVE after {timeout_s:.0f} s ({status})")
        time.sleep(0.2)
