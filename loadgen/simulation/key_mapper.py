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
    Never-repeating values use a hash of the index (an MD5 of a random UUID is as uniform
    as any) and the index as the position (monotonic values rise with it).
    """

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        self._hashes: np.ndarray | None = None
        self._positions: np.ndarray | None = None
        finite = sampler.finite
        self.exact = finite is not None and finite <= PRECOMPUTE_LIMIT

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
            return mix64(idx)
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
