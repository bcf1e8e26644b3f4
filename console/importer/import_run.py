"""One import, end to end: the window, the calls (live, recorded, replayed, anonymized),
the permission check first, each table read and built, the snapshot written (also
when a table fails half way: a partial snapshot is still worth attaching to an issue).
The command (console/commands/import_account.py) prints what this returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from console import exitcodes
from console.importer.account_reader import read_table
from console.importer.anonymize import Anonymizer, KeyHasher
from console.importer.aws_calls import AwsCalls, CallFailed, LiveCalls, session
from console.importer.build_import import build
from console.importer.import_result import ImportResult, MissingData, TableImport, TimeWindow
from console.importer.permissions import REQUIRED, PermissionCheck, check_permissions
from console.importer.snapshot import Recorder, Replay
from console.importer.time_window import WindowError, resolve
from console.output import UserError


@dataclass(frozen=True)
class ImportOptions:
    tables: tuple[str, ...] = ()
    region: str | None = None
    profile: str | None = None
    last: str | None = None
    start: str | None = None
    end: str | None = None
    save: Path | None = None
    from_saved: Path | None = None
    anonymize: bool = False
    salt: str | None = None


def _window_from(manifest: dict[str, Any]) -> TimeWindow:
    w = manifest["window"]
    return TimeWindow(
        datetime.fromisoformat(w["start"]), datetime.fromisoformat(w["end"]), int(w["period_s"])
    )


def permission_notes(check: PermissionCheck) -> list[MissingData]:
    if not check.checked:
        return [
            MissingData(
                "permissions",
                f"not checked first ({check.not_checked})",
                "each call that is denied is said below as it happens",
            )
        ]
    optional = [a for a in check.denied if a not in REQUIRED]
    if not optional:
        return []
    return [
        MissingData(
            "permissions",
            f"IAM says the caller may not call {', '.join(optional)}",
            "the import goes on without what they read (each piece is said below)",
        )
    ]


def _stop(exc: CallFailed, table: str, region: str) -> UserError:
    if exc.code == "ResourceNotFoundException" and exc.operation == "DescribeTable":
        return UserError(
            f"table {table} not found in {region}: check the name and --region",
            exitcodes.USAGE,
        )
    if exc.denied:
        return UserError(
            f"access denied: the AWS identity may not call {exc.action}, which an import "
            "cannot do without (docs/import.md#permissions lists the policy to attach)",
            exitcodes.AWS_REFUSED,
        )
    return UserError(
        f"AWS {exc.action} failed for table {table}: {exc.code}: {exc.message}",
        exitcodes.INFRA_FAILED,
    )


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("hotbench", "botocore"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


def run_import(
    options: ImportOptions,
    progress: Callable[[str], None] = lambda _line: None,
    now: datetime | None = None,
    live: AwsCalls | None = None,
) -> ImportResult:
    """Read every table of `options` and build its import. `live` replaces the boto3
    calls (tests: moto, stubs); `now` fixes the clock the window is taken from."""
    clock = now or datetime.now(UTC)
    notes: list[MissingData] = []
    hasher = KeyHasher.from_text(options.salt) if options.anonymize else None
    anonymized: str | None = hasher.describe() if hasher else None
    if options.from_saved is not None:
        if options.last or options.start or options.end:
            raise UserError(
                "--from-saved replays the snapshot's own window: leave out --last, --from and --to",
                exitcodes.USAGE,
            )
        replay = Replay(options.from_saved)
        manifest = replay.manifest
        saved = list(manifest.get("tables", []))
        unknown = [t for t in options.tables if t not in saved]
        if unknown:
            raise UserError(
                f"the snapshot {options.from_saved} holds {', '.join(saved)}, not "
                f"{', '.join(unknown)}",
                exitcodes.USAGE,
            )
        tables = list(options.tables) or saved
        region = str(manifest.get("region", ""))
        window = _window_from(manifest)
        notes += [MissingData(**n) for n in manifest.get("window_notes", [])]
        check = PermissionCheck.from_document(manifest.get("permissions"))
        base: AwsCalls = replay
        if manifest.get("anonymized"):
            anonymized = manifest["anonymized"]
            if hasher is not None:
                progress("the snapshot is anonymized already: its hashes are kept")
                hasher = None
        source = f"snapshot {options.from_saved}"
    else:
        if not options.tables:
            raise UserError("name at least one table (or give --from-saved DIR)", exitcodes.USAGE)
        tables = list(options.tables)
        try:
            window, window_notes = resolve(clock, options.last, options.start, options.end)
        except WindowError as exc:
            raise UserError(str(exc), exitcodes.USAGE) from None
        notes += window_notes
        if live is None:
            boto = session(options.profile, options.region)
            region = str(boto.region_name)
            base = LiveCalls(boto, on_retry=progress)
        else:
            region = options.region or "us-east-1"
            base = live
        progress("checking permissions (iam:SimulatePrincipalPolicy)")
        check = check_permissions(base)
        blocked = [a for a in check.denied if a in REQUIRED]
        if blocked:
            raise UserError(
                f"access denied: IAM says the caller may not call {', '.join(blocked)}, which "
                "an import cannot do without: attach the policy in docs/import.md#permissions",
                exitcodes.AWS_REFUSED,
            )
        source = "account"
    notes += permission_notes(check)
    calls: AwsCalls = base
    if hasher is not None:
        calls = Anonymizer(calls, hasher)
    recorder = Recorder(calls) if options.save is not None else None
    if recorder is not None:
        calls = recorder
    imported: list[TableImport] = []
    complete = False
    try:
        for table in tables:
            try:
                answers = read_table(calls, table, window, progress)
            except CallFailed as exc:
                raise _stop(exc, table, region) from None
            imported.append(build(answers, window))
        complete = True
    finally:
        if recorder is not None and options.save is not None:
            recorder.write(
                options.save,
                {
                    "saved_at": clock.isoformat(),
                    "complete": complete,
                    "region": region,
                    "tables": tables,
                    "window": {
                        "start": window.start.isoformat(),
                        "end": window.end.isoformat(),
                        "period_s": window.period_s,
                    },
                    "window_notes": [
                        {"subject": n.subject, "missing": n.missing, "assumes": n.assumes}
                        for n in notes
                        if n.subject == "window"
                    ],
                    "permissions": check.document(),
                    "anonymized": anonymized,
                    "versions": _versions(),
                },
            )
            progress(f"snapshot saved to {options.save} ({len(recorder.calls)} answers)")
    return ImportResult(region, window, tuple(imported), tuple(notes), source, anonymized)
