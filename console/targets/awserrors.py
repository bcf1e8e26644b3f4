"""AWS failures a user will meet, turned into messages with exit codes (errors.py).

Botocore raises NoCredentialsError before any request when no credentials are found,
ClientError with the service's error code otherwise; Terraform prints the provider's
diagnostic. Both are mapped here, once, so every step says the same thing about the same
problem and never shows a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from console.infra.tf_errors import TerraformError
from console.run.errors import (
    AwsDenied,
    CredentialsError,
    InfraError,
    WorkflowError,
)

NO_CREDENTIALS = (
    "no AWS credentials found: set AWS_PROFILE (or HOTBENCH_AWS_PROFILE) to a profile "
    "in ~/.aws/config, run `aws sso login`, or export AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY; nothing was created"
)
EXPIRED = (
    "the AWS credentials are expired or invalid ({code}): refresh them (`aws sso login "
    "--profile NAME`, or new keys) and run the command again; nothing was created by "
    "this call"
)
EXPIRED_CODES = {
    "ExpiredToken",
    "ExpiredTokenException",
    "RequestExpired",
    "InvalidClientTokenId",
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "AuthFailure",
}
DENIED_CODES = {
    "AccessDenied",
    "AccessDeniedException",
    "UnauthorizedOperation",
    "UnauthorizedException",
    "AuthorizationError",
}


def error_code(exc: BaseException) -> str:
    """The service's error code of a botocore ClientError (`ResourceNotFoundException`),
    or "" for any other exception: read the same way by every caller that tells a
    resource gone from a real failure."""
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def describe_error(exc: BaseException) -> str:
    """`Code: message` of a ClientError, `TypeName: message` of anything else: a
    best-effort step's note (down, the sweep, the fleet's stops) names what failed."""
    code = error_code(exc)
    return f"{code}: {exc}" if code else f"{type(exc).__name__}: {exc}"


_ACTION = re.compile(r"not authorized to perform:?\s*([A-Za-z0-9-]+:[A-Za-z0-9]+)")


def denied_action(message: str, fallback: str) -> str:
    """The IAM action an AccessDenied message names (`dynamodb:UpdateTable`), or
    `fallback` (the call's own service:Operation)."""
    found = _ACTION.search(message or "")
    return found.group(1) if found else fallback


def _client_error(exc: object, action: str, region: str) -> WorkflowError:
    response = getattr(exc, "response", {}) or {}
    error = response.get("Error", {}) or {}
    code = str(error.get("Code", ""))
    message = str(error.get("Message", "")) or str(exc)
    operation = getattr(exc, "operation_name", "") or action
    if code in EXPIRED_CODES:
        return CredentialsError(EXPIRED.format(code=code))
    if code in DENIED_CODES:
        needed = denied_action(message, action)
        return AwsDenied(
            f"access denied: the AWS identity may not call {needed} ({operation}); "
            f"grant it (docs/terraform.md#prerequisites lists the permissions) or use a "
            f"profile that has it"
        )
    if code == "LimitExceededException":
        return AwsDenied(
            f"an AWS quota was reached in {region} ({operation}: {message}); wait for "
            "running table operations to finish, or ask for a higher quota in Service "
            "Quotas"
        )
    if code == "ResourceInUseException" and "CreateTable" in operation:
        return AwsDenied(
            f"a table with that name already exists in {region} ({message}): another "
            "run may own it; `hotbench runs` lists runs, `hotbench down RUN_ID` removes one"
        )
    if _no_fargate(code, message):
        return AwsDenied(
            f"{region} cannot run Fargate tasks ({message}); choose a region with AWS "
            "Fargate (--region or HOTBENCH_REGION)"
        )
    return InfraError(f"AWS {operation} failed: {code or 'error'}: {message}")


def _no_fargate(code: str, message: str) -> bool:
    """AWS documents no error code for a region (or zone) without Fargate; it is matched
    on the wording seen in the field, "Fargate is (currently) not supported in this
    region / the requested availability zone" (aws/aws-toolkit-visual-studio#110,
    awsdocs/amazon-eks-user-guide#262), and on ECS's UnsupportedFeatureException."""
    text = message.lower()
    return code in ("UnsupportedFeatureException", "PlatformUnknownException") or (
        "fargate" in text and ("not supported" in text or "not available" in text)
    )


def from_terraform(exc: TerraformError, region: str) -> WorkflowError:
    """Terraform's error output, read for the same problems (the provider's wording)."""
    text = str(exc)
    lower = text.lower()
    if "no valid credential sources" in lower or "failed to refresh cached credentials" in lower:
        return CredentialsError(NO_CREDENTIALS)
    if "expiredtoken" in lower or "token included in the request is expired" in lower:
        return CredentialsError(EXPIRED.format(code="ExpiredToken"))
    if "accessdenied" in lower or "not authorized to perform" in lower:
        return AwsDenied(
            f"access denied: the AWS identity may not call {denied_action(text, 'an action')} "
            f"(terraform):\n{text}"
        )
    if "limitexceeded" in lower:
        return AwsDenied(f"an AWS quota was reached in {region} (terraform):\n{text}")
    if "resourceinuseexception" in lower and "table" in lower:
        return AwsDenied(f"a table with that name already exists in {region}:\n{text}")
    return InfraError(text)


@contextmanager
def aws_errors(action: str, region: str) -> Iterator[None]:
    """Turn botocore and Terraform failures inside the block into WorkflowErrors;
    `action` names the call for messages that do not (`ecs:RunTask`)."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
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
        raise CredentialsError(NO_CREDENTIALS) from None
    except ProfileNotFound as exc:
        raise CredentialsError(
            f"{exc}: name a profile from ~/.aws/config in AWS_PROFILE or HOTBENCH_AWS_PROFILE"
        ) from None
    except (TokenRetrievalError, UnauthorizedSSOTokenError):
        raise CredentialsError(EXPIRED.format(code="SSO token")) from None
    except NoRegionError:
        raise CredentialsError("no AWS region: set --region or HOTBENCH_REGION") from None
    except EndpointConnectionError as exc:
        raise InfraError(
            f"cannot reach AWS in {region} ({exc}): check the region name and the network"
        ) from None
    except ClientError as exc:
        raise _client_error(exc, action, region) from None
    except TerraformError as exc:
        raise from_terraform(exc, region) from None
    except BotoCoreError as exc:
        raise InfraError(f"AWS call {action} failed: {exc}") from None
