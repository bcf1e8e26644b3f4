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


def print_progress(console: Console, line: str, style: str = "dim") -> None:
    """A step's progress line, dimmed and escaped: a line may hold brackets (seeding's
    `[#####.....]` bar), which rich would otherwise take for markup and drop."""
    # Here, not at the top: rich costs 0.1 s of CPU, and every workflow module imports
    # this one for UserError, the reaper too, which prints without rich.
    from rich.markup import escape

    console.print(f"[{style}]{escape(line)}[/]", highlight=False)
