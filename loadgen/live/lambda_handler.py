"""The worker as an AWS Lambda function: `loadgen.live.lambda_handler.handler`.

The same worker as `python -m loadgen.live.worker` (loadgen.live.worker.run_worker: the
start claim, the barrier on the shared T0, the open-loop measurement that never retries,
the watchdog and the backstop, counts out of band in the results table). One invocation
is one worker's window of a run (loadgen.live.windows): the event names the worker, the
window and the run; the function's own environment (set by terraform/modules/lambda-fleet)
names the results table and the region, and Lambda gives it the function role's
credentials.

Event: {"worker": w, "window": j, "env": {"HOTBENCH_RUN_ID": ..., ...}}, where `env` is
what the coordinator gives every fleet's workers (only HOTBENCH_* names and AWS_REGION
are taken from it). The answer: {"worker", "window", "exit_code", "status"} (status:
complete, partial, refused, aborted, failed), and `error` when the worker itself failed.
Nothing about a measurement is in the answer: the results table has it, whether or not
anyone reads the answer.

`python -m loadgen.live.lambda_handler` runs one invocation from an event on stdin and
prints the answer (what a stand-in for Lambda runs, tests/fakes/fake_lambda.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from loadgen.live.worker import (
    EXIT_ABORTED,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_REFUSED,
    parse_config,
    run_worker,
)

STATUS_OF_EXIT = {
    EXIT_OK: "complete",
    EXIT_PARTIAL: "partial",
    EXIT_REFUSED: "refused",
    EXIT_ABORTED: "aborted",
    EXIT_FAILED: "failed",
}
PASSED_ENV = ("HOTBENCH_", "AWS_REGION")
"""What of the event's `env` an invocation takes: the run's names, never credentials or
endpoints the function's own configuration did not set."""


def invocation_env(event: dict[str, Any], environ: dict[str, str]) -> dict[str, str]:
    """The worker's configuration: the function's environment, the run's names from the
    event, and this invocation's worker and window."""
    given = {
        str(k): str(v) for k, v in (event.get("env") or {}).items() if str(k).startswith(PASSED_ENV)
    }
    return {
        **environ,
        **given,
        "HOTBENCH_WORKER": str(int(event["worker"])),
        "HOTBENCH_WINDOW": str(int(event.get("window", 0))),
    }


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """One invocation: one worker's window of a run. Never raises for what the worker
    met (a refusal, an abort, a failed loop: its exit code and status say it); a
    configuration that cannot be read is answered as `failed` with the reason."""
    worker, window = int(event.get("worker", -1)), int(event.get("window", 0))
    answer: dict[str, Any] = {"worker": worker, "window": window}
    try:
        config = parse_config([], invocation_env(event, dict(os.environ)))
        code = run_worker(config)
    except Exception as exc:  # logged for CloudWatch, answered for the fleet's notes
        print(f"worker {worker} window {window} failed: {exc!r}", file=sys.stderr, flush=True)
        answer.update(exit_code=EXIT_FAILED, status="failed", error=f"{type(exc).__name__}: {exc}")
        return answer
    except SystemExit as exc:  # argparse's error for a missing setting
        code = int(exc.code) if isinstance(exc.code, int) else EXIT_FAILED
        answer.update(exit_code=code, status="failed", error="missing configuration")
        return answer
    answer.update(exit_code=code, status=STATUS_OF_EXIT.get(code, "failed"))
    return answer


def main() -> int:
    """Run one invocation from the event on stdin; print the answer as JSON."""
    answer = handler(json.loads(sys.stdin.read() or "{}"))
    print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
