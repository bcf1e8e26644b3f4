"""How the model sees an attribute's drawn values: each value index's partition-key hash
and sort position, as the endpoint would compute them from the rendered value. Shared by
the simulation's two engines (simulate.py per request, aggregate.py by key class)."""

from __future__ import annotations

import numpy as np

from emulator.keyspace import key_bytes, partition_hash, sort_position
from loadgen.load.keys import Sampler, mix64

PRECOMPUTE_LIMIT = 200_000


class KeyMapper:
    """One attribute's value indices as the model sees them: hash and sort position.

    Finite value sets (up to PRECOMPUTE_LIMIT values) are rendered once, so the hash is
    exactly what the endpoint computes from the same value and the order is DynamoDB's.
    A larger set hashes its heavy values (`Sampler.heavy`: a zipf's busiest, each drawn
    at least `HEAVY_SHARE` of the time) exactly too, and the rest by a hash of the
    index: which busy customers share a partition decides whether it throttles (zipf
    s=1 over a million customers at 6,000 writes/s on eight partitions: the busiest
    partition takes 1,207 writes/s by the values' hashes, 1,033 by the indices'), while
    where the rare values land only averages out. Never-repeating values use a hash of
    the index (an MD5 of a random UUID is as uniform as any), and every set larger than
    PRECOMPUTE_LIMIT the index as the position (monotonic values rise with it).
    """

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        self._hashes: np.ndarray | None = None
        self._positions: np.ndarray | None = None
        finite = sampler.finite
        self.exact = finite is not None and finite <= PRECOMPUTE_LIMIT
        self.head = 0 if self.exact else min(sampler.heavy, PRECOMPUTE_LIMIT)
        """The first indices hashed exactly in a set too large to hash in full."""
        self._head_hashes: np.ndarray | None = None

    def _exact_hashes(self, count: int) -> np.ndarray:
        render = self.sampler.render
        return np.array(
            [partition_hash(key_bytes(render(i))) for i in range(count)], dtype=np.uint64
        )

    def _precompute(self) -> None:
        finite = self.sampler.finite
        assert finite is not None
        values = [self.sampler.render(i) for i in range(finite)]
        self._hashes = np.array([partition_hash(key_bytes(v)) for v in values], dtype=np.uint64)
        order = sorted(range(finite), key=lambda i: sort_position(values[i]))
        ranks = np.empty(finite, dtype=np.float64)
        ranks[np.array(order, dtype=np.int64)] = np.arange(finite, dtype=np.float64)
        self._positions = ranks

    def hashes(self, idx: np.ndarray) -> np.ndarray:
        if not self.exact:
            out = mix64(idx)
            if self.head:
                if self._head_hashes is None:
                    self._head_hashes = self._exact_hashes(self.head)
                heavy = idx < self.head
                out[heavy] = self._head_hashes[idx[heavy]]
            return out
        if self._hashes is None:
            self._precompute()
        assert self._hashes is not None
        return self._hashes[idx]

    def positions(self, idx: np.ndarray) -> np.ndarray:
        if not self.exact:
            return idx.astype(np.float64)
        if self._positions is None:
            self._precompute()
        assert self._positions is not None
        return self._positions[idx]
