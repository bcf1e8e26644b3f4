"""Admission resources: the token buckets every capacity decision is made of.

Each resource answers one question, "how many requests of this cost can you take now?",
and takes them. A request is admitted only when every resource on its route can take it,
so the model's decisions are the minimum over a route (see `admit`). Costs are in the
resource's own unit (capacity units for table buckets, fractions of a partition for
partitions, so that reads and writes share a partition as a linear combination).
"""

from __future__ import annotations

import math


class Resource:
    """Something a request must get capacity from.

    A base class rather than a Protocol: compiled with mypyc, `admit` then calls each
    resource through a vtable instead of a generic attribute look-up and call, and the
    route walk runs for every request (docs/emulator.md, History of the measurements)."""

    __slots__ = ()

    def available(self, now: float, cost: float) -> int:
        """How many requests of `cost` this resource could take at `now`."""
        raise NotImplementedError

    def take(self, count: int, cost: float) -> None:
        """Take `count` requests of `cost` (after `available` said they fit)."""
        raise NotImplementedError

    def refuse(self, count: int, now: float) -> None:
        """Record that `count` requests were refused here (feeds heat and pressure)."""
        raise NotImplementedError


class TokenBucket(Resource):
    """Rate-limited capacity with a depth: the shape of every DynamoDB limit we model."""

    __slots__ = ("depth", "rate", "refused_at", "stamp", "tokens")

    def __init__(self, rate: float, depth: float, now: float = 0.0, full: bool = True) -> None:
        self.rate = rate
        self.depth = depth
        self.tokens = depth if full else 0.0
        self.stamp = now
        self.refused_at = -math.inf

    def refill(self, now: float) -> None:
        if now > self.stamp:
            # min(depth, tokens), spelled out: this runs for every bucket of every request.
            tokens = self.tokens + (now - self.stamp) * self.rate
            self.tokens = tokens if tokens < self.depth else self.depth
            self.stamp = now

    def available(self, now: float, cost: float) -> int:
        self.refill(now)
        if cost > 0:
            # A tiny epsilon keeps 999.9999999 tokens from refusing the 1,000th unit-cost
            # request that exact arithmetic would admit.
            fits = math.floor(self.tokens / cost + 1e-9)
            return fits if fits > 0 else 0
        return 1 << 60

    def take(self, count: int, cost: float) -> None:
        self.tokens -= count * cost

    def refuse(self, count: int, now: float) -> None:
        self.refused_at = now

    def set_rate(self, rate: float, depth: float, now: float) -> None:
        """Change the limit without losing what was banked (clamped to the new depth)."""
        self.refill(now)
        self.rate = rate
        self.depth = depth
        self.tokens = min(self.tokens, depth)


class MeteredBucket(TokenBucket):
    """A token bucket that also counts what it hands out: the consumed capacity CloudWatch
    sums per minute, which auto scaling watches. Only a table or GSI under auto scaling
    gets one (`PartitionedCapacity.meter`), so a fixed-capacity table pays nothing for
    the count (`take` is the base class's, through the same vtable call)."""

    __slots__ = ("consumed",)

    def __init__(self, rate: float, depth: float, now: float = 0.0, full: bool = True) -> None:
        super().__init__(rate, depth, now, full)
        self.consumed = 0.0
        """Units taken since the bucket was made (at the run's scale)."""

    def take(self, count: int, cost: float) -> None:
        self.tokens -= count * cost
        self.consumed += count * cost

    @staticmethod
    def replacing(bucket: TokenBucket) -> MeteredBucket:
        """A metered bucket in the same state as `bucket` (rate, depth, tokens, clock)."""
        out = MeteredBucket(bucket.rate, bucket.depth, bucket.stamp)
        out.tokens = bucket.tokens
        out.refused_at = bucket.refused_at
        return out


def admit(route: list[Resource], costs: list[float], count: int, now: float) -> tuple[int, int]:
    """Admit up to `count` identical requests along `route`.

    Returns (accepted, index of the resource that refused the rest, or -1). Taking
    `count` at once is exactly `count` sequential single requests at the same instant:
    the first resource with the least room refuses every request past its room, and
    nothing is taken from any resource for a refused request.
    """
    if count == 1:
        # One request (the endpoint's case): no arithmetic on counts, stop at the first no.
        # Indexed loops, not zip(strict=True): mypyc compiles them to native list access.
        n = len(route)
        if len(costs) != n:
            raise ValueError("admit: route and costs differ in length")
        for i in range(n):
            resource = route[i]
            if resource.available(now, costs[i]) < 1:
                resource.refuse(1, now)
                return 0, i
        for i in range(n):
            route[i].take(1, costs[i])
        return 1, -1
    room = count
    binding = -1
    for i in range(len(route)):
        fits = route[i].available(now, costs[i])
        if fits < room:
            room = fits
            binding = i
    if room > 0:
        for i in range(len(route)):
            route[i].take(room, costs[i])
    if binding >= 0:
        route[binding].refuse(count - room, now)
    return room, binding


CREDIT = 1e-6
"""What a resource must hold for a request admitted on credit: any capacity at all."""


def out_of_credit(route: list[Resource], now: float) -> int:
    """The index of the first resource on `route` with no capacity left (recorded as a
    refusal there), or -1 when every one has some: the test of a request admitted on
    credit, whose cost may exceed what a resource holds (`admit_on_credit`)."""
    for i in range(len(route)):
        resource = route[i]
        if resource.available(now, CREDIT) < 1:
            resource.refuse(1, now)
            return i
    return -1


def admit_on_credit(route: list[Resource], costs: list[float]) -> None:
    """Charge a request admitted on credit in full, even past what a resource holds: its
    balance goes below zero and its refill repays the debt before it admits anything else.

    Why: a request is admitted or refused as a whole, and one request may cost more than a
    resource ever holds. DynamoDB takes a transaction of up to 100 items and 4 MB
    (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html),
    which at two write units per KB of each item (transaction-apis.html) costs up to
    8,192 WCU, twice the 4,000 WCU a second a new on-demand table serves
    (on-demand-capacity-mode.html, "Initial throughput"): were a request admitted only
    when its whole cost fit, such a documented request could never run on a new table,
    and DynamoDB runs it (a 30-item, 3 MB transaction on a new on-demand table was
    accepted on AWS where this emulator refused it every time: issue 41). Only requests
    of several items go through here; a single-item request is admitted by `admit`."""
    for i in range(len(route)):
        route[i].take(1, costs[i])
