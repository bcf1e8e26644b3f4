"""Latency histograms merge exactly and keep percentiles within one bucket."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from loadgen.results.histogram import LatencyHistogram, bucket_of, bucket_width


def test_buckets_have_two_significant_digits() -> None:
    assert bucket_of(4567) == 4500 and bucket_width(4500) == 100
    assert bucket_of(99) == 99 and bucket_of(100) == 100 and bucket_of(123_456) == 120_000


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(min_value=1e-5, max_value=10.0), min_size=1, max_size=300),
    st.integers(min_value=1, max_value=5),
)
def test_merge_of_parts_equals_the_whole(samples: list[float], parts: int) -> None:
    whole = LatencyHistogram()
    pieces = [LatencyHistogram() for _ in range(parts)]
    for i, s in enumerate(samples):
        whole.record(s)
        pieces[i % parts].record(s)
    merged = LatencyHistogram()
    for p in pieces:
        merged.merge(LatencyHistogram.from_json(p.to_json()))  # through JSON, as workers do
    assert merged.to_json() == whole.to_json()


def test_percentiles_within_a_bucket_of_the_truth() -> None:
    rng = np.random.default_rng(1)
    samples = rng.lognormal(mean=np.log(0.005), sigma=0.6, size=20_000)
    h = LatencyHistogram()
    for s in samples:
        h.record(float(s))
    for q in (50, 90, 99):
        true_ms = float(np.percentile(samples, q)) * 1000
        got = h.percentile(q)
        assert got is not None and abs(got - true_ms) / true_ms < 0.06, (q, got, true_ms)
    assert h.to_json()["max"] == round(int(samples.max() * 1e6) / 1000, 3)


def test_empty() -> None:
    assert LatencyHistogram().to_json()["p50"] is None
