"""What `hotbench import` prints: per table, a few lines of what was read (the
definition, auto scaling, requests per operation with their peaks, throttles by
reason, hot keys and the fitted tail), then every missing piece in one line each with
what the playbook assumes instead. Pure: a result in, lines out.
"""

from __future__ import annotations

from console.importer.import_result import ImportResult, KeyDistribution, TableImport, TimeWindow


def _n(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _peak(values: tuple[float, ...], window: TimeWindow) -> str:
    if not values or max(values) <= 0:
        return "no peak"
    i = max(range(len(values)), key=values.__getitem__)
    return f"peak {values[i] / window.period_s:,.0f}/s at {window.period_start(i):%H:%M}"


def _definition(table: TableImport) -> str:
    d = table.definition
    if d.billing_mode == "PROVISIONED":
        peaks = [
            table.series_of(m)
            for m in ("ProvisionedReadCapacityUnits", "ProvisionedWriteCapacityUnits")
        ]
        top = [max(s.values) if s is not None and s.returned else None for s in peaks]
        mode = f"PROVISIONED {_n(d.provisioned.read)} RCU / {_n(d.provisioned.write)} WCU now"
        if any(top):
            mode += f" (window peak {_n(top[0])} / {_n(top[1])})"
    else:
        mode = "PAY_PER_REQUEST"
        if d.on_demand_max.read or d.on_demand_max.write:
            mode += f", on-demand max {_n(d.on_demand_max.read)} / {_n(d.on_demand_max.write)}"
    warm = ""
    if d.warm_throughput.read or d.warm_throughput.write:
        warm = f", warm {_n(d.warm_throughput.read)} / {_n(d.warm_throughput.write)}"
    keys = d.partition_key.name + (f" + {d.sort_key.name}" if d.sort_key else "")
    return (
        f"{d.name} ({keys}): {mode}{warm}, {d.table_class}, {d.item_count:,} items, "
        f"{table.item_bytes:,.0f} B each ({table.item_bytes_source})"
    )


def _indexes(table: TableImport) -> str | None:
    d = table.definition
    parts = [
        f"{i.kind} {i.name} ({i.partition_key.name}"
        + (f" + {i.sort_key.name}" if i.sort_key else "")
        + f", {i.projection})"
        for i in (*d.gsis, *d.lsis)
    ]
    return "indexes: " + ", ".join(parts) if parts else None


def _scaling(table: TableImport) -> str | None:
    a = table.auto_scaling
    if not a.targets:
        return None
    parts = []
    for t in a.targets:
        side = "read" if "Read" in t.dimension else "write"
        policy = next(
            (p for p in a.policies if p.index == t.index and p.dimension == t.dimension), None
        )
        target = (
            f" at {policy.target_value:g} %"
            if policy is not None and policy.target_value is not None
            else ""
        )
        parts.append(f"{t.index or 'table'} {side} {t.min_capacity:,}-{t.max_capacity:,}{target}")
    return "auto scaling: " + ", ".join(parts)


def _keys(key: KeyDistribution) -> str:
    where = key.index or "table"
    if key.fit is None:
        return f"keys {key.attribute} ({where}): {key.source}"
    top = ", ".join(f"{'/'.join(c.keys)} {c.share * 100:.2f} %" for c in key.hot[:3])
    line = f"keys {key.attribute} ({where}): {top}; top {len(key.hot)} of ~{key.fit.unique:,}"
    tail = key.fit.tail
    if tail is not None:
        line += (
            f"; tail Zipf s {tail.exponent:.2f} over {tail.keys:,} keys holding "
            f"{tail.mass * 100:.1f} %"
        )
    return line


def lines(result: ImportResult) -> list[str]:
    w = result.window
    out = [
        f"import from {result.source} ({result.region}): {w.start:%Y-%m-%d %H:%M} to "
        f"{w.end:%Y-%m-%d %H:%M} UTC, {w.periods:,} periods of {w.period_s} s"
        + (f"; keys anonymized ({result.anonymized})" if result.anonymized else "")
    ]
    for table in result.tables:
        out.append(_definition(table))
        for extra in (_indexes(table), _scaling(table)):
            if extra:
                out.append("  " + extra)
        if table.operations:
            out.append(
                "  requests: "
                + ", ".join(
                    f"{o.operation} {o.total:,.0f} ({_peak(o.requests, w)})"
                    for o in sorted(table.operations, key=lambda o: -o.total)
                )
            )
        if table.throttles:
            out.append(
                "  throttles: "
                + ", ".join(
                    f"{t.reason}{f' on {t.index}' if t.index else ''} {t.events:,.0f} "
                    f"({_peak(t.per_period, w)})"
                    for t in table.throttles
                )
            )
        for key in table.keys:
            out.append("  " + _keys(key))
    missing = [m.line() for m in result.missing] + [
        m.line() for t in result.tables for m in t.missing
    ]
    if missing:
        out.append("missing (each with what the playbook assumes instead):")
        out += ["  " + m for m in missing]
    return out
