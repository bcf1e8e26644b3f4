"""The shared scenario interpreter, driven by a minimal in-test driver: a dict of items
that evaluates conditions and a clock the test advances. The real drivers (the
virtual-time engine, the live worker) perform the same actions against the capacity
model or an endpoint."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import yaml

from loadgen.format.playbook import Playbook, parse_playbook
from loadgen.load.scenario import (
    ActionOutcome,
    IterationEnd,
    OpAction,
    Program,
    ThinkAction,
    UserState,
)

TABLE = """
name: interp
tables:
  - name: t
    partition_key: {name: pk, type: S}
    billing_mode: PAY_PER_REQUEST
load:
  attributes:
    pk: {dist: uniform, count: 1000, format: "k{:04d}"}
  scenarios: {}
  phases: []
"""


def _playbook(scenarios: dict[str, Any], phase: dict[str, Any]) -> Playbook:
    data = yaml.safe_load(TABLE)
    data["load"]["scenarios"] = scenarios
    data["load"]["phases"] = [{"name": "p", "users": 1, "duration_s": 60, **phase}]
    return parse_playbook(data)


class FakeDriver:
    """Items in a dict, a clock advanced by each action's latency or think time."""

    def __init__(
        self, answer: Callable[[OpAction, dict[Any, dict[str, Any]]], ActionOutcome] | None = None
    ):
        self.items: dict[Any, dict[str, Any]] = {}
        self.now = 0.0
        self.actions: list[OpAction | ThinkAction] = []
        self.answer = answer

    def user(self, n: int = 0) -> UserState:
        return UserState(user=n, clock=lambda: self.now, rng=random.Random(n))

    def _default(self, action: OpAction) -> ActionOutcome:
        key = tuple(sorted(action.key.items()))
        item = self.items.get(key)
        cond = action.condition
        if cond is not None:
            if cond.kind == "attribute_not_exists":
                passed = item is None
            elif cond.kind == "lock_free":
                passed = item is None or float(item["expiresAt"]) < (cond.now or 0)
            elif cond.kind == "lock_owner":
                passed = item is not None and item.get("owner") == cond.owner
            else:
                passed = (item or {}).get("version", 0) == cond.version
            if not passed:
                return ActionOutcome("condition_failed", latency_s=0.004)
        if action.operation in ("put", "update"):
            new = {**(item or {}), **action.attributes}
            if cond is not None and cond.kind == "version":
                new["version"] = (cond.version or 0) + 1
            self.items[key] = new
            return ActionOutcome("ok", latency_s=0.004, version=new.get("version"))
        if action.operation == "delete":
            self.items.pop(key, None)
        return ActionOutcome("ok", latency_s=0.004, items=1)

    def run(self, program: Program, user: UserState) -> IterationEnd:
        gen = program.iteration(user)
        sent: ActionOutcome | None = None
        while True:
            try:
                action = gen.send(sent)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            self.actions.append(action)
            if isinstance(action, ThinkAction):
                assert action.seconds >= 0
                self.now += action.seconds
                sent = None
            else:
                sent = self.answer(action, self.items) if self.answer else self._default(action)
                self.now += sent.latency_s


LOCKED = {
    "work": {
        "steps": [
            {
                "name": "acquire",
                "op": "lock",
                "key": {"pk": "LOCK"},
                "ttl_s": 30,
                "wait_s": 5,
                "heartbeat_s": 10,
            },
            {"name": "work", "op": "think", "seconds": 25},
            {"name": "push", "op": "put", "key": {"pk": "f-{user}-{iteration}"}},
            {"name": "release", "op": "release", "lock": "acquire"},
        ]
    }
}


def test_a_lock_is_acquired_renewed_while_held_and_released() -> None:
    program = _program(LOCKED)
    driver = FakeDriver()
    end = driver.run(program, driver.user())
    assert end.ok and end.reason is None
    ops = [(a.step, a.operation) for a in driver.actions if isinstance(a, OpAction)]
    # 25 s of work under a 10 s heartbeat: renewed twice, then the write and the release
    assert ops == [
        ("acquire", "put"),
        ("acquire.heartbeat", "update"),
        ("acquire.heartbeat", "update"),
        ("push", "put"),
        ("release", "delete"),
    ]
    assert ("pk", "LOCK") not in [k for key in driver.items for k in key]  # released
    assert [s.step for s in end.steps] == ["acquire", "work", "push", "release"]
    assert abs(end.seconds - driver.now) < 1e-9


def test_a_held_lock_makes_another_user_poll_with_backoff_then_time_out() -> None:
    program = _program(LOCKED)
    driver = FakeDriver()
    driver.items[(("pk", "LOCK"),)] = {"owner": "user-7", "expiresAt": 1e9}
    end = driver.run(program, driver.user(1))
    assert not end.ok and end.reason == "lock_timeout" and end.failed_step == "acquire"
    polls = [a for a in driver.actions if isinstance(a, OpAction)]
    assert len(polls) > 3 and all(a.condition and a.condition.kind == "lock_free" for a in polls)
    # the wait is bounded by wait_s (5 s) plus one request's latency
    assert 5.0 <= end.seconds <= 5.0 + 0.004 + 1e-9
    assert driver.items[(("pk", "LOCK"),)]["owner"] == "user-7"  # never taken


def test_an_expired_lock_is_taken_over() -> None:
    program = _program(LOCKED)
    driver = FakeDriver()
    driver.items[(("pk", "LOCK"),)] = {"owner": "user-7", "expiresAt": 2.0}  # expires at t=2
    end = driver.run(program, driver.user(1))
    assert end.ok


def test_a_failed_condition_is_retried_by_the_application_then_fails_with_its_reason() -> None:
    scenarios = {
        "w": {
            "steps": [
                {
                    "name": "create",
                    "op": "put",
                    "key": {"pk": "same"},
                    "condition": "attribute_not_exists",
                    "on_failure": "retry",
                    "retry_attempts": 2,
                },
            ]
        }
    }
    program = _program(scenarios)
    driver = FakeDriver()
    assert driver.run(program, driver.user()).ok
    end = driver.run(program, driver.user())  # the item exists now
    assert not end.ok and end.reason == "condition_failed"
    puts = [a for a in driver.actions if isinstance(a, OpAction)]
    assert len(puts) == 1 + 3  # the first iteration's put, then 1 try + 2 app retries


def test_versions_are_captured_and_checked() -> None:
    scenarios = {
        "rmw": {
            "steps": [
                {"name": "write", "op": "update", "key": {"pk": "doc"}, "condition": "version"},
            ]
        }
    }
    program = _program(scenarios)
    driver = FakeDriver()
    user = driver.user()
    for _ in range(3):
        assert driver.run(program, user).ok
    assert user.vars["version"] == 3 and driver.items[(("pk", "doc"),)]["version"] == 3
    other = driver.user(2)  # a user that never read the item holds version 0: refused
    assert driver.run(program, other).reason == "condition_failed"


def test_unprocessed_batch_items_are_resent_until_done() -> None:
    scenarios = {
        "b": {"steps": [{"name": "push", "op": "batch_write", "items": 10, "key": {"pk": "f{n}"}}]}
    }
    sizes: list[int] = []

    def answer(action: OpAction, items: dict[Any, Any]) -> ActionOutcome:
        sizes.append(len(action.members))
        if len(action.members) > 3:  # a throttled table takes 3 per call
            return ActionOutcome(
                "unprocessed", latency_s=0.01, unprocessed=tuple(range(3, len(action.members)))
            )
        return ActionOutcome("ok", latency_s=0.01)

    program = _program(scenarios)
    driver = FakeDriver(answer)
    assert driver.run(program, driver.user()).ok
    assert sizes == [10, 7, 4, 1]
    keys = [m.key["pk"] for m in next(a for a in driver.actions if isinstance(a, OpAction)).members]
    assert keys == [f"f{n}" for n in range(10)]


def test_a_collection_query_pages_until_no_last_key_and_captures_the_watermark() -> None:
    scenarios = {
        "q": {
            "steps": [
                {
                    "name": "pull",
                    "op": "query",
                    "key": {"pk": "FILE"},
                    "collection": True,
                    "since": "wm",
                    "capture": {"wm": "now", "seen": "items"},
                },
            ],
            "vars": {},
        }
    }
    # `since: wm` needs wm captured before; the first iteration sends None
    pages = iter([{"page": 2}, {"page": 3}, None])

    def answer(action: OpAction, items: dict[Any, Any]) -> ActionOutcome:
        return ActionOutcome("ok", latency_s=0.5, items=100, last_evaluated_key=next(pages))

    program = _program(scenarios)
    driver = FakeDriver(answer)
    user = driver.user()
    assert driver.run(program, user).ok
    queries = [a for a in driver.actions if isinstance(a, OpAction)]
    assert [q.exclusive_start_key for q in queries] == [None, {"page": 2}, {"page": 3}]
    assert all(q.collection and q.since is None for q in queries)
    assert user.vars["seen"] == 300 and user.vars["wm"] == 1.5


def test_a_mix_picks_entries_by_weight() -> None:
    phase = {"mix": [{"op": "get", "weight": 90}, {"op": "put", "weight": 10}]}
    playbook = _playbook({}, phase)
    program = Program(playbook, playbook.load.phases[0], playbook.tables[0])
    driver = FakeDriver()
    user = driver.user()
    for _ in range(2000):
        driver.run(program, user)
    ops = [a.operation for a in driver.actions if isinstance(a, OpAction)]
    assert 0.87 < ops.count("get") / len(ops) < 0.93
    assert len({a.key["pk"] for a in driver.actions if isinstance(a, OpAction)}) > 500  # drawn


def test_a_throttle_after_sdk_retries_is_retries_exhausted() -> None:
    playbook = _playbook({}, {"mix": [{"op": "get", "weight": 1}]})
    program = Program(playbook, playbook.load.phases[0], playbook.tables[0])
    driver = FakeDriver(lambda a, i: ActionOutcome("throttled", latency_s=0.3, attempts=3))
    assert driver.run(program, driver.user()).reason == "retries_exhausted"
    driver = FakeDriver(lambda a, i: ActionOutcome("throttled", latency_s=0.01))
    assert driver.run(program, driver.user()).reason == "throttled"


def _program(scenarios: dict[str, Any]) -> Program:
    """The program of a one-user phase running the first of `scenarios` (the playbook
    parsed once: its phase and table are the ones the program is given)."""
    playbook = _playbook(scenarios, {"scenario": next(iter(scenarios))})
    return Program(playbook, playbook.load.phases[0], playbook.tables[0])
