"""One execution environment of the Lambda stand-in (tests/fakes/fake_lambda.py): it runs
the INIT phase (imports the handler's module), says READY, then runs one invocation per
event line on stdin, sequentially, answering each with one JSON line on stdout, as a
Lambda execution environment runs invocations one after another
(https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html)."""

from __future__ import annotations

import json
import sys


def main() -> int:
    from loadgen.live.lambda_handler import handler  # INIT: the module and its imports

    out = sys.stdout
    sys.stdout = sys.stderr  # the handler's own prints go to the log, not the answers
    out.write("READY\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = handler(json.loads(line))
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
