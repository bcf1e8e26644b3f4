"""One request in flight in a live worker: when it left and where its outcome is counted.

The worker's send loop (loadgen.live.measure) makes one per request of a one-operation phase;
a scenario step's request (loadgen.live.live_users) is the same record with two hooks set:
its reply is read for the application too (`read`) and its user is woken once the
attempt was counted (`settle`). One record, so the worker's one counting rule
(`Measurement._done`) handles both without knowing which it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loadgen.load.requests import AttemptOutcome, classify

if TYPE_CHECKING:
    from loadgen.live.messages import PhaseShare
    from loadgen.results.records import Counts


class InFlight:
    """A request sent and not yet answered (see the module docstring)."""

    __slots__ = ("counts", "is_write", "phase", "run_t", "sent_at")

    def __init__(
        self,
        sent_at: float,
        counts: Counts,
        phase: PhaseShare,
        run_t: float,
        is_write: bool = False,
    ) -> None:
        self.sent_at = sent_at
        self.counts = counts
        """The second of the run its outcome is counted in."""
        self.phase = phase
        self.run_t = run_t
        self.is_write = is_write
        """Its units count as written (consumed_wcu) rather than read."""

    def read(self, status: int, body: bytes) -> AttemptOutcome:
        """The counted outcome of the reply."""
        return classify(status, body)

    def settle(self, error: str | None) -> None:
        """Called once the attempt was counted (`error`: the client's, e.g. Timeout)."""
