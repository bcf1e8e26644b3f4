"""Every exit code of `hotbench`, in one table (README: "Exit codes").

One table for all commands, so that a script or a CI job reads a code the same way
whichever command returned it. Codes 3-7 come from the operator workflow's steps, 8-10
from the outcome of a live run; when several apply to one run, `RUN_SEVERITY` picks.
"""

from __future__ import annotations

from typing import Final

OK: Final = 0
"""Done: every criterion passed, every run complete and reconciled, nothing left."""
CHECK_FAILED: Final = 1
"""`hotbench check`: a criterion failed (the report names it and its measured value);
`hotbench compare`: a figure is outside its tolerance; `hotbench optimize`: no
configuration passes within the bounds."""
USAGE: Final = 2
"""Bad input or setup: a malformed playbook, a flag, a setting, missing or expired AWS
credentials. Nothing was created."""
REFUSED: Final = 3
"""Refused on purpose: over `--max-cost-usd`, or the confirmation was declined."""
AWS_REFUSED: Final = 4
"""AWS said no: access denied (the action is named; for the in-account image build, with
the ways out), a quota, a region without Fargate, a table name in use."""
WRONG_STATE: Final = 5
"""The run's state does not allow the step: an unknown run id, already down, another
target."""
LEFT_BEHIND: Final = 6
"""The clean-up could not remove (or confirm the removal of) something the run created;
each leftover is printed with the command that deletes it."""
INFRA_FAILED: Final = 7
"""The infrastructure failed: Terraform, the emulator process, a fleet that never started,
the worker image's build or push (the failed phase and the build's log link)."""
RUN_ERRORS: Final = 8
"""A live run completed and reconciled, but some requests failed (errors or timeouts)."""
RUN_UNRECONCILED: Final = 9
"""A live run's counts do not add up: sent requests without an outcome (`unaccounted`)."""
RUN_PARTIAL: Final = 10
"""A live run is partial: a worker missed the barrier, died, hung or was stopped early
(also the whole run, by the emulator's memory bound)."""
INTERRUPTED: Final = 130
"""Ctrl-C (the shell's 128 + SIGINT); what was created is cleaned up or recorded."""

RUN_SEVERITY: Final = (LEFT_BEHIND, RUN_PARTIAL, RUN_UNRECONCILED, RUN_ERRORS)
"""When a live run has several findings, the first of these that applies is the exit
code: something left behind costs money, a partial run measured less than asked, an
unreconciled one cannot be trusted, errors are counted in the table."""
