"""The SDK retry policies (loadgen.load.sdk_retry): each mode's attempts, backoffs and quota
as botocore documents them, and the adaptive rate limiter step by step against
botocore's own classes on a fake clock. The standard mode against the real botocore
handler over the wire is tests/loadgen/test_sdk_retry_botocore.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
from botocore.retries import adaptive, bucket, throttling

from loadgen.load.sdk_retry import (
    AdaptiveLimiter,
    AttemptKind,
    RetrySettings,
    SdkClient,
    StopReason,
    classify,
    retry_kind,
)

T = AttemptKind.THROTTLED


def _attempts(client: SdkClient, answers: list[AttemptKind]) -> tuple[int, list[float], Any]:
    call = client.call()
    delays = []
    for kind in answers:
        call.before_send(0.0)
        decision = call.after(kind, 0.0)
        if not decision.retry:
            return call.attempts, delays, decision.reason
        delays.append(decision.delay_s)
    raise AssertionError("the policy wanted more attempts than the answers given")


def test_none_is_one_attempt_whatever_the_answer() -> None:
    client = SdkClient(RetrySettings(), random.random)
    assert _attempts(client, [T]) == (1, [], StopReason.FAILED)
    assert RetrySettings("none", max_attempts=5).attempts == 1


def test_standard_retries_a_throttle_twice_with_capped_jittered_backoff() -> None:
    client = SdkClient(RetrySettings("standard"), lambda: 0.5)
    # 3 attempts in all; the n-th retry waits rand x min(2^(n-1), 20)
    assert _attempts(client, [T, T, T]) == (3, [0.5, 1.0], StopReason.ATTEMPTS_EXHAUSTED)
    assert client.quota.available == 500 - 2 * 5
    long = SdkClient(RetrySettings("standard", max_attempts=8), lambda: 1.0)
    _, delays, _ = _attempts(long, [T] * 8)
    assert delays == [1.0, 2.0, 4.0, 8.0, 16.0, 20.0, 20.0]


def test_standard_quota_is_spent_per_retry_and_refunded_on_success() -> None:
    client = SdkClient(RetrySettings("standard", quota=12), lambda: 0.0)
    # a retry costs 5, a timeout's 10; a call that succeeds after retries refunds its
    # last cost, one that succeeds at once refunds 1, never above the capacity
    assert _attempts(client, [T, AttemptKind.OK])[2] is StopReason.OK
    assert client.quota.available == 12
    assert _attempts(client, [AttemptKind.TIMEOUT, T])[2] is StopReason.QUOTA_EXHAUSTED
    assert client.quota.available == 2
    assert _attempts(client, [AttemptKind.OK]) == (1, [], StopReason.OK)
    assert client.quota.available == 3
    # a failure that is not retryable spends nothing and refunds nothing
    assert _attempts(client, [AttemptKind.FAILED]) == (1, [], StopReason.FAILED)
    assert client.quota.available == 3


def test_legacy_is_ten_attempts_of_fixed_doubling_without_quota() -> None:
    client = SdkClient(RetrySettings("legacy", quota=0), lambda: 0.0)
    attempts, delays, reason = _attempts(client, [T] * 10)
    assert (attempts, reason) == (10, StopReason.ATTEMPTS_EXHAUSTED)
    assert delays == pytest.approx([0.05 * 2**n for n in range(9)])
    # legacy's list of throttles is narrower than standard's
    assert retry_kind("legacy", "RequestLimitExceeded", 400) is AttemptKind.FAILED
    assert retry_kind("standard", "RequestLimitExceeded", 400) is T
    assert retry_kind("legacy", "ProvisionedThroughputExceededException", 400) is T


def test_answers_are_classified_as_botocore_does() -> None:
    assert classify(None, 200) is AttemptKind.OK
    assert classify("ProvisionedThroughputExceededException", 400) is T
    assert classify("ThrottlingException", 400) is T
    assert classify("TransactionInProgressException", 400) is T
    assert classify("InternalServerError", 500) is AttemptKind.TRANSIENT
    assert classify(None, None) is AttemptKind.TRANSIENT  # no answer at all
    for never in (
        "ConditionalCheckFailedException",
        "TransactionCanceledException",
        "TransactionConflictException",
        "ValidationException",
    ):
        assert classify(never, 400) is AttemptKind.FAILED


def test_settings_refuse_what_no_sdk_has() -> None:
    with pytest.raises(ValueError, match="use one of none, standard, legacy, adaptive"):
        RetrySettings("exponential")
    with pytest.raises(ValueError, match="use 1 or more"):
        RetrySettings("standard", max_attempts=0)


class _FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def current_time(self) -> float:
        return self.t


class _Detector:
    def is_throttling_error(self, **kwargs: Any) -> bool:
        return bool(kwargs["throttled"])


def test_the_adaptive_limiter_follows_botocores_rates_step_by_step() -> None:
    clock = _FakeClock()
    theirs = adaptive.ClientRateLimiter(
        rate_adjustor=throttling.CubicCalculator(starting_max_rate=0, start_time=clock.t),
        rate_clocker=adaptive.RateClocker(clock),
        token_bucket=bucket.TokenBucket(max_rate=1, clock=clock),
        throttling_detector=_Detector(),
        clock=clock,
    )
    ours = AdaptiveLimiter(clock.t)
    rng = random.Random(8)
    throttles = 0
    for _ in range(600):
        # 20-60 answers a second, throttled in bursts (a table at its limit)
        clock.t += rng.uniform(1 / 60, 1 / 20)
        throttled = rng.random() < (0.6 if int(clock.t) % 10 < 3 else 0.02)
        throttles += throttled
        theirs.on_receiving_response(throttled=throttled)
        ours.on_response(throttled, clock.t)
        assert ours.enabled == theirs._enabled
        assert ours.rate == pytest.approx(theirs._token_bucket.max_rate, rel=1e-9)
    assert throttles > 20
    assert ours.enabled


def test_the_adaptive_limiter_makes_the_sender_wait_at_its_rate() -> None:
    limiter = AdaptiveLimiter(0.0)
    assert limiter.before_send(0.0) == 0.0  # off until the first throttle
    for i in range(1, 41):  # 40 answers over 2 s: a measured rate of about 20/s
        limiter.on_response(False, i * 0.05)
    limiter.on_response(True, 2.05)
    rate = limiter.rate
    assert limiter.enabled and 0.5 <= rate < 20
    # sending as fast as allowed for 10 s: the bucket's rate, plus at most what it had
    # banked (its capacity is one second of its rate)
    now, sent = 2.05, 0
    while now < 12.05:
        now += limiter.before_send(now)
        sent += 1
    assert 10 * rate - 1 <= sent <= 11 * rate + 1
