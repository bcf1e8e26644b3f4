"""The one exception family of the Terraform driver.

A user mistake (bad run id, missing credentials, no Terraform) must reach the console as
a message, not a traceback, so every failure of a Terraform command is turned into a
:class:`TerraformError` carrying the command and the end of Terraform's error output.
"""

from __future__ import annotations

from collections.abc import Sequence

#: How much of stderr to keep: Terraform puts the actual diagnostic at the end.
STDERR_TAIL_LINES = 20


def tail(text: str, lines: int = STDERR_TAIL_LINES) -> str:
    """Last ``lines`` non-empty lines of ``text``, without the CLI-config warning noise."""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    kept = [
        line for line in kept if "CLI configuration" not in line and "/.terraformrc" not in line
    ]
    return "\n".join(kept[-lines:])


class TerraformError(Exception):
    """A Terraform command failed, or could not be started."""

    def __init__(
        self,
        message: str,
        *,
        command: Sequence[str] = (),
        returncode: int | None = None,
        stderr: str = "",
    ) -> None:
        self.message = message
        self.command = list(command)
        self.returncode = returncode
        self.stderr_tail = tail(stderr)
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.message]
        if self.command:
            code = "" if self.returncode is None else f" (exit {self.returncode})"
            parts.append(f"command: terraform {' '.join(self.command)}{code}")
        if self.stderr_tail:
            parts.append(self.stderr_tail)
        return "\n".join(parts)


class TerraformApplyError(TerraformError):
    """``apply`` failed; ``destroyed`` tells whether the rollback destroy succeeded.

    When it did not, ``leftovers_hint`` says how to find what is still running (and
    costing money) by tag.
    """

    def __init__(
        self,
        message: str,
        *,
        command: Sequence[str] = (),
        returncode: int | None = None,
        stderr: str = "",
        destroyed: bool,
        destroy_error: TerraformError | None = None,
        run_id: str | None = None,
        remove_command: str | None = None,
    ) -> None:
        self.destroyed = destroyed
        self.destroy_error = destroy_error
        self.run_id = run_id
        self.remove_command = remove_command
        super().__init__(message, command=command, returncode=returncode, stderr=stderr)

    @property
    def leftovers_hint(self) -> str:
        """The AWS CLI command that lists whatever the run left behind."""
        run = self.run_id or "<run_id>"
        return (
            "aws resourcegroupstaggingapi get-resources "
            f"--tag-filters Key=hotbench:run-id,Values={run}"
        )

    def __str__(self) -> str:
        text = super().__str__()
        if self.destroyed:
            return text + "\nEverything the failed apply created was destroyed."
        detail = f": {self.destroy_error}" if self.destroy_error else ""
        remove = self.remove_command or "terraform destroy (with the apply's variables)"
        return (
            text
            + f"\nThe rollback destroy FAILED{detail}. Resources may still be running and "
            + f"costing money; list them with:\n  {self.leftovers_hint}\n"
            + f"and remove them with:\n  {remove}"
        )
