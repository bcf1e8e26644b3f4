"""Key classes: how a phase's requests fall on partitions, as a distribution.

The aggregate engine (loadgen/simulation/aggregate.py) never draws a request's keys. It
needs, for one table and phase, the probability that a request takes each *route* (its
partition in the table and in every GSI it writes), and, for the few requests the model
looks at (a partition keeps samples of the keys it served to choose where to split), a
key drawn from the requests of one route. This module computes both from the playbook's
distributions and the partition map, and recomputes them when the map changes.

How. The attributes that place a request (each key space's partition key, and its sort
key where a hot key's item collection is split by sort-key range) are drawn
independently (`loadgen.load.keys.ItemGenerator`), except a `per_item` one, derived from
the item's primary key. They are held in *factors*, sets of attributes drawn together:
one attribute, or a finite primary key enumerated with the per-item attributes derived
from it. A factor's values fall in *classes* by their label in every role they play:
the partition their hash lands on, whether it is a hot key whose collection is split
(then the value is its own class), and for a sort key, the sort-key range it falls in
within each split collection. Factors linked by a split collection (its partition key's
factor and its sort key's) form a *group*, whose classes are the product of its factors';
groups are independent, so a route's probability is the product of its groups'.

Values are either enumerated (a finite attribute up to ENUM_LIMIT values: every value
with its probability, hash and sort position exactly as the per-request engine maps
them), or *streamed* (uuid, monotonic, and uniform attributes with more values): their
hashes are a splitmix of a random index (`loadgen.load.keys.mix64`), so the share of a
hash range is its width; a member of a class is drawn with a hash uniform in its range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from emulator.keyspace import HASH_SPACE, KeySpace
from loadgen.load.keys import ItemGenerator, Sampler
from loadgen.simulation.key_mapper import KeyMapper

ENUM_LIMIT = 1 << 21
"""Finite attributes (or primary keys with per-item attributes) up to this many values
are enumerated; beyond it a uniform attribute is streamed and any other is left to the
per-request engine (its probabilities alone would not fit in memory sensibly)."""
UUID_POSITIONS = float(1 << 63)
"""A uuid's sort position is its random 63-bit index (loadgen.simulation.key_mapper)."""


@dataclass(frozen=True)
class Dim:
    """One key space a request is placed in: the table, or a GSI it writes."""

    keyspace: KeySpace
    pk: str
    sk: str | None


class Unsupported(ValueError):
    """A phase whose keys the aggregate engine cannot classify (the reason, in words)."""


def _stream_kind(sampler: Sampler) -> str | None:
    if sampler.finite is None:
        return "monotonic" if sampler.monotonic else "uuid"
    if sampler.top is not None and sampler.top[1] * sampler.finite <= 1.0 + 1e-9:
        return "uniform"  # every value equally likely
    return None


class Factor:
    """Attributes drawn together, and their classes under the current partition map."""

    attrs: list[str]
    n_classes: int
    probs: np.ndarray
    """Each class's probability."""

    def relabel(self, roles: list[tuple[int, str, str]], dims: list[Dim]) -> None:
        """Recompute the classes; `roles` are (dim index, "P" or "S", attribute)."""
        raise NotImplementedError

    def route_keys(self, attr: str) -> tuple[np.ndarray, np.ndarray]:
        """A member's (hash, position) of `attr` per class: any member places the class."""
        raise NotImplementedError

    def draw(
        self, rng: np.random.Generator, classes: np.ndarray, seq: int, span: int
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """One member of each given class, drawn with its probability within the class:
        (hashes, positions) per attribute. `seq`, `span`: the sequence numbers of the
        requests these stand for (a monotonic attribute's values)."""
        raise NotImplementedError


def _collections(ks: KeySpace) -> list[tuple[int, np.ndarray]]:
    """A key space's split item collections: (partition-key hash, sort-key bounds)."""
    return [
        (pk, np.array(split.bounds, dtype=np.float64))
        for pk, split in sorted(ks.collections.items())
    ]


def _compress(labels: list[np.ndarray], size: int) -> tuple[np.ndarray, int]:
    """Members' class ids from their labels in every role (0..k-1), and k."""
    if not labels:
        return np.zeros(size, dtype=np.int64), 1
    key = np.zeros(size, dtype=np.int64)
    radix = 1
    for lab in labels:
        _, inverse = np.unique(lab, return_inverse=True)
        k = int(inverse.max()) + 1 if size else 1
        if radix * k >= (1 << 62):
            _, key = np.unique(key, return_inverse=True)
            radix = int(key.max()) + 1 if size else 1
        key = key * k + inverse.reshape(-1)
        radix *= k
    _, classes = np.unique(key, return_inverse=True)
    classes = classes.reshape(-1)
    return classes, (int(classes.max()) + 1 if size else 1)


class ExactFactor(Factor):
    """Enumerated members: every value (or primary key with its per-item attributes),
    with its probability, hash and sort position as the per-request engine maps them."""

    def __init__(
        self,
        attrs: list[str],
        index: dict[str, np.ndarray],
        probs: np.ndarray,
        mappers: dict[str, KeyMapper],
    ) -> None:
        self.attrs = attrs
        self.member_probs = probs
        self.hashes = {a: mappers[a].hashes(index[a]) for a in attrs}
        self.positions = {a: mappers[a].positions(index[a]) for a in attrs}
        self.n_classes = 1
        self.probs = np.ones(1)
        self._set_classes(np.zeros(len(probs), dtype=np.int64), 1)

    def _set_classes(self, classes: np.ndarray, k: int) -> None:
        self.n_classes = k
        self.classes = classes
        self.probs = np.bincount(classes, weights=self.member_probs, minlength=k)
        order = np.argsort(classes, kind="stable")
        self.order = order
        sorted_classes = classes[order]
        within = np.cumsum(self.member_probs[order])
        starts = np.searchsorted(sorted_classes, np.arange(k), side="left")
        before = np.where(starts > 0, within[np.maximum(starts - 1, 0)], 0.0)
        # Member i of class c sits at c + (its cumulative share of c): one search draws a
        # member of any class.
        share = (within - before[sorted_classes]) / np.maximum(self.probs[sorted_classes], 1e-300)
        self.cum = sorted_classes + np.minimum(share, 1.0)
        self.starts = starts
        self.ends = np.append(starts[1:], len(order))

    def relabel(self, roles: list[tuple[int, str, str]], dims: list[Dim]) -> None:
        size = len(self.member_probs)
        labels = []
        for d, role, attr in roles:
            ks = dims[d].keyspace
            colls = _collections(ks)
            if role == "P":
                hashes = self.hashes[attr]
                lab = ks.locate_many(hashes, np.zeros(size, dtype=np.float64))
                for i, (pk, _) in enumerate(colls):
                    # A split collection's key: its requests place by their sort key too.
                    lab = np.where(hashes == np.uint64(pk), -1 - i, lab)
                labels.append(lab)
            elif colls:
                pos = self.positions[attr]
                code = np.zeros(size, dtype=np.int64)
                for _, bounds in colls:
                    code = code * (len(bounds) + 1) + np.searchsorted(bounds, pos, side="right")
                labels.append(code)
        classes, k = _compress(labels, size)
        self._set_classes(classes, k)

    def route_keys(self, attr: str) -> tuple[np.ndarray, np.ndarray]:
        first = self.order[self.starts]
        return self.hashes[attr][first], self.positions[attr][first]

    def draw(
        self, rng: np.random.Generator, classes: np.ndarray, seq: int, span: int
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        at = np.searchsorted(self.cum, classes + rng.random(len(classes)), side="left")
        at = np.clip(at, self.starts[classes], self.ends[classes] - 1)
        members = self.order[at]
        return {a: (self.hashes[a][members], self.positions[a][members]) for a in self.attrs}


class StreamFactor(Factor):
    """One attribute whose values never (or hardly ever) repeat: classes are ranges of
    the hash space (a share its width) crossed with ranges of sort positions."""

    def __init__(self, attr: str, kind: str, count: int | None) -> None:
        self.attrs = [attr]
        self.kind = kind
        self.count = count
        self.span = UUID_POSITIONS if kind == "uuid" else float(count or 0)
        self._set(
            np.array([0], dtype=object), np.array([HASH_SPACE], dtype=object), [0.0, math.inf]
        )

    def _set(self, lo: np.ndarray, hi: np.ndarray, cuts: list[float]) -> None:
        self.lo = [int(x) for x in lo]
        self.hi = [int(x) for x in hi]
        self.cuts = cuts
        self._lo = np.array(self.lo, dtype=np.uint64)
        # Each range's width as a float a draw scales, short of its end by the float's
        # spacing at 2**64, so that an offset never reaches the next range.
        self._width = np.array(
            [float(max(0, h - lo_ - 4096)) for lo_, h in zip(self.lo, self.hi, strict=True)]
        )
        self._edges = np.clip(np.array(cuts, dtype=np.float64), 0.0, self.span)
        widths = np.array([(h - lo_) / HASH_SPACE for lo_, h in zip(self.lo, self.hi, strict=True)])
        if self.kind == "monotonic":
            # Values rise past every bound a split chose from earlier ones: the last range.
            masses = np.zeros(len(cuts) - 1)
            masses[-1] = 1.0
        else:
            edges = np.clip(np.array(cuts, dtype=np.float64), 0.0, self.span)
            masses = np.diff(edges) / self.span if self.span > 0 else np.ones(len(cuts) - 1)
        self.n_pos = len(masses)
        self.pos_masses = masses
        self.probs = np.outer(widths, masses).reshape(-1)
        self.n_classes = len(self.probs)

    def relabel(self, roles: list[tuple[int, str, str]], dims: list[Dim]) -> None:
        bounds = {0, HASH_SPACE}
        cuts = {0.0, math.inf}
        for d, role, _ in roles:
            ks = dims[d].keyspace
            if role == "P":
                bounds.update(p.lo for p in ks.parts)
            else:
                for _, b in _collections(ks):
                    cuts.update(float(x) for x in b)
        ordered = sorted(bounds)
        self._set(
            np.array(ordered[:-1], dtype=object),
            np.array(ordered[1:], dtype=object),
            sorted(cuts),
        )

    def _split(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.n_pos == 1:
            return classes, np.zeros(len(classes), dtype=np.int64)
        return classes // self.n_pos, classes % self.n_pos

    def route_keys(self, attr: str) -> tuple[np.ndarray, np.ndarray]:
        h, p = self._split(np.arange(self.n_classes))
        return self._lo[h], np.array(self.cuts, dtype=np.float64)[p]

    def draw(
        self, rng: np.random.Generator, classes: np.ndarray, seq: int, span: int
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        h, p = self._split(classes)
        # A hash uniform in the class's range (the first hash of a range narrower than
        # a float's spacing at 2**64: an isolated key's, which a stream hardly meets).
        hashes = self._lo[h] + (rng.random(len(classes)) * self._width[h]).astype(np.uint64)
        if self.kind == "monotonic":
            positions = (seq + rng.integers(0, max(1, span), len(classes))).astype(np.float64)
        else:
            edges = self._edges
            a, b = edges[p], edges[p + 1]
            positions = a + rng.random(len(classes)) * (b - a)
            if self.kind == "uniform":
                positions = np.floor(positions)
        return {self.attrs[0]: (hashes, positions)}


@dataclass
class Group:
    """Factors placed together (a split collection links its key's and its sort key's),
    their classes the product of the factors' (the first factor's index most significant)."""

    factors: list[int]
    dims: list[int]
    probs: np.ndarray = field(default_factory=lambda: np.ones(1))
    pids: np.ndarray = field(default_factory=lambda: np.zeros((1, 0), dtype=np.int64))
    """Partition id per class (rows) and dim of the group (columns)."""
    radices: list[int] = field(default_factory=list)

    def factor_classes(self, classes: np.ndarray) -> list[np.ndarray]:
        out = []
        rest = classes
        for radix in reversed(self.radices):
            rest, digit = np.divmod(rest, radix)
            out.append(digit)
        return out[::-1]


class KeyClasses:
    """The routes of one table under one phase's distributions, kept current with the
    partition map (`refresh`)."""

    def __init__(
        self, generator: ItemGenerator, mappers: dict[str, KeyMapper], dims: list[Dim]
    ) -> None:
        self.generator = generator
        self.dims = dims
        self.factors: list[Factor] = []
        self.factor_of: dict[str, int] = {}
        names = list(dict.fromkeys(n for d in dims for n in (d.pk, d.sk) if n is not None))
        derived = [n for n in names if n in generator.derived]
        primary = list(generator.primary)
        enumerated: list[str] = []
        if derived and primary:
            radices = [generator.samplers[n].finite for n in primary]
            if (
                all(r is not None for r in radices)
                and math.prod(int(r or 0) for r in radices) <= ENUM_LIMIT
            ):
                enumerated = primary
        if enumerated:
            self._add(self._enumerated(primary, derived, mappers))
        for name in names:
            if name in self.factor_of:
                continue
            sampler = generator.samplers[name]
            finite = sampler.finite
            if finite is not None and finite <= ENUM_LIMIT and sampler.probabilities is not None:
                probs = sampler.probabilities()
                # A per-item attribute of a key space too large to enumerate: its value is
                # a hash of a key met about once, drawn uniformly (ItemGenerator.derive).
                if name in generator.derived:
                    probs = np.full(finite, 1.0 / finite)
                index = {name: np.arange(finite, dtype=np.int64)}
                self._add(ExactFactor([name], index, probs, mappers))
                continue
            kind = _stream_kind(sampler)
            if kind is None or name in generator.derived:
                raise Unsupported(
                    f"attribute {name!r} has {finite:,} values and is not uniform: more than "
                    f"{ENUM_LIMIT:,} values are classified only when every one is as likely"
                )
            self._add(StreamFactor(name, kind, finite))
        self._versions: list[int] = []
        self.groups: list[Group] = []
        self.group_of_dim: list[tuple[int, int]] = []
        self._by_partition: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._group_of_factor: dict[int, int] = {}
        """Per dim: its group's classes ordered by partition, where each partition's
        run starts in that order, and the partition ids."""
        self.refresh()

    def _add(self, factor: Factor) -> None:
        for a in factor.attrs:
            self.factor_of[a] = len(self.factors)
        self.factors.append(factor)

    def _enumerated(
        self, primary: list[str], derived: list[str], mappers: dict[str, KeyMapper]
    ) -> ExactFactor:
        """The primary-key space, every key with its per-item attributes: the items'
        probabilities are their key values' products (drawn independently)."""
        samplers = self.generator.samplers
        counts = [int(samplers[n].finite or 0) for n in primary]
        grids = np.meshgrid(*[np.arange(c, dtype=np.int64) for c in counts], indexing="ij")
        block = {n: g.reshape(-1) for n, g in zip(primary, grids, strict=True)}
        probs = np.ones(1)
        for n in primary:
            p = samplers[n].probabilities
            assert p is not None
            probs = np.kron(probs, p())
        self.generator.derive(block)
        attrs = [*primary, *derived]
        return ExactFactor(attrs, {a: block[a] for a in attrs}, probs, mappers)

    def version(self) -> list[int]:
        """What the partition maps are now: each key space's partitions ever made (every
        split, isolation or pre-split makes some)."""
        return [len(d.keyspace.all) for d in self.dims]

    def stale(self) -> bool:
        return self.version() != self._versions

    def refresh(self) -> None:
        """Recompute every class and route from the partition maps as they are now."""
        self._versions = self.version()
        roles: dict[int, list[tuple[int, str, str]]] = {i: [] for i in range(len(self.factors))}
        parent = list(range(len(self.factors)))

        def find(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for d, dim in enumerate(self.dims):
            fp = self.factor_of[dim.pk]
            roles[fp].append((d, "P", dim.pk))
            if dim.sk is not None and dim.keyspace.collections:
                fs = self.factor_of[dim.sk]
                roles[fs].append((d, "S", dim.sk))
                parent[find(fs)] = find(fp)
        for i, factor in enumerate(self.factors):
            factor.relabel(roles[i], self.dims)
        members: dict[int, list[int]] = {}
        for i in range(len(self.factors)):
            members.setdefault(find(i), []).append(i)
        groups = []
        for factors in members.values():
            dims = [d for d, dim in enumerate(self.dims) if self.factor_of[dim.pk] in factors]
            groups.append(Group(factors, dims))
        self.groups = groups
        self._group_of_factor = {f: g for g, group in enumerate(groups) for f in group.factors}
        self.group_of_dim = [(0, 0)] * len(self.dims)
        for g, group in enumerate(groups):
            self._build(group)
            for col, d in enumerate(group.dims):
                self.group_of_dim[d] = (g, col)
        self._by_partition = []
        for g, col in self.group_of_dim:
            pids = self.groups[g].pids[:, col]
            order = np.argsort(pids, kind="stable")
            ordered = pids[order]
            starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
            self._by_partition.append((order, starts, ordered[starts]))

    def _build(self, group: Group) -> None:
        factors = [self.factors[f] for f in group.factors]
        group.radices = [f.n_classes for f in factors]
        probs = np.ones(1)
        for f in factors:
            probs = np.outer(probs, f.probs).reshape(-1)
        group.probs = probs / probs.sum()
        classes = np.arange(len(probs))
        digits = dict(zip(group.factors, group.factor_classes(classes), strict=True))
        pids = np.zeros((len(probs), len(group.dims)), dtype=np.int64)
        for col, d in enumerate(group.dims):
            dim = self.dims[d]
            fp = self.factor_of[dim.pk]
            hashes = self.factors[fp].route_keys(dim.pk)[0][digits[fp]]
            positions = np.zeros(len(probs), dtype=np.float64)
            if dim.sk is not None and self.factor_of[dim.sk] in digits:
                fs = self.factor_of[dim.sk]
                positions = self.factors[fs].route_keys(dim.sk)[1][digits[fs]]
            pids[:, col] = dim.keyspace.locate_many(hashes, positions)
        group.pids = pids

    def keys(
        self,
        rng: np.random.Generator,
        classes: list[np.ndarray],
        seq: int,
        span: int,
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """For routes given by their class in every group (one array per group, one entry
        per route): a key drawn from each route's requests, as (hashes, positions) per
        dim: the partition key's hash and the sort key's position (zeros without one)."""
        drawn: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for group, cls in zip(self.groups, classes, strict=True):
            for f, digits in zip(group.factors, group.factor_classes(cls), strict=True):
                drawn.update(self.factors[f].draw(rng, digits, seq, span))
        n = len(classes[0]) if classes else 0
        out = []
        for dim in self.dims:
            hashes = drawn[dim.pk][0]
            positions = drawn[dim.sk][1] if dim.sk is not None else np.zeros(n, dtype=np.float64)
            out.append((hashes, positions))
        return out

    def placements(
        self,
        rng: np.random.Generator,
        seconds: list[list[np.ndarray]],
        seq: int,
        span: int,
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Drawn requests, one draw per second (class counts per group), as each dim sees
        them: the partitions they fall on over those seconds, and per second and
        partition (second-major) how many, and one of the block's requests on it drawn
        at random: (partition ids, counts, hashes, positions)."""
        q = len(seconds)
        out = []
        for d, dim in enumerate(self.dims):
            g, _ = self.group_of_dim[d]
            order, starts, pids = self._by_partition[d]
            per_second = np.stack([draws[g] for draws in seconds])[:, order]
            counts = np.add.reduceat(per_second, starts, axis=1)  # seconds x partitions
            block = np.cumsum(per_second.sum(axis=0))
            totals = counts.sum(axis=0)
            nz = np.flatnonzero(totals)
            before = np.where(starts > 0, block[np.maximum(starts - 1, 0)], 0)
            # One request of each partition per second, at random among the block's: the
            # class it is in, and a member of the class (the sort key's, when another
            # group places it: any request's).
            base = np.repeat(before[nz], q)
            reach = np.repeat(totals[nz], q)
            at = base + np.floor(rng.random(len(base)) * reach)
            own = order[np.searchsorted(block, at, side="right")]
            fp = self.factor_of[dim.pk]
            drawn = self._member(rng, fp, g, own, seq, span)
            hashes = drawn[dim.pk][0]
            if dim.sk is None:
                positions = np.zeros(len(own), dtype=np.float64)
            elif dim.sk in drawn:
                positions = drawn[dim.sk][1]
            else:
                fs = self.factor_of[dim.sk]
                gs = self._group_of_factor[fs]
                total_gs = np.sum([draws[gs] for draws in seconds], axis=0)
                cls = own if gs == g else _random_classes(rng, total_gs, len(own))
                positions = self._member(rng, fs, gs, cls, seq, span)[dim.sk][1]
            # partition-major draws -> second-major, as the counts
            keys = (
                hashes.reshape(len(nz), q).T.reshape(-1),
                positions.reshape(len(nz), q).T.reshape(-1),
            )
            out.append((pids[nz], counts[:, nz].reshape(-1), *keys))
        return out

    def _member(
        self, rng: np.random.Generator, f: int, g: int, cls: np.ndarray, seq: int, span: int
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """A member of factor `f` for each class `cls` of its group `g`."""
        group = self.groups[g]
        digits = (
            cls if len(group.factors) == 1 else group.factor_classes(cls)[group.factors.index(f)]
        )
        return self.factors[f].draw(rng, digits, seq, span)


def _random_classes(rng: np.random.Generator, draw: np.ndarray, k: int) -> np.ndarray:
    """k classes, each that of a random one of the drawn requests (`draw`: per class)."""
    if len(draw) == 1:
        return np.zeros(k, dtype=np.int64)
    cum = np.cumsum(draw)
    return np.searchsorted(cum, np.floor(rng.random(k) * cum[-1]), side="right")
