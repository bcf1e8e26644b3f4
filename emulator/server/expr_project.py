"""Applying a parsed ProjectionExpression (or AttributesToGet) to an item: the parts
asked for, in the document's shape."""

from __future__ import annotations

from typing import Any

from emulator.server.expr_eval import resolve
from emulator.server.expr_parse import Path
from emulator.server.values import AttributeValue, Item


def project(item: Item, paths: list[Path]) -> Item:
    """The parts of an item a ProjectionExpression asks for (missing paths omitted)."""
    out: Item = {}
    if len(paths) > 1 and any(len(p) > 1 for p in paths):
        # [AWS] list elements come back in index order (`c[2], c[1]` gives [c1, c2]):
        # grafted in document order, list indices compared as numbers.
        paths = sorted(paths, key=_document_order)
    for path in paths:
        value = resolve(item, path)
        if value is None:
            continue
        if len(path) == 1:
            out[str(path[0])] = value
            continue
        _graft(out, path, value)
    return out


def _document_order(path: Path) -> list[tuple[int, int | str]]:
    return [(0, e) if isinstance(e, int) else (1, e) for e in path]


def _graft(out: Item, path: Path, value: AttributeValue) -> None:
    # Nested projection keeps the document's shape; list positions are compacted, as
    # DynamoDB returns them.
    container: Any = out
    for i, element in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(container, dict):
            key = element
            if key not in container:
                container[key] = {"L": []} if isinstance(nxt, int) else {"M": {}}
            holder = container[key]
        else:
            holder = {"L": []} if isinstance(nxt, int) else {"M": {}}
            container.append(holder)
        container = holder.get("M", holder.get("L"))
    last = path[-1]
    if isinstance(container, dict):
        container[last] = value
    else:
        container.append(value)
