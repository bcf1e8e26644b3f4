"""The application's SDK retries, as one pure model: `none`, `standard`, `legacy` and
`adaptive`, with botocore's documented constants as defaults.

Issue 26 separates the instrument (which sends each request once and counts what
DynamoDB answered) from the application, whose SDK retries a throttled request with
backoff, spends a retry quota, and in adaptive mode slows its own sending. A playbook
names the application's policy (`retry:`); the simulation runs this model in virtual
time and the live worker in real time around each operation of a scenario. Nothing here
sleeps or reads a clock: the driver passes `now` and performs the waits the model
returns, and the jitter comes from an injected `rng` (a `random.Random(seed).random`).

Why our own module and not botocore's classes: botocore's retry handler is wired to its
event system and blocks the calling thread (`time.sleep`, a condition variable in the
adaptive token bucket), so it cannot run in virtual time. The semantics and constants
below are botocore's (botocore 1.43, `botocore/retries/standard.py`, `quota.py`,
`adaptive.py`, `bucket.py`, `throttling.py`, and `botocore/data/_retry.json` for legacy),
cited where each is used; `tests/loadgen/test_sdk_retry_botocore.py` checks that the real
handler, driven against the emulator endpoint, makes the same attempts.
reference.md#an-applications-sdk-retries holds the facts and their sources.

The behaviour botocore gates behind AWS_NEW_RETRIES_2026 (other scales and costs,
4 attempts for DynamoDB) is not modelled: it is opt-in and not yet the default.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

MODES = ("none", "standard", "legacy", "adaptive")
"""The policies a playbook's `retry:` may name; `none` (one attempt) is the default, so
every playbook written before retries existed keeps one attempt per request."""

STANDARD_MAX_ATTEMPTS = 3
"""[botocore standard.py DEFAULT_MAX_ATTEMPTS] attempts in all, the first included."""
LEGACY_DYNAMODB_MAX_ATTEMPTS = 10
"""[botocore _retry.json, dynamodb.__default__.max_attempts] attempts in all."""
LEGACY_BASE_S = 0.05
"""[botocore _retry.json, dynamodb delay: exponential, base 0.05, growth_factor 2]."""
STANDARD_MAX_BACKOFF_S = 20.0
"""[botocore standard.py ExponentialBackoff._MAX_BACKOFF] the cap of one backoff."""
QUOTA_CAPACITY = 500
"""[botocore quota.py RetryQuota.INITIAL_CAPACITY] one quota per client."""
QUOTA_RETRY_COST = 5
"""[botocore standard.py RetryQuotaChecker._RETRY_COST] taken per retry."""
QUOTA_TIMEOUT_COST = 10
"""[botocore standard.py RetryQuotaChecker._TIMEOUT_RETRY_REQUEST] per retry of a timeout."""
QUOTA_SUCCESS_REFUND = 1
"""[botocore standard.py RetryQuotaChecker._NO_RETRY_INCREMENT] given back by a call that
succeeded without a retry (one that succeeded after retries gives back its last cost)."""
ADAPTIVE_BETA = 0.7
"""[botocore throttling.py CubicCalculator._BETA] on a throttle, rate = 0.7 x W_max."""
ADAPTIVE_SCALE = 0.4
"""[botocore throttling.py CubicCalculator._SCALE_CONSTANT] rate = 0.4 (t - K)^3 + W_max."""
ADAPTIVE_MIN_RATE = 0.5
"""[botocore bucket.py TokenBucket._MIN_RATE] the slowest fill rate, requests/s."""
ADAPTIVE_MAX_RATE_SCALE = 2.0
"""[botocore adaptive.py ClientRateLimiter._MAX_RATE_ADJUST_SCALE] the rate is capped at
2 x the measured send rate."""
ADAPTIVE_SMOOTHING = 0.8
"""[botocore adaptive.py RateClocker._DEFAULT_SMOOTHING] EWMA weight of the newest rate."""
ADAPTIVE_BUCKET_S = 0.5
"""[botocore adaptive.py RateClocker._TIME_BUCKET_RANGE] the measured rate's interval."""


class AttemptKind(StrEnum):
    """What one attempt's answer is, to a retry policy."""

    OK = "ok"
    THROTTLED = "throttled"
    TRANSIENT = "transient"
    """A 5xx, or the connection failed: retried by every SDK policy."""
    TIMEOUT = "timeout"
    """No answer in time: retried, and costs the standard quota twice as much."""
    FAILED = "failed"
    """A client error no SDK retries: a failed condition, a cancelled transaction, a
    transaction conflict, a validation error."""


THROTTLE_CODES = frozenset(
    {
        # [botocore standard.py ThrottledRetryableChecker._THROTTLED_ERROR_CODES], the
        # codes DynamoDB can answer with.
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "TransactionInProgressException",
        "LimitExceededException",
    }
)
LEGACY_RETRIED_CODES = frozenset(
    {
        # [botocore _retry.json] __default__ throttling policies plus dynamodb's own
        # (TransactionInProgressException); RequestLimitExceeded and
        # LimitExceededException are not in legacy's list.
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
    }
)
TRANSIENT_STATUS = frozenset({500, 502, 503, 504})
"""[botocore standard.py TransientRetryableChecker._TRANSIENT_STATUS_CODES]."""


def classify(error_code: str | None, http_status: int | None) -> AttemptKind:
    """An answer's kind from its error code (the `__type` after '#') and HTTP status;
    `http_status` None: no answer arrived (a connection error)."""
    if http_status is None:
        return AttemptKind.TRANSIENT
    if 200 <= http_status < 300 and error_code is None:
        return AttemptKind.OK
    if error_code in THROTTLE_CODES:
        return AttemptKind.THROTTLED
    if http_status in TRANSIENT_STATUS:
        return AttemptKind.TRANSIENT
    return AttemptKind.FAILED


class StopReason(StrEnum):
    """Why an operation's attempts ended: what the application saw."""

    OK = "ok"
    FAILED = "failed"
    """A non-retryable answer (or any failure under `none`)."""
    ATTEMPTS_EXHAUSTED = "attempts_exhausted"
    QUOTA_EXHAUSTED = "quota_exhausted"
    """Retryable, but the client's retry quota had no room: retries exhausted too."""


@dataclass(frozen=True, slots=True)
class RetrySettings:
    """A playbook's `retry:` policy. `max_attempts`: attempts in all (the first
    included; note botocore's client Config `max_attempts` counts retries, one less);
    None takes the mode's default."""

    mode: str = "none"
    max_attempts: int | None = None
    max_backoff_s: float = STANDARD_MAX_BACKOFF_S
    quota: int = QUOTA_CAPACITY

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"retry mode {self.mode!r}: use one of {', '.join(MODES)}")
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError(f"retry max_attempts {self.max_attempts}: use 1 or more")

    @property
    def attempts(self) -> int:
        """Attempts in all, resolved."""
        if self.max_attempts is not None:
            return 1 if self.mode == "none" else self.max_attempts
        if self.mode == "none":
            return 1
        if self.mode == "legacy":
            return LEGACY_DYNAMODB_MAX_ATTEMPTS
        return STANDARD_MAX_ATTEMPTS


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """After one attempt: retry after `delay_s`, or stop for `reason`."""

    retry: bool
    delay_s: float
    reason: StopReason | None


_SUCCEEDED = RetryDecision(False, 0.0, StopReason.OK)
"""Every successful attempt's decision, built once: frozen, so it can be shared (a
frozen dataclass's __init__ costs several plain ones, and most attempts succeed)."""


class RetryQuota:
    """[botocore quota.py RetryQuota] the client's retry tokens: a retry takes some, a
    successful call gives some back, never above the capacity."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.available = capacity

    def acquire(self, amount: int) -> bool:
        if amount > self.available:
            return False
        self.available -= amount
        return True

    def release(self, amount: int) -> None:
        self.available = min(self.capacity, self.available + amount)


class AdaptiveLimiter:
    """[botocore adaptive.py ClientRateLimiter, bucket.py TokenBucket, throttling.py
    CubicCalculator, adaptive.py RateClocker] the client-side send rate of adaptive
    mode: off until the first throttle; then a token bucket whose rate falls to 0.7 x
    the rate at the throttle and grows back along a cubic curve, capped at 2 x the
    measured send rate. Non-blocking: `before_send` returns how long to wait, and the
    driver waits it (botocore blocks on a condition variable)."""

    def __init__(self, now: float) -> None:
        self.enabled = False
        # TokenBucket(max_rate=1): fill rate 1/s, capacity 1, starting empty.
        self._fill_rate = 1.0
        self._max_capacity = 1.0
        self._capacity = 0.0
        self._last: float | None = None
        # CubicCalculator(starting_max_rate=0, start_time=now)
        self._w_max = 0.0
        self._k = 0.0
        self._last_fail = now
        # RateClocker
        self._measured = 0.0
        self._count = 0
        self._last_bucket: float = math.floor(now)

    @property
    def rate(self) -> float:
        """The token bucket's fill rate: the most requests/s the client sends."""
        return self._fill_rate

    def before_send(self, now: float) -> float:
        """Seconds to wait before sending (0 while disabled); takes the token."""
        if not self.enabled:
            return 0.0
        self._refill(now)
        if self._capacity >= 1.0:
            self._capacity -= 1.0
            return 0.0
        wait = (1.0 - self._capacity) / self._fill_rate
        self._refill(now + wait)
        self._capacity = max(0.0, self._capacity - 1.0)
        return wait

    def on_response(self, throttled: bool, now: float) -> None:
        """Every answer (botocore's `needs-retry` hook): the measured rate, then the
        cubic rate, then the bucket's new rate."""
        measured = self._record(now)
        if not throttled:
            new_rate = ADAPTIVE_SCALE * (now - self._last_fail - self._k) ** 3 + self._w_max
        else:
            current = measured if not self.enabled else min(measured, self._fill_rate)
            self._w_max = current
            self._k = (self._w_max * (1 - ADAPTIVE_BETA) / ADAPTIVE_SCALE) ** (1 / 3.0)
            self._last_fail = now
            new_rate = current * ADAPTIVE_BETA
            self.enabled = True
        self._set_rate(min(new_rate, ADAPTIVE_MAX_RATE_SCALE * measured), now)

    def _record(self, now: float) -> float:
        bucket = math.floor(now / ADAPTIVE_BUCKET_S) * ADAPTIVE_BUCKET_S
        self._count += 1
        if bucket > self._last_bucket:
            rate = self._count / (bucket - self._last_bucket)
            self._measured = rate * ADAPTIVE_SMOOTHING + self._measured * (1 - ADAPTIVE_SMOOTHING)
            self._count = 0
            self._last_bucket = bucket
        return self._measured

    def _set_rate(self, value: float, now: float) -> None:
        self._refill(now)
        self._fill_rate = max(value, ADAPTIVE_MIN_RATE)
        self._max_capacity = value if value >= 1 else 1.0
        self._capacity = min(self._capacity, self._max_capacity)

    def _refill(self, now: float) -> None:
        if self._last is None:
            self._last = now
            return
        filled = (now - self._last) * self._fill_rate
        self._capacity = min(self._max_capacity, self._capacity + filled)
        self._last = now


class SdkClient:
    """One application client's retry state (botocore keeps one quota and, in adaptive
    mode, one rate limiter per client): a simulated user, or a live worker's client.
    `call()` starts one operation."""

    def __init__(self, settings: RetrySettings, rng: Callable[[], float], now: float = 0.0):
        self.settings = settings
        self.rng = rng
        """Draws in [0, 1) for the backoff's jitter (botocore: `random.random`)."""
        self.quota = RetryQuota(settings.quota)
        self.limiter = AdaptiveLimiter(now) if settings.mode == "adaptive" else None

    def call(self) -> OperationAttempts:
        return OperationAttempts(self)


class OperationAttempts:
    """The attempts of one operation. Per attempt the driver calls `before_send(now)`
    (and waits what it returns), sends, then `after(kind, now)`; it retries after
    `delay_s` while the decision says so. `attempts` counts what DynamoDB saw."""

    def __init__(self, client: SdkClient) -> None:
        self._client = client
        self.attempts = 0
        self._acquired: int | None = None
        """The quota the last retry took (given back if the call then succeeds)."""

    def before_send(self, now: float) -> float:
        self.attempts += 1
        limiter = self._client.limiter
        return 0.0 if limiter is None else limiter.before_send(now)

    def after(self, kind: AttemptKind, now: float) -> RetryDecision:
        client = self._client
        settings = client.settings
        if client.limiter is not None:
            client.limiter.on_response(kind is AttemptKind.THROTTLED, now)
        if kind is AttemptKind.OK:
            if settings.mode in ("standard", "adaptive"):
                # [botocore RetryQuotaChecker.release_retry_quota] on a 2xx answer.
                refund = QUOTA_SUCCESS_REFUND if self._acquired is None else self._acquired
                client.quota.release(refund)
            return _SUCCEEDED
        if settings.mode == "none" or not self._retryable(kind):
            return RetryDecision(False, 0.0, StopReason.FAILED)
        if self.attempts >= settings.attempts:
            return RetryDecision(False, 0.0, StopReason.ATTEMPTS_EXHAUSTED)
        if settings.mode == "legacy":
            # [botocore retryhandler.delay_exponential] base x growth^(attempts - 1).
            return RetryDecision(True, LEGACY_BASE_S * 2 ** (self.attempts - 1), None)
        cost = QUOTA_TIMEOUT_COST if kind is AttemptKind.TIMEOUT else QUOTA_RETRY_COST
        if not client.quota.acquire(cost):
            return RetryDecision(False, 0.0, StopReason.QUOTA_EXHAUSTED)
        self._acquired = cost
        # [botocore standard.py ExponentialBackoff.delay_amount] rand x min(2^(n-1), 20).
        delay = client.rng() * min(2.0 ** (self.attempts - 1), settings.max_backoff_s)
        return RetryDecision(True, delay, None)

    def _retryable(self, kind: AttemptKind) -> bool:
        return kind in (AttemptKind.THROTTLED, AttemptKind.TRANSIENT, AttemptKind.TIMEOUT)


def retry_kind(mode: str, error_code: str | None, http_status: int | None) -> AttemptKind:
    """`classify`, with legacy's narrower list: legacy does not retry
    RequestLimitExceeded or LimitExceededException, so to it they are failures."""
    kind = classify(error_code, http_status)
    legacy_skips = mode == "legacy" and error_code not in LEGACY_RETRIED_CODES
    if kind is AttemptKind.THROTTLED and legacy_skips:
        return AttemptKind.FAILED
    return kind
