"""Client-side latency of the last second (workers' p50/p99)."""

from __future__ import annotations

from textual.widgets import Static


class ClientLatency(Static):
    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.p50: float | None = None
        self.p99: float | None = None

    def show(self, p50: float | None, p99: float | None) -> None:
        self.p50, self.p99 = p50, p99

        def ms(v: float | None) -> str:
            return "-" if v is None else f"{v:,.1f} ms"

        self.update(f"p50 {ms(p50)}\np99 {ms(p99)}")
