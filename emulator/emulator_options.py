"""`EmulatorOptions`: what an emulator is started with, as one object.

The same choices (capacity parameters, scale, CreateTable delay, item store, memory
bound, the stream records' budget, the signature check) reach an emulator four ways:
`hotbench emulator serve`'s flags, a one-shot `hotbench run`'s in-process server, the
emulator process `hotbench up` starts, and a test's `EmulatorServer`. They travel as this
object from the flags to `EmulatorState`, never as parameters passed along one by one.
Here, not in emulator/server/: the console builds it without loading the endpoint
package.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.paramsfile import LoadedParams


@dataclass(frozen=True)
class EmulatorOptions:
    params: LoadedParams = field(default_factory=LoadedParams)
    """The capacity parameters and the file they came from (`--params`; an emulator in
    another process is given the file)."""
    scale: float | None = None
    """Every capacity figure multiplied by it (None: 1; metrics stay full-scale)."""
    create_delay_s: float | None = None
    """CreateTable -> ACTIVE (None: the model's create_table_s, 7.4 s)."""
    store: str = "full"
    """What it keeps of each item: "full", or "keys" (keys, index attributes and sizes)."""
    max_memory: int | None = None
    """Bytes past which writes of new items are refused (None: half the machine's)."""
    stream_bytes: int | None = None
    """What the records of all streams may take before the oldest are trimmed (None:
    256 MiB; docs/emulator.md, Streams)."""
    check_signatures: bool = False
    """Verify each request's SigV4 signature against the environment's access key (or
    x / x), as DynamoDB does (emulator/server/signatures.py)."""

    def argv(self) -> list[str]:
        """As `hotbench emulator serve`'s flags, for an emulator in its own process."""
        argv = ["--scale", f"{1.0 if self.scale is None else self.scale:g}"]
        if self.create_delay_s is not None:
            argv += ["--create-delay", f"{self.create_delay_s:g}"]
        argv += ["--store", self.store]
        if self.max_memory is not None:
            argv += ["--max-memory", str(self.max_memory)]
        if self.params.path is not None:
            argv += ["--params", self.params.path]
        if self.stream_bytes is not None:
            argv += ["--stream-memory", str(self.stream_bytes)]
        if self.check_signatures:
            argv += ["--check-signatures"]
        return argv
