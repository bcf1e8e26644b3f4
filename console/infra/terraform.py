"""Drive the hotbench Terraform stack: init, plan (with summary and cost), apply, output,
destroy.

Why a driver rather than "run terraform yourself": the console must show a reviewable
plan with a price, stream apply progress into its UI, read the stack's outputs as typed
data, and never leave paid resources behind when an apply fails half way.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.cost.tf_estimate import TerraformEstimate, estimate
from console.infra.outputs import HotbenchOutputs, parse_outputs
from console.infra.plan_summary import PlanSummary, summarize
from console.infra.tf_errors import TerraformApplyError, TerraformError
from console.infra.tf_exec import CommandResult, TerraformRunner, runner_from_env

ProgressCallback = Callable[[str], None]

#: The repository's root stack (terraform/ next to console/).
DEFAULT_WORKDIR = Path(__file__).resolve().parents[2] / "terraform"


@dataclass(frozen=True)
class Plan:
    """A saved plan with what a reviewer needs: change counts and hourly cost (printed
    by console.render.cost_table.plan_review)."""

    path: Path
    raw: dict[str, Any]
    summary: PlanSummary
    cost: TerraformEstimate


def _noop(_line: str) -> None:
    return None


def progress_line(line: str) -> tuple[str | None, str | None]:
    """Turn one ``-json`` UI line into (readable text, error text).

    Terraform's machine-readable UI puts a human sentence in ``@message``; errors are
    ``diagnostic`` events. Lines that are not JSON pass through unchanged.
    """
    text = line.strip()
    if not text:
        return None, None
    try:
        event = json.loads(text)
    except json.JSONDecodeError:
        return text, None
    if not isinstance(event, dict):
        return text, None
    message = str(event.get("@message", "")).strip() or None
    if event.get("type") == "diagnostic" and event.get("@level") == "error":
        diag = event.get("diagnostic") or {}
        detail = str(diag.get("detail", "")).strip()
        error = f"Error: {diag.get('summary', message or 'unknown error')}"
        return message, f"{error}: {detail}" if detail else error
    if event.get("type") == "version":
        return None, None
    return message, None


class Terraform:
    """One Terraform working directory (the root stack or an example) and its variables."""

    def __init__(
        self,
        workdir: Path = DEFAULT_WORKDIR,
        variables: Mapping[str, Any] | None = None,
        runner: TerraformRunner | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        if not self.workdir.is_dir():
            raise TerraformError(f"Terraform directory {self.workdir} does not exist")
        self.variables = dict(variables or {})
        self.runner = runner if runner is not None else runner_from_env()
        self._scratch_dir: Path | None = None
        self._remove_scratch: weakref.finalize | None = None

    @property
    def _scratch(self) -> Path:
        """A private folder for the var file and the plan, made on first use and removed
        when this object goes (or the process exits): every run once left one in /tmp.
        It is kept only when a printed remove command names its var file."""
        if self._scratch_dir is None:
            self._scratch_dir = Path(tempfile.mkdtemp(prefix="hotbench-tf-"))
            self._remove_scratch = weakref.finalize(
                self, shutil.rmtree, self._scratch_dir, ignore_errors=True
            )
        return self._scratch_dir

    # -- helpers -------------------------------------------------------------------------

    def _var_args(self) -> list[str]:
        """Variables go through a JSON var file: no quoting rules for lists and maps."""
        if not self.variables:
            return []
        path = self._scratch / "hotbench.tfvars.json"
        path.write_text(json.dumps(self.variables, indent=2, sort_keys=True))
        return [f"-var-file={path}"]

    def _run(self, args: list[str], what: str) -> CommandResult:
        try:
            result = self.runner.run(args, self.workdir)
        except TerraformError:
            raise
        except Exception as exc:  # a runner that cannot start is a setup problem
            raise TerraformError(f"could not run terraform {what}: {exc}", command=args) from exc
        if result.returncode != 0:
            raise TerraformError(
                f"terraform {what} failed",
                command=args,
                returncode=result.returncode,
                stderr=result.stderr or result.stdout,
            )
        return result

    def _stream(
        self, args: list[str], on_progress: ProgressCallback
    ) -> tuple[CommandResult, list[str]]:
        errors: list[str] = []

        def handle(line: str) -> None:
            text, error = progress_line(line)
            if error:
                errors.append(error)
            if text:
                on_progress(text)

        return self.runner.stream(args, self.workdir, handle), errors

    # -- commands ------------------------------------------------------------------------

    def init(self) -> None:
        """``terraform init``: downloads the AWS provider on the operator's machine."""
        self._run(["init", "-input=false", "-no-color"], "init")

    def plan(self, plan_file: Path | None = None, *, destroy: bool = False) -> Plan:
        """Plan into a file, then read it back with ``show -json`` for summary and cost."""
        path = Path(plan_file) if plan_file else self._scratch / "hotbench.tfplan"
        args = ["plan", "-input=false", "-no-color", f"-out={path}", *self._var_args()]
        if destroy:
            args.append("-destroy")
        self._run(args, "plan")
        shown = self._run(["show", "-json", "-no-color", str(path)], "show")
        try:
            raw = json.loads(shown.stdout)
        except json.JSONDecodeError as exc:
            raise TerraformError(
                f"terraform show -json printed no valid JSON ({exc})",
                command=["show", "-json", str(path)],
            ) from exc
        return Plan(path=path, raw=raw, summary=summarize(raw), cost=estimate(raw))

    def apply(
        self,
        plan: Plan | None = None,
        on_progress: ProgressCallback = _noop,
        *,
        destroy_on_failure: bool = True,
    ) -> HotbenchOutputs:
        """Apply (a saved plan, or the current variables), streaming progress lines.

        If the apply fails, or is interrupted, whatever it created is destroyed before
        the error is raised, unless ``destroy_on_failure`` is False.
        """
        if plan is not None:
            args = ["apply", "-json", "-input=false", str(plan.path)]
        else:
            args = ["apply", "-json", "-input=false", "-auto-approve", *self._var_args()]
        result: CommandResult | None = None
        errors: list[str] = []
        try:
            result, errors = self._stream(args, on_progress)
        except BaseException as interrupt:  # Ctrl-C or a runner failure mid-apply
            if not destroy_on_failure:
                raise
            destroy_error = self._rollback(on_progress)
            if destroy_error is None:
                raise
            # The interrupt must not hide what is left running: say it and raise it.
            raise TerraformApplyError(
                f"terraform apply was interrupted ({type(interrupt).__name__})",
                command=args,
                destroyed=False,
                destroy_error=destroy_error,
                run_id=self.variables.get("run_id"),
                remove_command=self._destroy_command(),
            ) from interrupt
        if result.returncode != 0:
            destroy_error = self._rollback(on_progress) if destroy_on_failure else None
            raise TerraformApplyError(
                "terraform apply failed",
                command=args,
                returncode=result.returncode,
                stderr="\n".join([result.stderr.strip(), *errors]).strip(),
                destroyed=destroy_on_failure and destroy_error is None,
                destroy_error=destroy_error,
                run_id=self.variables.get("run_id"),
                remove_command=self._destroy_command(printed=destroy_error is not None),
            )
        return self.output()

    def _destroy_command(self, *, printed: bool = True) -> str:
        """The command a user runs to destroy this stack by hand. When it is printed (the
        rollback failed), its var file must outlive this process, so it is kept."""
        command = " ".join(["terraform", f"-chdir={self.workdir}", "destroy", *self._var_args()])
        if printed and self._remove_scratch is not None:
            self._remove_scratch.detach()
        return command

    def _rollback(self, on_progress: ProgressCallback) -> TerraformError | None:
        """Destroy what a failed or interrupted apply created; the error if that failed
        (also when it was itself interrupted), for the TerraformApplyError that says
        what may be left and how to remove it."""
        on_progress("apply failed: destroying what it created")
        try:
            self.destroy(on_progress)
            return None
        except TerraformError as exc:
            return exc
        except (Exception, KeyboardInterrupt) as exc:  # a second Ctrl-C stops the destroy
            return TerraformError(f"the rollback destroy stopped: {type(exc).__name__}: {exc}")

    def output(self) -> HotbenchOutputs:
        """Read ``terraform output -json`` into :class:`HotbenchOutputs`."""
        result = self._run(["output", "-json", "-no-color"], "output")
        try:
            raw = json.loads(result.stdout or "{}")
        except json.JSONDecodeError as exc:
            raise TerraformError(f"terraform output -json printed no valid JSON ({exc})") from exc
        return parse_outputs(raw)

    def destroy(self, on_progress: ProgressCallback = _noop) -> None:
        """Destroy everything in this directory's state, streaming progress lines."""
        args = ["destroy", "-json", "-input=false", "-auto-approve", *self._var_args()]
        result, errors = self._stream(args, on_progress)
        if result.returncode != 0:
            raise TerraformError(
                "terraform destroy failed",
                command=args,
                returncode=result.returncode,
                stderr="\n".join([result.stderr.strip(), *errors]).strip(),
            )
