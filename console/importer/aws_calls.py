"""Every AWS call of an import goes through one small interface, `AwsCalls.call(service,
operation, params) -> answer`, so the same reader runs against the account (boto3, the
real service models), a recording of it (`--save`) or a replay (`--from-saved`, no
credentials): console/importer/snapshot.py holds the recording and the replay.

A failed call is a `CallFailed` with AWS's error code, whichever side it came from, so
the reader tells "denied" from "not found" the same way live and replayed.

Throttled calls are retried here, with full-jitter exponential backoff (AWS's
Architecture Blog, "Exponential Backoff And Jitter", 2015): CloudWatch's GetMetricData
and GetInsightRuleReport have low per-account rates, and an import is the operator's
tool, not the measuring instrument (a load run never retries; this may). botocore's
own standard retries (3 attempts) run first, inside each attempt.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from console import exitcodes
from console.output import UserError
from console.targets.awserrors import DENIED_CODES, EXPIRED_CODES

THROTTLE_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "LimitExceededException",  # DynamoDB's control plane, e.g. DescribeTable's rate
    }
)
"""Error codes that mean "slow down" on the services an import calls."""

# The same codes the workflow's AWS calls read (one list of what AWS calls a denial or a
# dead credential); the messages below are the importer's own, since its way out is a
# saved snapshot rather than a run.
NO_CREDENTIALS = (
    "no AWS credentials found: set AWS_PROFILE (or --profile) to a profile in "
    "~/.aws/config, run `aws sso login`, or export AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY; or import a saved snapshot with --from-saved DIR"
)
EXPIRED = (
    "the AWS credentials are expired or invalid ({code}): refresh them (`aws sso login "
    "--profile NAME`, or new keys) and run the command again"
)

IAM_PREFIX = {
    "dynamodb": "dynamodb",
    "application-autoscaling": "application-autoscaling",
    "cloudwatch": "cloudwatch",
    "iam": "iam",
    "sts": "sts",
}
"""botocore's service name -> the prefix of its IAM actions."""


class CallFailed(Exception):
    """An AWS call answered with an error (live or replayed)."""

    def __init__(self, service: str, operation: str, code: str, message: str) -> None:
        super().__init__(f"{service} {operation}: {code}: {message}")
        self.service = service
        self.operation = operation
        self.code = code
        self.message = message

    @property
    def action(self) -> str:
        """The IAM action of the call, e.g. cloudwatch:GetMetricData."""
        return f"{IAM_PREFIX.get(self.service, self.service)}:{self.operation}"

    @property
    def denied(self) -> bool:
        return self.code in DENIED_CODES


class AwsCalls(Protocol):
    def call(self, service: str, operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The answer of `operation` (API name: DescribeTable) with `params`, without
        ResponseMetadata; raises CallFailed when AWS answers with an error."""
        ...


@dataclass
class ThrottleBackoff:
    """How throttled calls are retried: attempt n (from 0) waits a uniform random time
    in [0, min(cap_s, base_s * 2 ** n)]."""

    attempts: int = 8
    base_s: float = 1.0
    cap_s: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int) -> float:
        return self.rng.uniform(0.0, min(self.cap_s, self.base_s * 2**attempt))


def _error(exc: Any) -> tuple[str, str]:
    error = (getattr(exc, "response", None) or {}).get("Error", {}) or {}
    return str(error.get("Code", "")), str(error.get("Message", "")) or str(exc)


class LiveCalls:
    """Calls the account through boto3 clients of one session (the real service models:
    botocore validates every request against them before it is sent)."""

    def __init__(
        self,
        session: Any,
        backoff: ThrottleBackoff | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.backoff = backoff or ThrottleBackoff()
        self.on_retry = on_retry or (lambda _line: None)
        self._clients: dict[str, Any] = {}

    def client(self, service: str) -> Any:
        if service not in self._clients:
            from botocore.config import Config

            self._clients[service] = self.session.client(
                service,
                config=Config(retries={"mode": "standard"}, user_agent_extra="hotbench-import"),
            )
        return self._clients[service]

    def call(self, service: str, operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
        from botocore import xform_name
        from botocore.exceptions import ClientError

        method = getattr(self.client(service), xform_name(operation))
        attempt = 0
        while True:
            try:
                with credential_errors():
                    answer = dict(method(**params))
            except ClientError as exc:
                code, message = _error(exc)
                if code in EXPIRED_CODES:
                    raise UserError(EXPIRED.format(code=code), exitcodes.USAGE) from None
                if code in THROTTLE_CODES and attempt + 1 < self.backoff.attempts:
                    wait = self.backoff.delay(attempt)
                    self.on_retry(
                        f"{service} {operation} throttled ({code}); retrying in {wait:.1f} s "
                        f"(attempt {attempt + 2} of {self.backoff.attempts})"
                    )
                    self.backoff.sleep(wait)
                    attempt += 1
                    continue
                raise CallFailed(service, operation, code or "error", message) from None
            answer.pop("ResponseMetadata", None)
            return answer


@contextmanager
def credential_errors() -> Iterator[None]:
    """botocore's failures before any request (no credentials, an unknown profile, an
    expired SSO token, no region, no network) as one-line UserErrors."""
    from botocore.exceptions import (
        EndpointConnectionError,
        NoCredentialsError,
        NoRegionError,
        PartialCredentialsError,
        ProfileNotFound,
        TokenRetrievalError,
        UnauthorizedSSOTokenError,
    )

    try:
        yield
    except (NoCredentialsError, PartialCredentialsError):
        raise UserError(NO_CREDENTIALS, exitcodes.USAGE) from None
    except ProfileNotFound as exc:
        raise UserError(
            f"{exc}: name a profile from ~/.aws/config with --profile or AWS_PROFILE",
            exitcodes.USAGE,
        ) from None
    except (TokenRetrievalError, UnauthorizedSSOTokenError):
        raise UserError(EXPIRED.format(code="SSO token"), exitcodes.USAGE) from None
    except NoRegionError:
        raise UserError(
            "no AWS region: give --region (or set AWS_REGION)", exitcodes.USAGE
        ) from None
    except EndpointConnectionError as exc:
        raise UserError(
            f"cannot reach AWS ({exc}): check the region name and the network",
            exitcodes.INFRA_FAILED,
        ) from None


def session(profile: str | None, region: str | None) -> Any:
    """A boto3 session for the profile and region (each None: boto3's own chain).
    Not console/targets/aws_kit.py's session(): that one takes a run's Settings, and an
    import belongs to no run."""
    import boto3

    with credential_errors():
        made = boto3.Session(profile_name=profile, region_name=region)
    if made.region_name is None:
        raise UserError("no AWS region: give --region (or set AWS_REGION)", exitcodes.USAGE)
    return made
