"""Writing result files without ever leaving a half-written one behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


class UserError(Exception):
    """A failure the user can fix; printed as one line, exit code `code`."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def write_json(path: str | Path, payload: dict[str, Any]) -> None:
    """Write atomically (temp file + rename), so an interrupted write loses nothing older."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise UserError(f"cannot write {target}: {exc.strerror}; choose another path") from None


def check_writable(path: str | Path, option: str) -> None:
    """Refuse, before anything runs, a file the command will write only at its end (a
    result, a report): found after a run, an unwritable path would cost the run (on AWS,
    its money). Tried for real (its folder made, a temporary file created and removed):
    permissions alone do not say it, for root or on a read-only mount."""
    target = Path(path)
    if target.is_dir():
        raise UserError(f"{option} {target}: is a folder; give a file name (nothing was run)")
    probe = target.with_suffix(target.suffix + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "a", encoding="utf-8"):
            pass
        probe.unlink()
    except OSError as exc:
        raise UserError(
            f"{option} {target}: cannot write there ({exc.strerror}); choose another path "
            "(nothing was run)"
        ) from None


def print_progress(console: Console, line: str, style: str = "dim") -> None:
    """A step's progress line, dimmed and escaped: a line may hold brackets (seeding's
    `[#####.....]` bar), which rich would otherwise take for markup and drop."""
    # Here, not at the top: rich costs 0.1 s of CPU, and every workflow module imports
    # this one for UserError, the reaper too, which prints without rich.
    from rich.markup import escape

    console.print(f"[{style}]{escape(line)}[/]", highlight=False)
