"""Partitions (what no AWS console shows): locally, each table's and index's partition map
from the emulator, live: key ranges, heat against the limit, splits, the hot keys."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from console.tui.screens.base import TuiScreen
from console.tui.widgets.partition_map import PartitionMap, serving_keys


def clock_words(pmap: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """The emulator's clock now, beside the map whose times (hot since, split at) are
    on it: `hot since 412 s` says nothing without `now 431 s`."""
    now = (pmap or {}).get("now_s")
    if now is None:
        return ()
    return (
        ("\nemulator clock now ", "dim"),
        (f"{now:,.0f} s", "bold"),
        (
            "  (hot since, split at: on this clock)",
            "dim",
        ),
    )


class PartitionsScreen(TuiScreen):
    TITLE = "PARTITIONS"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "cycle(-1)", "prev table"),
        Binding("right_square_bracket", "cycle(1)", "next table"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.variant_index: int | None = None
        """None: follow the table running now; `[`/`]` choose one."""
        self.serving: dict[str, dict[str | None, dict[str, int]]] = {}
        """Per variant, per index (None: the table), hot key -> partitions serving it."""

    def compose_body(self) -> ComposeResult:
        yield Static("", id="partitions-head")
        with VerticalScroll():
            yield Static("", id="partitions-keys")
            yield PartitionMap(id="partitions-map", show_cursor=False, zebra_stripes=True)

    def variants(self) -> list[str]:
        state = self.session.state
        return list(state.tables) if state is not None else []

    @property
    def variant(self) -> str | None:
        variants = self.variants()
        if not variants:
            return None
        current = self.session.current_label
        if self.variant_index is None:
            running = current.split("#")[0] if current else None
            return running if running in variants else variants[0]
        return variants[self.variant_index % len(variants)]

    def action_cycle(self, step: int) -> None:
        shown = self.variant
        variants = self.variants()
        start = variants.index(shown) if shown in variants else 0
        self.variant_index = start + step
        self.refresh_view()

    def wants_partitions(self) -> list[str]:
        return [self.variant] if self.variant else []

    def show_body(self) -> None:
        head = self.query_one("#partitions-head", Static)
        state, variant = self.session.state, self.variant
        if state is None or variant is None or not state.billable_up:
            # after `down` too: there is no map to wait for
            head.update("Nothing is up: partitions exist once the tables do.")
            self.query_one(PartitionMap).show(None)
            self.query_one("#partitions-keys", Static).update("")
            return
        if self.console.backend.target(state).hot_key_view == "insights":
            head.update(
                Text.assemble(
                    (variant, "bold"),
                    "  [ ] other tables  AWS shows no partition map: Contributor Insights "
                    "(the last 5 minutes, refreshed each minute)",
                )
            )
            self.query_one(PartitionMap).display = False
            self.query_one("#partitions-keys", Static).update(self._insights(variant))
            return
        pmap = self.session.partitions.get(variant)
        count = len(self.variants())
        head.update(
            Text.assemble(
                (f"{variant}", "bold"),
                f" ({self.variants().index(variant) + 1}/{count})  [ ] other tables  ",
                (f"{state.tables[variant].name}", "dim"),
                *clock_words(pmap),
            )
        )
        self.query_one(PartitionMap).show(pmap)
        self.query_one("#partitions-keys", Static).update(self._keys(variant, pmap))

    def _insights(self, variant: str) -> Text:
        text = Text()
        if variant not in self.session.insights:
            return Text("asking CloudWatch…", style="dim")
        rules = self.session.insights[variant]
        if not rules:
            return Text(
                "Contributor Insights is not enabled on this table: set contributor_insights "
                "in the playbook's table to see its most accessed and throttled keys",
                style="dim",
            )
        for rule in rules:
            text.append(f"{rule['index'] or 'table'}: {rule['rule']}\n", style="bold")
            for keys, value in rule["contributors"] or [("(no contributors yet)", 0.0)]:
                text.append(f"  {value:>12,.0f}  {keys}\n")
        return text

    def _keys(self, variant: str, pmap: dict[str, Any] | None) -> Text:
        text = Text()
        if pmap is None:
            text.append("waiting for the emulator's partition map…", style="dim")
            return text
        hot = self.session.hot_keys.get(variant, [])
        per_index: dict[str | None, dict[str, int]] = {}
        for index in pmap.get("indexes", []):
            name = index.get("index")
            per_index[name] = serving_keys(index, hot)
            ceiling = index.get("on_demand_ceiling")
            warm = index.get("warm_throughput") or {}
            text.append(f"{name or 'table'}: ", style="bold")
            text.append(
                f"{index.get('partition_count', 0)} partitions, {index.get('splits', 0)} splits"
            )
            if warm.get("write"):
                text.append(f", warm W {warm['write']:,.0f}")
            if ceiling:
                text.append(f", on-demand ceiling W {ceiling.get('write', 0):,.0f}")
            # "WH1 on 1" read as "on partition 1": say it is a count of partitions
            served = ", ".join(
                f"{k} served by {n} partition{'s' if n != 1 else ''}"
                for k, n in per_index[name].items()
            )
            text.append(f"\n  hot keys: {served or '-'}\n", style="yellow")
        self.serving[variant] = per_index
        return text
