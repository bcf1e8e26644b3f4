"""The emulator's memory bound: past it, writes of new items are refused, clearly.

Items live in the server's memory. Without a bound, a long run with fresh keys grows
the process until the kernel kills it, and the user gets neither a result nor a reason.
With one, a write that would add an item to a table of SMALL_TABLE_ITEMS items or more is
refused with a ValidationException naming the bound and the fix, while overwrites, deletes,
reads and small tables go on (they do not grow the store, or hardly: a control table such as
`hotbench run`'s results table must keep working to end the run cleanly), and `hotbench
run` sees the bound reached (`status()`) and ends the run as partial.

Why a ValidationException (HTTP 400): every AWS SDK treats it as final and raises it at
once with its message. A 5xx would be retried by every SDK, and LimitExceededException,
the name that would fit, is retried as a throttle by botocore's standard retry mode, so a
client would spend its retries, or minutes of backoff, on a refusal that cannot pass.

The bound is on the process's resident memory (RSS), read from /proc/self/statm at most
once every CHECK_EVERY new items (a read costs a few microseconds; between two reads at
most CHECK_EVERY items, a few megabytes, can pass the bound).
"""

from __future__ import annotations

import os
import re
import resource
import sys
from typing import Any, Final

from emulator.server.protocol import DynamoError, validation

CHECK_EVERY: Final = 1024
SMALL_TABLE_ITEMS: Final = 10_000
"""Tables with fewer items still take new ones past the bound (at most a few MB each)."""
DEFAULT_SHARE: Final = 0.5
"""The default bound: this share of the machine's physical memory (the rest is for the
load generator's workers and everything else the machine runs)."""
FALLBACK_BYTES: Final = 8 * 1024**3
"""The default bound where the machine's memory cannot be read."""

_UNITS: Final = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SIZE: Final = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str, flag: str = "--max-memory") -> int:
    """A size such as 2G, 1500M, 512MiB or 1073741824 (bytes), in bytes; `flag` names the
    option it came from in the message of a ValueError."""
    match = _SIZE.match(text)
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(
            f"{flag} {text!r} is not a size: give a positive number of bytes with "
            "an optional unit K, M, G or T (powers of 1024), e.g. 2G or 1500M"
        )
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def format_size(size: int) -> str:
    """Bytes as the largest whole-ish unit: 1.5 GiB, 800 MiB."""
    for unit in ("T", "G", "M", "K"):
        scale = _UNITS[unit]
        if size >= scale:
            return f"{size / scale:.3g} {unit}iB"
    return f"{size} B"


def machine_memory() -> int | None:
    """The machine's physical memory in bytes, or None where it cannot be read."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def default_max_memory() -> int:
    """DEFAULT_SHARE of the machine's memory (FALLBACK_BYTES if unknown)."""
    total = machine_memory()
    return int(total * DEFAULT_SHARE) if total else FALLBACK_BYTES


def current_rss() -> int:
    """This process's resident memory in bytes: /proc/self/statm on Linux, else the
    peak resident size (getrusage), which can only overstate it."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak) if sys.platform == "darwin" else int(peak) * 1024


class MemoryBound:
    """The bound of one emulator process and what it refused."""

    def __init__(self, limit_bytes: int, store: str) -> None:
        self.limit_bytes = limit_bytes
        self.store = store
        self.reached = False
        """Whether the last reading was at or past the bound."""
        self.rss_bytes = 0
        """The last reading."""
        self.refused = 0
        """Requests refused for adding items, so far."""
        self.small_table_items = SMALL_TABLE_ITEMS
        self._until_check = 0

    def bounds(self, table_items: int) -> bool:
        """Whether new items of a table holding `table_items` are subject to the bound."""
        return table_items >= self.small_table_items

    def admit_new_item(self, table_items: int) -> None:
        """Called before a write that adds an item to a table holding `table_items`;
        raises the refusal past the bound. Once reached, the bound is read again every
        CHECK_EVERY attempts, so deletes that free memory let new items in again."""
        if table_items >= self.small_table_items:
            self.admit_new_items(1)

    def admit_new_items(self, count: int) -> None:
        """A request adding `count` items to bounded tables (0: nothing to check)."""
        if count <= 0:
            return
        self._until_check -= count
        if self._until_check <= 0:
            self._until_check = CHECK_EVERY
            self.rss_bytes = current_rss()
            self.reached = self.rss_bytes >= self.limit_bytes
        if self.reached:
            self.refused += 1
            raise self.refusal()

    def refusal(self) -> DynamoError:
        fix = (
            "restart it with --store keys (it keeps only keys, index attributes and sizes, "
            "a few hundred bytes an item) or with a larger --max-memory"
            if self.store == "full"
            else "restart it with a larger --max-memory, or run a shorter or smaller load"
        )
        return validation(
            f"The hotbench emulator reached its memory bound: the process holds "
            f"{format_size(self.rss_bytes)} of the {format_size(self.limit_bytes)} allowed "
            f"(--max-memory), so writes of new items are refused (overwrites, deletes and "
            f"reads still work); {fix}"
        )

    def status(self) -> dict[str, Any]:
        """The `memory` member of /_hotbench/metrics (docs/emulator.md)."""
        return {
            "store": self.store,
            "max_memory_bytes": self.limit_bytes,
            "rss_bytes": current_rss(),
            "bound_reached": self.reached,
            "refused_new_items": self.refused,
            "message": self.refusal().message if self.refused else None,
        }
