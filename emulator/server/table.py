"""The emulator's state of one table: its description, items, indexes and tags.

The capacity lives in the model (`emulator.model.CapacityModel`); this is everything
else DynamoDB keeps about a table. `request` is the table in CreateTable shape, updated
by UpdateTable, so the model and DescribeTable always read the same settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.server.items import ItemStore, KeyDef, KeySchema
from emulator.server.protocol import check_name, invalid_parameter, validation
from emulator.server.streams import Stream
from emulator.tableconfig import MAX_KEY_PARTS

MAX_KEY_NAME_BYTES = 255
"""[AWS] the name of a key attribute of a table or index is at most 255 bytes (other
attribute names, 65,535)."""


@dataclass
class IndexDef:
    """A GSI as the data plane needs it: keys and projection."""

    name: str
    schema: KeySchema
    projection: str
    non_key: tuple[str, ...]
    ready_at: float
    kept: frozenset[str]
    """The attributes its projection holds beside ALL's: the table's and the index's keys,
    and for INCLUDE its NonKeyAttributes. Made once here, as every overwrite of a table
    with a KEYS_ONLY or INCLUDE index asks for it."""


@dataclass
class TableSettings:
    """What a table keeps beside capacity and items (emulator/server/table_settings.py)."""

    pitr_since: float | None = None
    """Point-in-time recovery: enabled since this epoch, or disabled (None)."""
    pitr_days: int = 35
    insights: dict[str | None, tuple[str, float]] = field(default_factory=dict)
    """Contributor Insights by index (None: the table): its mode and when enabled."""
    updating_until: float = 0.0
    """UPDATING until then for a change the endpoint applies itself (a stream enabled or
    disabled); the capacity model keeps its own changes' status."""


@dataclass
class Table:
    """One table."""

    name: str
    arn: str
    table_id: str
    request: dict[str, Any]
    schema: KeySchema
    store: ItemStore
    created_epoch: float
    ready_at: float
    gsis: dict[str, IndexDef] = field(default_factory=dict)
    lsis: dict[str, IndexDef] = field(default_factory=dict)
    """Local secondary indexes, fixed at creation (lsi.py)."""
    tags: dict[str, str] = field(default_factory=dict)
    billing_switched_epoch: float | None = None
    settings: TableSettings = field(default_factory=TableSettings)
    ttl_attribute: str | None = None
    """The Time to Live attribute while TTL is enabled (ttl.py, expiry.py)."""
    stream: Stream | None = None
    """The stream enabled on the table (streams.py), None while none is."""
    latest_stream: Stream | None = None
    """The last stream enabled (LatestStreamArn), kept after it is disabled."""

    def creating(self, now: float) -> bool:
        """Whether the table is still being created (data-plane calls are refused)."""
        return now < self.ready_at

    def status(self, now: float, capacity_status: str = "ACTIVE") -> str:
        """TableStatus: CREATING, then UPDATING while a GSI is created or the capacity
        model applies a change (`capacity_status`, `TableCapacity.status()`), else ACTIVE."""
        if self.creating(now):
            return "CREATING"
        if (
            capacity_status != "ACTIVE"
            or now < self.settings.updating_until
            or any(now < g.ready_at for g in self.gsis.values())
        ):
            return "UPDATING"
        return "ACTIVE"


def index_attributes(gsis: dict[str, IndexDef]) -> tuple[frozenset[str], bool]:
    """What an item store must keep for these GSIs (`ItemStore.set_indexes`): the names
    of their key and INCLUDE attributes, and whether one projects ALL."""
    keep: set[str] = set()
    for index in gsis.values():
        keep.update(index.schema.names)
        if index.projection == "INCLUDE":
            keep.update(index.non_key)
    return frozenset(keep), any(i.projection == "ALL" for i in gsis.values())


def attribute_types(request: dict[str, Any]) -> dict[str, str]:
    """AttributeDefinitions as {name: type}, checked."""
    defs = request.get("AttributeDefinitions")
    if not isinstance(defs, list) or not defs:
        raise validation(
            "1 validation error detected: Value null at 'attributeDefinitions' "
            "failed to satisfy constraint: Member must not be null"
        )
    out: dict[str, str] = {}
    for number, entry in enumerate(defs, 1):
        if not isinstance(entry, dict):
            raise validation("AttributeDefinitions entries must be objects")
        name, kind = entry.get("AttributeName"), entry.get("AttributeType")
        if isinstance(kind, str) and kind not in ("S", "N", "B"):
            raise validation(
                f"1 validation error detected: Value '{kind}' at 'attributeDefinitions."
                f"{number}.member.attributeType' failed to satisfy constraint: Member must "
                "satisfy enum value set: [B, N, S]"
            )
        if not isinstance(name, str) or not name or kind not in ("S", "N", "B"):
            raise validation(
                "One or more parameter values were invalid: AttributeDefinitions "
                "need an AttributeName and an AttributeType of S, N or B"
            )
        if len(name.encode()) > MAX_KEY_NAME_BYTES:
            raise validation(
                "One or more parameter values were invalid: Number of bytes in key "
                f"attribute name {name[:20]}... exceeds the limit of {MAX_KEY_NAME_BYTES}"
            )
        if name in out:
            # [AWS] DynamoDB's words (observed on AWS: scylladb/scylladb#13870).
            raise validation(f"Attribute Name is duplicated: {name}")
        out[name] = kind
    return out


def key_schema(raw: Any, types: dict[str, str], where: str, multi: bool = False) -> KeySchema:
    """A KeySchema member, checked against the attribute definitions; `multi`: a GSI's,
    whose partition and sort keys may each have up to four attributes."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= (2 * MAX_KEY_PARTS if multi else 2):
        raise validation(
            f"1 validation error detected: Value at '{where}' failed to satisfy "
            "constraint: Member must have length between 1 and 2"
        )
    for entry in raw:
        if not isinstance(entry, dict):
            raise validation("KeySchema entries must be objects")
    names = [entry.get("AttributeName") for entry in raw]
    if any(not isinstance(name, str) or name not in types for name in names):
        raise validation(
            "One or more parameter values were invalid: Some index key "
            "attributes are not defined in AttributeDefinitions. Keys: "
            f"[{', '.join(str(n) for n in names)}], AttributeDefinitions: [{', '.join(types)}]"
        )
    kinds = [entry.get("KeyType") for entry in raw]
    if multi and kinds != ["HASH", "RANGE"]:
        return _multi_key_schema(names, kinds, types)
    # [AWS] in DynamoDB's order: one name twice, then the first element a HASH key and
    # the second a RANGE key (whatever order the client meant them in).
    if len(names) == 2 and names[0] == names[1]:
        raise validation(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name"
        )
    if kinds[0] != "HASH":
        raise validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(raw) == 2 and kinds[1] != "RANGE":
        raise validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
    pk = KeyDef(names[0], types[names[0]])
    sk = KeyDef(names[1], types[names[1]]) if len(names) == 2 else None
    return KeySchema(pk, sk)


def _multi_key_schema(names: list[Any], kinds: list[Any], types: dict[str, str]) -> KeySchema:
    """A GSI's key schema of several partition-key or sort-key attributes: every HASH
    element before every RANGE element, at most four of each, no name twice. The words
    are DynamoDB's (observed on AWS: ack-api-quirks DDB-TABLE-123, 2026-10-08; the
    first-element rule as for a table, alchemy-run/alchemy#1216, probed live)."""
    if len(set(names)) != len(names):
        raise validation("The KeySchema contains multiple key attributes with the same name")
    if kinds[0] != "HASH":
        raise validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    hashes = 0
    while hashes < len(kinds) and kinds[hashes] == "HASH":
        hashes += 1
    if "HASH" in kinds[hashes:]:
        raise validation(
            "All HASH key attributes must precede RANGE key attributes in the KeySchema"
        )
    if hashes > MAX_KEY_PARTS:
        raise validation("The KeySchema exceeds the maximum allowed number of HASH key attributes")
    if len(kinds) - hashes > MAX_KEY_PARTS:
        raise validation("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
    defs = [KeyDef(str(n), types[str(n)]) for n in names]
    hash_keys, range_keys = defs[:hashes], defs[hashes:]
    return KeySchema(
        hash_keys[0],
        range_keys[0] if range_keys else None,
        tuple(hash_keys[1:]),
        tuple(range_keys[1:]),
    )


def index_defs(
    request: dict[str, Any],
    types: dict[str, str],
    ready_at: float,
    table_keys: tuple[str, ...],
    old: dict[str, IndexDef] | None = None,
    multi: bool = True,
) -> dict[str, IndexDef]:
    """The GSIs of a CreateTable-shaped request of a table keyed on `table_keys`
    (`multi` False: LSIs, parsed alike but keyed on one attribute each)."""
    out: dict[str, IndexDef] = {}
    for raw in request.get("GlobalSecondaryIndexes") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("IndexName"), str):
            raise validation("GlobalSecondaryIndexes entries need an IndexName")
        name = raw["IndexName"]
        check_name(name, "indexName")
        if name in out:
            raise validation(
                f"One or more parameter values were invalid: Duplicate index name: {name}"
            )
        schema = key_schema(raw.get("KeySchema"), types, "globalSecondaryIndexes.keySchema", multi)
        raw_projection = raw.get("Projection")
        projection: dict[str, Any] = raw_projection if isinstance(raw_projection, dict) else {}
        ptype = projection.get("ProjectionType")
        if ptype is None:
            # [AWS] an empty Projection: DynamoDB names the type it could not find.
            raise invalid_parameter("Unknown ProjectionType: null")
        non_key = projection.get("NonKeyAttributes") or []
        if not isinstance(non_key, list) or not all(isinstance(a, str) for a in non_key):
            raise validation("NonKeyAttributes must be a list of attribute names")
        if projection.get("NonKeyAttributes") is not None and ptype != "INCLUDE":
            raise invalid_parameter(f"ProjectionType is {ptype}, but NonKeyAttributes is specified")
        previous = (old or {}).get(name)
        kept = frozenset(table_keys) | frozenset(schema.names)
        if ptype == "INCLUDE":
            kept |= frozenset(non_key)
        out[name] = IndexDef(
            name,
            schema,
            str(ptype),
            tuple(non_key),
            previous.ready_at if previous else ready_at,
            kept,
        )
    return out
