"""A snapshot: every raw AWS answer an import got, kept as JSON in a folder, and its
replay with no credentials (`hotbench import --from-saved DIR`).

    DIR/manifest.json            what was imported: region, tables, window, the
                                 permission check's outcome, anonymization, the calls
    DIR/calls/0001-dynamodb-DescribeTable.json
                                 {"service", "operation", "params", "response"} or,
                                 for an error, {..., "error": {"code", "message"}}

Answers are stored as botocore parsed them, minus ResponseMetadata (request ids and HTTP
headers: noise, and nothing the import reads). Timestamps are written in ISO 8601 and
read back as aware datetimes by walking the operation's output shape in botocore's
service model, so a replayed answer has the same Python types as a live one and the
reader runs the same code on both. A replay answers a call by its service, operation
and parameters; a call the snapshot does not hold is an error naming it (the snapshot
is of another window, tables or version).
"""

from __future__ import annotations

import functools
import gzip
import json
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from console import exitcodes
from console.importer.aws_calls import AwsCalls, CallFailed
from console.output import UserError

FORMAT = "hotbench-import-snapshot"
VERSION = 1
MANIFEST = "manifest.json"


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not kept in a snapshot")


def dumps(value: Any) -> str:
    """JSON with datetimes in ISO 8601; keys sorted, so equal answers are equal text."""
    return json.dumps(value, default=_default, sort_keys=True, indent=1)


def canonical(params: Mapping[str, Any]) -> str:
    """A call's parameters as the text a replay looks them up by."""
    return json.dumps(params, default=_default, sort_keys=True, separators=(",", ":"))


def revive_shape(value: Any, shape: Any) -> Any:
    kind = shape.type_name
    if value is None:
        return None
    if kind == "structure":
        return {
            k: (revive_shape(v, shape.members[k]) if k in shape.members else v)
            for k, v in value.items()
        }
    if kind == "list":
        return [revive_shape(v, shape.member) for v in value]
    if kind == "map":
        return {k: revive_shape(v, shape.value) for k, v in value.items()}
    if kind == "timestamp" and isinstance(value, str):
        return datetime.fromisoformat(value)
    return value


@functools.cache
def _output_shape(service: str, operation: str) -> Any:
    """The operation's output shape in botocore's service model (loaded once: a
    botocore session reads its data files on every model it is asked for)."""
    return _models().get_service_model(service).operation_model(operation).output_shape


@functools.cache
def _models() -> Any:
    import botocore.session

    return botocore.session.get_session()


def revive(service: str, operation: str, answer: dict[str, Any]) -> dict[str, Any]:
    """A stored answer with its timestamps as aware datetimes again."""
    shape = _output_shape(service, operation)
    return revive_shape(answer, shape) if shape is not None else answer


@dataclass
class RecordedCall:
    service: str
    operation: str
    params: dict[str, Any]
    response: dict[str, Any] | None = None
    error: dict[str, str] | None = None

    def document(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "service": self.service,
            "operation": self.operation,
            "params": self.params,
        }
        if self.error is not None:
            out["error"] = self.error
        else:
            out["response"] = self.response
        return out


@dataclass
class Recorder:
    """Passes every call to `inner` and keeps its answer (or error) for `write`."""

    inner: AwsCalls
    calls: list[RecordedCall] = field(default_factory=list)

    def call(self, service: str, operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
        kept = json.loads(canonical(params))
        try:
            answer = self.inner.call(service, operation, params)
        except CallFailed as exc:
            self.calls.append(
                RecordedCall(
                    service, operation, kept, error={"code": exc.code, "message": exc.message}
                )
            )
            raise
        self.calls.append(
            RecordedCall(service, operation, kept, response=json.loads(dumps(answer)))
        )
        return answer

    def write(self, folder: Path, manifest: dict[str, Any]) -> Path:
        """The snapshot: one file per call, then the manifest listing them (written
        last, so a folder with a manifest is complete)."""
        try:
            calls_dir = folder / "calls"
            calls_dir.mkdir(parents=True, exist_ok=True)
            for old in calls_dir.glob("*.json"):
                old.unlink()
            names = []
            for i, rec in enumerate(self.calls, start=1):
                name = f"calls/{i:04d}-{rec.service}-{rec.operation}.json"
                (folder / name).write_text(dumps(rec.document()) + "\n", encoding="utf-8")
                names.append(name)
            document = {"format": FORMAT, "version": VERSION, **manifest, "calls": names}
            (folder / MANIFEST).write_text(dumps(document) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UserError(
                f"cannot write the snapshot to {folder}: {exc.strerror}; choose another --save",
                exitcodes.USAGE,
            ) from None
        return folder


def read_json(path: Path) -> Any:
    """A snapshot file, or its gzipped copy (`gzip -r DIR` before attaching it)."""
    if not path.exists() and path.with_name(path.name + ".gz").exists():
        with gzip.open(path.with_name(path.name + ".gz"), "rt", encoding="utf-8") as f:
            return json.load(f)
    return json.loads(path.read_text(encoding="utf-8"))


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    try:
        document = read_json(path)
    except FileNotFoundError:
        raise UserError(
            f"{folder} is not an import snapshot (no {MANIFEST}): give the folder "
            "`hotbench import --save DIR` wrote",
            exitcodes.USAGE,
        ) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read {path}: {exc}", exitcodes.USAGE) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise UserError(f"{path} is not a hotbench import snapshot", exitcodes.USAGE)
    if document.get("version") != VERSION:
        raise UserError(
            f"{path} is snapshot version {document.get('version')}; this hotbench reads "
            f"version {VERSION}: import again with --save",
            exitcodes.USAGE,
        )
    return document


class Replay:
    """Answers calls from a snapshot, in the order each was recorded."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.manifest = read_manifest(folder)
        self._answers: dict[tuple[str, str, str], deque[dict[str, Any]]] = defaultdict(deque)
        for name in self.manifest.get("calls", []):
            path = folder / name
            try:
                rec = read_json(path)
            except (OSError, json.JSONDecodeError) as exc:
                raise UserError(
                    f"cannot read {path}: {exc}; the snapshot is incomplete", exitcodes.USAGE
                ) from None
            key = (rec["service"], rec["operation"], canonical(rec["params"]))
            self._answers[key].append(rec)

    def call(self, service: str, operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
        key = (service, operation, canonical(params))
        queue = self._answers.get(key)
        if not queue:
            raise UserError(
                f"the snapshot {self.folder} holds no answer for {service} {operation} "
                f"{canonical(params)[:200]}: it was saved for another window or tables, or "
                "by another hotbench version; import from the account again with --save",
                exitcodes.USAGE,
            )
        rec = queue.popleft() if len(queue) > 1 else queue[0]
        if "error" in rec:
            raise CallFailed(service, operation, rec["error"]["code"], rec["error"]["message"])
        return revive(service, operation, json.loads(json.dumps(rec["response"])))
