"""The key fit recovers known parameters from synthetic Contributor Insights reports.

Reports are generated from a known Zipf (exactly, and by drawing requests from it), with
and without a hot key in front; hypothesis picks the exponent, the key count and the
seed. The continuation fit must return the tail's exponent, the one-Zipf fit the
whole distribution's, and the measured hot keys are kept as measured."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loadgen.analysis.keyfit import continuation_exponent, fit_keys, power_sum, zipf_report


@pytest.mark.parametrize("s", [0.0, 0.5, 1.0, 1.0 + 1e-9, 1.7, 6.0])
@pytest.mark.parametrize(("first", "last"), [(1, 10), (1, 50_000), (101, 300_000), (7, 7)])
def test_power_sum_is_the_sum_term_by_term(s: float, first: int, last: int) -> None:
    exact = float(np.sum(np.arange(first, last + 1, dtype=np.float64) ** -s))
    assert power_sum(s, first, last) == pytest.approx(exact, rel=1e-12)


def test_power_sum_scaled_keeps_large_exponents_finite() -> None:
    # (r / 100) ** -40 for r = 101..: r ** -40 alone underflows long before the scale.
    value = power_sum(40.0, 101, 10_000_000, scale=100)
    exact = sum((r / 100) ** -40 for r in range(101, 5000))
    assert value == pytest.approx(exact, rel=1e-9)
    assert power_sum(1.0, 5, 4) == 0.0


@settings(max_examples=40, deadline=None)
@given(
    s=st.floats(min_value=0.3, max_value=2.0),
    keys=st.integers(min_value=150, max_value=2_000_000),
)
def test_an_exact_zipf_report_gives_back_its_exponent(s: float, keys: int) -> None:
    values, total, unique = zipf_report(s, keys, 1e9)
    fit = fit_keys(values, total, unique)
    assert fit.tail is not None
    assert fit.tail.exponent == pytest.approx(s, abs=1e-6)
    assert fit.zipf_exponent == pytest.approx(s, abs=1e-4)
    assert fit.unique == keys
    assert fit.tail.keys == keys - 100
    # The hot keys are the measured shares, and with the tail they hold everything.
    assert fit.hot == pytest.approx([v / total for v in values])
    assert sum(fit.hot) + fit.tail.mass == pytest.approx(1.0)
    assert sum(fit.hot) + float(fit.tail.shares().sum()) == pytest.approx(1.0, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    s=st.floats(min_value=0.5, max_value=1.4),
    keys=st.integers(min_value=1_000, max_value=30_000),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_a_sampled_report_gives_back_its_exponent_within_its_noise(
    s: float, keys: int, seed: int
) -> None:
    """Requests drawn from the Zipf (1,000 per key on average): the report holds the 100
    largest counts, their sum, and the keys that were drawn at least once."""
    rng = np.random.default_rng(seed)
    weights = np.arange(1, keys + 1, dtype=np.float64) ** -s
    counts = rng.multinomial(1000 * keys, weights / weights.sum())
    top = np.sort(counts)[::-1][:100]
    fit = fit_keys([float(c) for c in top], float(counts.sum()), int((counts > 0).sum()))
    assert fit.tail is not None
    assert fit.tail.exponent == pytest.approx(s, abs=0.05)
    assert fit.zipf_exponent == pytest.approx(s, abs=0.01)


@settings(max_examples=25, deadline=None)
@given(
    s=st.floats(min_value=0.5, max_value=1.5),
    hot=st.floats(min_value=0.05, max_value=0.6),
    others=st.integers(min_value=500, max_value=500_000),
)
def test_a_hot_key_in_front_leaves_the_tail_exponent_and_its_own_share(
    s: float, hot: float, others: int
) -> None:
    """One hot key holding `hot` of the traffic, the rest Zipf(s): the hot key's share is
    measured exactly, and the tail past the reported keys is the rest's Zipf (ranks
    shifted by the hot key: fitted within 2 %)."""
    values, _, _ = zipf_report(s, others, (1 - hot) * 1e9, top=99)
    fit = fit_keys([hot * 1e9, *values], 1e9, others + 1)
    assert any(h == pytest.approx(hot) for h in fit.hot)  # ranked among the measured
    assert fit.tail is not None
    assert fit.tail.exponent == pytest.approx(s, rel=0.02)


def test_a_uniform_report_has_a_flat_tail() -> None:
    values, total, unique = zipf_report(0.0, 400, 4e6)
    fit = fit_keys(values, total, unique)
    assert fit.tail is not None
    assert fit.tail.exponent == pytest.approx(0.0, abs=1e-9)
    assert fit.tail.mass == pytest.approx(0.75)
    assert fit.tail.shares() == pytest.approx(np.full(300, 1 / 400))


def test_a_report_naming_every_key_has_no_tail() -> None:
    fit = fit_keys([500.0, 300.0, 200.0], 1000.0, 3)
    assert fit.tail is None
    assert fit.hot == (0.5, 0.3, 0.2)
    assert fit.rest == 0.0


def test_too_few_unique_keys_for_the_rest_gives_a_flat_tail_said_so() -> None:
    """ApproximateUniqueCount is approximate: 10 keys at 1 % each cannot hold the 80 %
    the report leaves; the tail is flat at the last key's share over as many keys as
    that takes, and marked inconsistent for the caller to say."""
    fit = fit_keys([10.0] * 10 + [100.0], 1000.0, 12)
    assert fit.tail is not None
    assert not fit.tail.consistent
    assert fit.tail.keys == 80
    assert fit.tail.exponent == 0.0
    assert fit.unique == 11 + 80
    assert fit.tail.mass == pytest.approx(0.8)


def test_the_continuation_solves_its_equation() -> None:
    s = continuation_exponent(100, 0.001, 50_000, 0.4)
    assert 0.001 * power_sum(s, 101, 50_100, scale=100) == pytest.approx(0.4, rel=1e-9)
    assert continuation_exponent(100, 0.001, 10, 0.4) == 0.0


def test_a_report_without_a_total_cannot_be_fitted() -> None:
    with pytest.raises(ValueError, match="positive total"):
        fit_keys([], 0.0, 0)


def test_the_single_zipf_share_is_a_zipf_share() -> None:
    values, total, unique = zipf_report(1.1, 10_000, 1e6)
    fit = fit_keys(values, total, unique)
    harmonic = sum(r**-1.1 for r in range(1, 10_001))
    assert fit.zipf_share(1) == pytest.approx(1 / harmonic, rel=1e-5)
    assert math.isclose(fit.zipf_share(1), fit.hot[0], rel_tol=1e-4)
