"""A key distribution from a top-contributors report: the hot keys as measured, and a
tail fitted to what the report says of the rest.

A Contributor Insights report (CloudWatch GetInsightRuleReport on a rule DynamoDB made)
gives, for a window: the top contributors (at most 100) with each one's value, the sum
over every contributor (`AggregateValue`) and an approximate count of the distinct
contributors (`ApproximateUniqueCount`). Of the rest, the keys ranked below the last
reported one, it says only how many there are (N - k) and what they hold together
(R = 1 - the reported shares). This module turns that into a distribution a load model
can draw from:

- **hot keys**: ranks 1..k with their measured shares, kept exactly: a hot key's share
  decides whether its partition throttles, and it is measured, not modelled;
- **tail**: ranks k+1..N as a power law continuing from the last reported key,
  share(r) = share(k) * (r / k) ** -s, whose exponent s is solved so the tail holds
  exactly the remaining mass R over exactly N - k keys ("continuation fit"). One
  equation, one unknown, monotone in s (brentq). For a report drawn from a Zipf
  distribution it returns that Zipf's exponent, whatever the head looks like (a hot key
  at rank 1 does not move it), and no tail key is hotter than the last measured one;
- **one Zipf for all**: for formats that hold a single Zipf (count, s), the exponent of
  a Zipf over N ranks that best explains the report, by maximum likelihood over the
  report's cells (each reported rank, and the rest as one cell); equivalently the s
  that minimises the Kullback-Leibler divergence from the measured shares. It
  reproduces the hot keys only as well as one Zipf can.

Sums of r ** -s over up to millions of ranks are exact for the first ranks and by the
Euler-Maclaurin formula beyond (error far below the data's), so a fit takes milliseconds
whatever N is. Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize_scalar

EXACT_TERMS = 2_000
"""Ranks summed term by term before the Euler-Maclaurin formula takes over: from rank
2,000 on, its first omitted term is below 1e-20 of the sum for any exponent we fit."""
MAX_EXPONENT = 50.0
"""Upper bound of a fitted exponent: beyond it the tail is empty in float arithmetic."""


def power_sum(s: float, first: int, last: int, scale: float = 1.0) -> float:
    """sum over r = first..last of (r / scale) ** -s (0 when last < first). `scale`
    keeps the terms near 1 when s is large (the continuation fit scales by the anchor
    rank), where r ** -s alone would underflow."""
    if last < first:
        return 0.0
    cut = min(last, first + EXACT_TERMS - 1)
    ranks = np.arange(first, cut + 1, dtype=np.float64)
    total = float(np.sum((ranks / scale) ** -s))
    if cut == last:
        return total
    m, b = float(cut + 1), float(last)

    def f(x: float) -> float:
        return float((x / scale) ** -s)

    # Euler-Maclaurin: integral + (f(m) + f(b)) / 2 + (f'(b) - f'(m)) / 12
    #                  - (f'''(b) - f'''(m)) / 720, with f(x) = (x / scale) ** -s.
    t = (1.0 - s) * math.log(b / m)
    growth = math.log(b / m) if abs(t) < 1e-12 else math.expm1(t) / (1.0 - s)
    integral = m * f(m) * growth
    d1 = -s * (f(b) / b - f(m) / m)
    d3 = -s * (s + 1) * (s + 2) * (f(b) / b**3 - f(m) / m**3)
    return total + integral + (f(m) + f(b)) / 2 + d1 / 12 - d3 / 720


@dataclass(frozen=True)
class ZipfTail:
    """Ranks `first_rank`..`first_rank + keys - 1`: share(r) = anchor_share * (r /
    anchor_rank) ** -exponent, together holding `mass` of the total."""

    first_rank: int
    keys: int
    exponent: float
    mass: float
    anchor_rank: int
    anchor_share: float
    consistent: bool = True
    """False when the unique count is too low for the remaining mass even with every
    tail key as hot as the last measured one: the tail is then flat over as many keys
    as the mass needs (more than the report counted), and the caller says so."""

    def shares(self, limit: int | None = None) -> np.ndarray:
        """The tail's shares from its first rank on (at most `limit` of them)."""
        count = self.keys if limit is None else min(self.keys, limit)
        ranks = np.arange(self.first_rank, self.first_rank + count, dtype=np.float64)
        return self.anchor_share * (ranks / self.anchor_rank) ** -self.exponent


@dataclass(frozen=True)
class KeyFit:
    """A report's keys: the measured head, the fitted tail, one Zipf for all."""

    hot: tuple[float, ...]
    """Shares of ranks 1..k, as measured (descending)."""
    unique: int
    """Distinct keys the fit spreads the total over (the report's count, at least k)."""
    tail: ZipfTail | None
    """Ranks k+1.. (None when the report named every key, or left no mass over)."""
    zipf_exponent: float
    """The exponent of the single Zipf over `unique` ranks that best explains the
    report (maximum likelihood over its cells)."""

    @property
    def rest(self) -> float:
        return self.tail.mass if self.tail is not None else max(0.0, 1.0 - sum(self.hot))

    def zipf_share(self, rank: int) -> float:
        """Rank `rank`'s share under the single Zipf (to set beside the measured)."""
        s = self.zipf_exponent
        return float(rank**-s / power_sum(s, 1, self.unique))


def continuation_exponent(anchor_rank: int, anchor_share: float, keys: int, mass: float) -> float:
    """The s with anchor_share * sum over r = k+1..k+keys of (r / k) ** -s == mass
    (k = anchor_rank), or 0.0 when even a flat tail (s = 0) holds less than `mass`."""
    k = anchor_rank

    def excess(s: float) -> float:
        return anchor_share * power_sum(s, k + 1, k + keys, scale=k) - mass

    if excess(0.0) <= 0:
        return 0.0
    high = 4.0
    while excess(high) > 0 and high < MAX_EXPONENT:
        high = min(MAX_EXPONENT, high * 2)
    if excess(high) > 0:
        return MAX_EXPONENT
    return float(brentq(excess, 0.0, high, xtol=1e-12, rtol=1e-12))


def zipf_exponent(hot: Sequence[float], unique: int) -> float:
    """Maximum likelihood exponent of a Zipf over `unique` ranks for the cells "rank r"
    (r <= k, measured share hot[r-1]) and "any other rank" (the rest). With
    H(n) = sum over r <= n of r ** -s, the negative log-likelihood per unit of total is
    s * sum(p_r log r) + log H(N) - R log(H(N) - H(k))."""
    k = len(hot)
    p = np.asarray(hot, dtype=np.float64)
    rest = max(0.0, 1.0 - float(p.sum()))
    weighted_log_rank = float(np.sum(p * np.log(np.arange(1, k + 1, dtype=np.float64))))

    def loss(s: float) -> float:
        head = power_sum(s, 1, k)
        tail = power_sum(s, k + 1, unique)
        whole = head + tail
        out = s * weighted_log_rank + math.log(whole)
        if rest > 0:
            if tail <= 0:
                return math.inf
            out -= rest * math.log(tail)
        return out

    found = minimize_scalar(loss, bounds=(0.0, 6.0), method="bounded", options={"xatol": 1e-9})
    return float(found.x)


def fit_keys(values: Sequence[float], total: float, unique: int) -> KeyFit:
    """Fit a report: `values` are the top contributors' values (any order), `total` the
    sum over all contributors, `unique` the count of distinct contributors."""
    if total <= 0 or not values:
        raise ValueError("a key fit needs a positive total and at least one contributor")
    hot = tuple(sorted((max(0.0, v) / total for v in values), reverse=True))
    k = len(hot)
    n = max(int(unique), k)
    rest = 1.0 - sum(hot)
    tail: ZipfTail | None = None
    if rest > 1e-12:
        anchor = hot[-1]
        if n > k and anchor * (n - k) >= rest:
            s = continuation_exponent(k, anchor, n - k, rest)
            tail = ZipfTail(k + 1, n - k, s, rest, k, anchor)
        elif anchor > 0:
            # The report counted too few keys for what they hold (ApproximateUniqueCount
            # is approximate): a flat tail at the last key's share, over as many keys as
            # that takes.
            keys = math.ceil(rest / anchor)
            tail = ZipfTail(k + 1, keys, 0.0, rest, k, rest / keys, consistent=False)
            n = k + keys
    return KeyFit(hot, n, tail, zipf_exponent(hot, n))


def zipf_report(
    exponent: float, keys: int, total: float, top: int = 100
) -> tuple[list[float], float, int]:
    """The exact (expected) report of `total` draws from a Zipf over `keys` ranks: the
    top `top` values, the total and the unique count. For tests and examples."""
    weights = np.arange(1, keys + 1, dtype=np.float64) ** -exponent
    shares = weights / weights.sum()
    return [float(v) for v in shares[:top] * total], total, keys
