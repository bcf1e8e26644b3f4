"""Errors a user meets while driving a run, each with a documented exit code.

Every one is a `console.output.UserError`, so the CLI prints its message (which names the
problem and the fix) and exits with its code, never a traceback. The table of codes is
console/exitcodes.py (README: Exit codes); scripts may rely on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from console import exitcodes
from console.output import UserError

EXIT_USAGE = exitcodes.USAGE
EXIT_REFUSED = exitcodes.REFUSED
EXIT_AWS_DENIED = exitcodes.AWS_REFUSED
EXIT_STATE = exitcodes.WRONG_STATE
EXIT_LEFTOVERS = exitcodes.LEFT_BEHIND
EXIT_INFRA = exitcodes.INFRA_FAILED
"""The workflow's names for the codes of console/exitcodes.py (defined there, once)."""


class WorkflowError(UserError):
    """A step could not be done; `code` is one of the EXIT_* above."""

    code_default = EXIT_INFRA

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message, self.code_default if code is None else code)


class ConfigError(WorkflowError):
    """Settings, flags or files the user must change."""

    code_default = EXIT_USAGE


class CredentialsError(WorkflowError):
    """No AWS credentials, or expired ones: nothing was created."""

    code_default = EXIT_USAGE


class CostRefused(WorkflowError):
    """The estimate is over --max-cost-usd, or the user declined: nothing was created."""

    code_default = EXIT_REFUSED


class AwsDenied(WorkflowError):
    """AWS said no: access denied, a quota, a region without Fargate, a name in use."""

    code_default = EXIT_AWS_DENIED


class StateError(WorkflowError):
    """The run's recorded state does not allow this step (the message says which does)."""

    code_default = EXIT_STATE


class LeftoversError(WorkflowError):
    """`down` could not confirm that nothing is left; the message lists each leftover."""

    code_default = EXIT_LEFTOVERS


class InfraError(WorkflowError):
    """Terraform, the emulator or the fleet failed in a way the user did not cause."""

    code_default = EXIT_INFRA


class PreflightFailed(WorkflowError):
    """A preflight finding (console/targets/preflight.py) blocks the run: nothing was
    created. Exit 2 when every finding is a setting to change, 4 when AWS would refuse
    (permissions, quotas)."""

    def __init__(self, findings: Sequence[Any]) -> None:
        code = EXIT_USAGE if all(f.kind == "setting" for f in findings) else EXIT_AWS_DENIED
        lines = "\n".join(f"  - {f.message}" for f in findings)
        super().__init__(
            f"preflight: {len(findings)} problem(s) to fix before anything is created "
            f"(nothing was created):\n{lines}",
            code,
        )
        self.findings = list(findings)
