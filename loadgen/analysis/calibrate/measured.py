"""A measured result the model is calibrated to: the figures a result file carries, each
with its tolerance, and the playbook whose simulation should reproduce them. (Named so,
not a "target", which in console/ is where a run lives.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loadgen.analysis.compare import CompareError, check_result
from loadgen.analysis.figures import Figure, Tolerance, figures, tolerance_for
from loadgen.format.playbook import Playbook, PlaybookError, load_playbook


class MeasuredResultError(ValueError):
    """A result that cannot be calibrated to; the message names the file and the fix."""


@dataclass(frozen=True)
class MeasuredResult:
    """One result file: what was measured, and how to simulate it."""

    path: str
    document: dict[str, Any]
    playbook: Playbook
    playbook_path: str
    figures: list[tuple[Figure, Tolerance]]

    @property
    def label(self) -> str:
        ref = self.document.get("reference", {})
        return str(ref.get("id") or Path(self.path).stem)


SIMULATED_ONLY = ("latency",)
"""Scopes a simulation never has (it measures no latency): not calibration figures."""


def _restates(figure: Figure, run_rates: dict[str, float | None]) -> bool:
    """A per-reason rate equal to its run's whole throttle rate says nothing new (one
    reason took every throttle): counted once, not twice."""
    return (
        figure.name.startswith("throttle_rate[")
        and figure.scope == "run"
        and run_rates.get(figure.run) == figure.value
    )


def calibration_figures(document: dict[str, Any]) -> list[tuple[Figure, Tolerance]]:
    found = [f for f in figures(document) if f.scope not in SIMULATED_ONLY]
    run_rates = {f.run: f.value for f in found if f.scope == "run" and f.name == "throttle_rate"}
    return [(f, tolerance_for(f, document)) for f in found if not _restates(f, run_rates)]


def _playbook_path(document: dict[str, Any], path: Path, playbooks: dict[str, str]) -> Path:
    name = str(document.get("playbook"))
    if name in playbooks:
        return Path(playbooks[name])
    stated = document.get("reference", {}).get("playbook_file")
    candidates = [Path(stated)] if stated else []
    candidates += [path.parent / f"{name}.yaml", Path("playbooks") / f"{name}.yaml"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise MeasuredResultError(
        f"{path}: cannot find playbook {name!r} (looked for "
        f"{', '.join(str(c) for c in candidates)}); give it with --playbook FILE"
    )


def load_measured(path: str | Path, playbooks: dict[str, str] | None = None) -> MeasuredResult:
    """The result at `path`, to calibrate to; `playbooks` maps playbook names to files (from
    --playbook), else the result's `reference.playbook_file`, else `<name>.yaml` next to
    the result or in playbooks/."""
    path = Path(path)
    try:
        document = check_result(json.loads(path.read_text(encoding="utf-8")), str(path))
    except OSError as exc:
        raise MeasuredResultError(
            f"cannot read {path}: {exc.strerror}; give a result file"
        ) from None
    except json.JSONDecodeError as exc:
        raise MeasuredResultError(f"{path} line {exc.lineno}: not JSON ({exc.msg})") from None
    except CompareError as exc:
        raise MeasuredResultError(str(exc)) from None
    playbook_path = _playbook_path(document, path, playbooks or {})
    try:
        playbook = load_playbook(playbook_path)
    except PlaybookError as exc:
        raise MeasuredResultError(str(exc)) from None
    if playbook.name != document.get("playbook"):
        raise MeasuredResultError(
            f"{path} is a result of playbook {document.get('playbook')!r}, but "
            f"{playbook_path} is {playbook.name!r}; give the right one with --playbook"
        )
    scale = float(document.get("scale") or 1.0)
    found = calibration_figures(document)
    if not found:
        raise MeasuredResultError(f"{path}: the result carries no figure a simulation can match")
    if scale != 1.0 and document.get("mode") == "simulate":
        raise MeasuredResultError(
            f"{path}: a simulation at scale {scale:g} cannot be calibrated to"
        )
    return MeasuredResult(str(path), document, playbook, str(playbook_path), found)
