"""A variant's auto scaling put on its table in the emulator, after CreateTable.

On AWS, auto scaling is Application Auto Scaling's, a service apart from DynamoDB: the
Terraform kit's aws_appautoscaling_target and aws_appautoscaling_policy set it. The
emulator's equivalent is its `/_hotbench/tables/T/auto-scaling` route (PUT with
RegisterScalableTarget's MinCapacity/MaxCapacity and PutScalingPolicy's
TargetTrackingScalingPolicyConfiguration, per dimension), which is what this calls: the
body is the emulator's own `AutoScalingSpec.as_request`, so the policy the endpoint runs
is the one the simulation ran.

urllib, not httpx: this runs once per table, off the hot path, and `hotbench run`'s
module uses urllib for its other control calls.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from loadgen.format.playbook import TableSpec

TIMEOUT_S = 10.0


class AutoScalingRouteError(RuntimeError):
    """The endpoint would not take a variant's auto scaling; the text says why and what
    to do."""


def auto_scaling_url(endpoint: str, table: str, index: str | None) -> str:
    """`/_hotbench/tables/T/auto-scaling[?index=G]` on `endpoint`."""
    name = urllib.parse.quote(table, safe="")
    url = f"{endpoint.rstrip('/')}/_hotbench/tables/{name}/auto-scaling"
    return url if index is None else f"{url}?{urllib.parse.urlencode({'index': index})}"


def put_auto_scaling(endpoint: str, table: str, spec: TableSpec) -> list[str]:
    """Put each of the variant's policies (table, then GSIs) on `table` at `endpoint`;
    returns a line per policy for the operator ("orders: write 70 % of 100-10000").
    Nothing is sent for a variant without auto scaling."""
    done: list[str] = []
    for index, policy in spec.auto_scaling_specs().items():
        url = auto_scaling_url(endpoint, table, index)
        body = json.dumps(policy.as_request()).encode()
        request = urllib.request.Request(
            url, data=body, method="PUT", headers={"Content-Type": "application/json"}
        )
        where = table if index is None else f"{table}/{index}"
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
                reply.read()
        except urllib.error.HTTPError as refused:
            detail = _error_text(refused)
            if refused.code in (404, 405) and "not found" not in detail.lower():
                raise AutoScalingRouteError(
                    f"{where}: the endpoint {endpoint} has no auto-scaling route (not a "
                    "hotbench emulator?); run against `hotbench emulator serve`, or drop "
                    "auto_scaling from the variant"
                ) from None
            raise AutoScalingRouteError(
                f"{where}: the emulator refused the auto scaling ({refused.code}: {detail})"
            ) from None
        except (OSError, ValueError) as exc:
            raise AutoScalingRouteError(
                f"{where}: could not set auto scaling on the emulator at {endpoint} ({exc})"
            ) from None
        for dimension, tracking in policy.policies():
            done.append(
                f"{where}: {dimension} auto scaling at {tracking.target_pct:g} % of "
                f"{tracking.min_capacity:,}-{tracking.max_capacity:,}"
            )
    return done


def _error_text(refused: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(refused.read() or b"{}")
    except ValueError:
        return refused.reason or ""
    return str(body.get("error") or refused.reason or "") if isinstance(body, dict) else ""
