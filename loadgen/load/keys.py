"""Key generation shared by the live worker and the virtual-time simulation.

A sampler draws value *indices* in bulk with numpy (cheap, seeded, identical in both
paths) and renders an index as the attribute value the worker sends. The simulation
never renders what it does not need: for finite value sets it maps each distinct value
once; for never-repeating values (uuid, monotonic) it uses the index itself, because
only the value's hash and order matter to the capacity model.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

import numpy as np

from loadgen.format.playbook import (
    CompositeDist,
    ConstantDist,
    Distribution,
    MonotonicDist,
    UniformDist,
    UuidDist,
    WeightedDist,
    ZipfDist,
)

Value = str | Decimal

HEAVY_SHARE: Final = 1e-5
"""A value drawn at least this often is `heavy`: where it hashes decides how much of the
load its partition takes, so the simulation hashes it exactly, as the endpoint does, even
when its value set is too large to hash in full (loadgen.simulation.simulate.KeyMapper).
The values under it may take any uniform stand-in hash: each carries at most 0.4 units/s
at the 40,000-unit table quota, and together they add to a partition's load a sum whose
spread is at most sqrt(HEAVY_SHARE / partitions) of the table's rate whatever the hash
(0.1 % with 8 partitions; 0.03 % for zipf s=1 over a million values)."""


@dataclass
class Sampler:
    """Draws indices of one attribute's values and renders them."""

    draw: Callable[[np.random.Generator, int, int], np.ndarray]
    """(rng, n, sequence number of the first request) -> int64 indices."""
    render: Callable[[int], Value]
    finite: int | None
    """Number of distinct values, or None when values never repeat."""
    monotonic: bool = False
    kind: str = "S"
    top: tuple[int, float] | None = None
    """(index of the most frequent value, its probability), from the same weights the
    draws use; None when values never repeat. `hotbench advise` reads it."""
    same: float = 0.0
    """The chance that two independent draws give the same value (the sum of the squared
    probabilities, from the same weights; 0 when values never repeat): what a rewrite's
    fresh draw keeps of the old value. `hotbench advise` reads it."""
    heavy: int = 0
    """How many of the first indices are drawn with a probability of at least
    HEAVY_SHARE, for a sampler whose probabilities fall with the index (zipf); 0 for
    the others (a uniform value set larger than 1 / HEAVY_SHARE has no heavy value)."""


def _renderer(dist: UniformDist | ZipfDist | MonotonicDist) -> Callable[[int], Value]:
    start = dist.start
    fmt = dist.format
    if dist.type == "N":
        return lambda i: Decimal(start + int(i))
    if fmt is not None:
        return lambda i: fmt.format(start + int(i))
    return lambda i: str(start + int(i))


def _uuid_render(i: int) -> str:
    # The index is 63 random bits; the rest of the UUID is derived from it so rendering is
    # a pure function of the index (the same index is the same key on every worker).
    hi = int(i) & ((1 << 64) - 1)
    lo = (hi * 0x9E3779B97F4A7C15 + 0xD1B54A32D192ED03) & ((1 << 64) - 1)
    return str(uuid.UUID(int=(hi << 64) | lo, version=4))


def sampler_for(dist: Distribution) -> Sampler:
    """The sampler of a playbook distribution."""
    if isinstance(dist, WeightedDist):
        values = list(dist.weights)
        weights = np.array([dist.weights[v] for v in values], dtype=np.float64)
        cdf = np.cumsum(weights / weights.sum())
        cdf[-1] = 1.0

        def draw_weighted(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return np.searchsorted(cdf, rng.random(n), side="right").astype(np.int64)

        render_w: Callable[[int], Value] = (
            (lambda i: Decimal(values[int(i)])) if dist.type == "N" else (lambda i: values[int(i)])
        )
        top_w = int(np.argmax(weights))
        top_share = float(weights[top_w] / weights.sum())
        total = sum(dist.weights.values())
        same_w = sum((w / total) ** 2 for w in dist.weights.values())
        return Sampler(
            draw_weighted,
            render_w,
            len(values),
            kind=dist.type,
            top=(top_w, top_share),
            same=same_w,
        )
    if isinstance(dist, UniformDist):
        count = dist.count

        def draw_uniform(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return rng.integers(0, count, size=n, dtype=np.int64)

        return Sampler(
            draw_uniform,
            _renderer(dist),
            count,
            kind=dist.type,
            top=(0, 1.0 / count),
            same=1.0 / count,
        )
    if isinstance(dist, ZipfDist):
        ranks = np.arange(1, dist.count + 1, dtype=np.float64)
        zweights = ranks**-dist.s
        zcdf = np.cumsum(zweights)
        zcdf /= zcdf[-1]
        # zcdf[0] is now rank 1's weight over the harmonic sum: the most frequent value's share.

        def draw_zipf(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return np.minimum(
                np.searchsorted(zcdf, rng.random(n), side="right"), dist.count - 1
            ).astype(np.int64)

        return Sampler(
            draw_zipf,
            _renderer(dist),
            dist.count,
            kind=dist.type,
            top=(0, float(zcdf[0])),
            same=float(((zweights / zweights.sum()) ** 2).sum()),
            # Weights fall with the rank, so the heavy values are the first ones.
            heavy=int(np.count_nonzero(zweights >= HEAVY_SHARE * zweights.sum())),
        )
    if isinstance(dist, UuidDist):

        def draw_uuid(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return rng.integers(0, 1 << 63, size=n, dtype=np.int64)

        return Sampler(draw_uuid, _uuid_render, None, kind="S")
    if isinstance(dist, MonotonicDist):

        def draw_monotonic(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return np.arange(seq, seq + n, dtype=np.int64)

        render_m = _renderer(dist)
        if dist.type == "S" and dist.format is None:
            # Zero-padded so that string order is numeric order, as a timestamp's is.
            start = dist.start
            render_m = lambda i: f"{start + int(i):020d}"  # noqa: E731
        return Sampler(draw_monotonic, render_m, None, monotonic=True, kind=dist.type)
    if isinstance(dist, ConstantDist):
        value = dist.value

        def draw_constant(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            return np.zeros(n, dtype=np.int64)

        return Sampler(
            draw_constant,
            (lambda i: Decimal(value)) if dist.type == "N" else (lambda i: value),
            1,
            kind=dist.type,
            top=(0, 1.0),
            same=1.0,
        )
    if isinstance(dist, CompositeDist):
        names = list(dist.parts)
        parts = [sampler_for(dist.parts[n]) for n in names]
        if any(p.finite is None for p in parts):
            raise ValueError(
                "composite parts must have a finite set of values "
                "(weighted, uniform, zipf or constant)"
            )
        radices = [int(p.finite or 1) for p in parts]
        fmt = dist.format

        def draw_composite(rng: np.random.Generator, n: int, seq: int) -> np.ndarray:
            out = np.zeros(n, dtype=np.int64)
            for part, radix in zip(parts, radices, strict=True):
                out = out * radix + part.draw(rng, n, seq)
            return out

        def render_composite(i: int) -> Value:
            values: dict[str, Value] = {}
            rest = int(i)
            for name, part, radix in reversed(list(zip(names, parts, radices, strict=True))):
                rest, sub = divmod(rest, radix)
                values[name] = part.render(sub)
            text = fmt.format(**values)
            return Decimal(text) if dist.type == "N" else text

        total = 1
        for r in radices:
            total *= r
        # Parts are drawn independently, so the hottest value combines the hottest parts
        # (indices in the same mixed radix as draw_composite).
        top_c, share_c = 0, 1.0
        for part, radix in zip(parts, radices, strict=True):
            assert part.top is not None  # finite parts only, checked above
            top_c = top_c * radix + part.top[0]
            share_c *= part.top[1]
        return Sampler(
            draw_composite,
            render_composite,
            total,
            kind=dist.type,
            top=(top_c, share_c),
            same=math.prod(part.same for part in parts),
        )
    raise TypeError(f"unknown distribution {dist!r}")


def seed_indices(sampler: Sampler, limit: int) -> range:
    """The first `limit` distinct values of a finite attribute, for seeding."""
    return range(min(limit, sampler.finite or limit))


def mix64(values: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, vectorised: a stable, well-spread function of an index."""
    with np.errstate(over="ignore"):
        z = values.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class ItemGenerator:
    """Draws the attributes of the items one table's requests touch.

    The same generator feeds the simulation and the live worker, so both address the
    same keys in the same proportions. Attributes marked `per_item` are derived from the
    item's primary key, so an item keeps them across rewrites.
    """

    def __init__(
        self, attributes: dict[str, Distribution], key_names: list[str], primary: list[str]
    ) -> None:
        self.names = [n for n in dict.fromkeys(key_names) if n in attributes]
        self.primary = [n for n in primary if n in attributes]
        self.samplers = {n: sampler_for(attributes[n]) for n in self.names}
        self.derived = [n for n in self.names if attributes[n].per_item and n not in self.primary]

    def draw(self, rng: np.random.Generator, n: int, seq: int) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for name in self.names:
            if name not in self.derived:
                out[name] = self.samplers[name].draw(rng, n, seq)
        self.derive(out)
        return out

    def derive(self, block: dict[str, np.ndarray]) -> None:
        """Set the `per_item` attributes of `block` from its primary-key indices: the
        load and the seeder both call this, so a seeded item carries the values the load
        will write for the same key."""
        if not self.derived:
            return
        n = len(block[self.primary[0]])
        key = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for name in self.primary:
                key = mix64(key * np.uint64(1_000_003) + block[name].astype(np.uint64))
        for i, name in enumerate(self.derived):
            finite = self.samplers[name].finite or (1 << 62)
            mixed = mix64(key + np.uint64(i + 1))
            block[name] = (mixed % np.uint64(finite)).astype(np.int64)

    def render(self, indices: dict[str, np.ndarray], row: int) -> dict[str, Value]:
        return {name: self.samplers[name].render(int(indices[name][row])) for name in self.names}
