"""One AWS identity per run, for boto3, Terraform and the reaper alike, and how long it lasts.

boto3 is given the run's profile and region (`aws_kit.session`); Terraform is a separate
process with its own credential chain, so it is given an environment that leads that
chain to the same source (`terraform_environment`): the profile boto3 read its keys from
(and no keys in the environment, which the AWS SDK for Go would prefer to a profile:
https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html), or the
very keys boto3 took from the environment, and the run's region. The reaper is started
from `up` with the run's settings and `up`'s environment, so it resolves the same way.

Temporary credentials that nothing renews end the run's ability to clean up: `expiry`
says when, so `up` can shorten the deadline to before then, or refuse.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from console.run.errors import CredentialsError
from console.targets.awserrors import NO_CREDENTIALS

KEY_VARIABLES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_CREDENTIAL_EXPIRATION",
)
"""Credentials in the environment: dropped when the run's identity comes from a profile."""
PROFILE_VARIABLES = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE")
FROM_PROFILE = {
    "shared-credentials-file",
    "config-file",
    "assume-role",
    "sso",
    "custom-process",
    "assume-role-with-web-identity",
}
"""botocore's `Credentials.method` for credentials read through a profile."""


def _credentials(session: Any) -> Any:
    credentials = session.get_credentials()
    if credentials is None:
        raise CredentialsError(NO_CREDENTIALS)
    return credentials


def terraform_environment(
    session: Any, region: str, plugin_cache: Path, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of the run's Terraform commands: the credential source boto3 used,
    the run's region, and the shared plugin cache (TF_PLUGIN_CACHE_DIR)."""
    env = dict(os.environ if base is None else base)
    method = str(getattr(_credentials(session), "method", ""))
    profile = session.profile_name
    if method in FROM_PROFILE and profile:
        for name in (*KEY_VARIABLES, *PROFILE_VARIABLES):
            env.pop(name, None)
        env["AWS_PROFILE"] = profile
    elif method == "env":
        for name in PROFILE_VARIABLES:  # the keys win in every SDK; say only them
            env.pop(name, None)
    env["AWS_REGION"] = env["AWS_DEFAULT_REGION"] = region
    env["AWS_SDK_LOAD_CONFIG"] = "1"  # older Go SDKs read ~/.aws/config only with it
    env["TF_PLUGIN_CACHE_DIR"] = str(plugin_cache / "plugins")
    return env


@dataclass(frozen=True)
class Lifetime:
    """How long the run's credentials work without a person renewing them."""

    expires_at: datetime | None
    """None: they do not expire, or botocore renews them by itself (an assumed role
    from long-lived keys, an instance or container role)."""
    what: str
    """Where they come from, for the one line `up` prints."""


def lifetime(session: Any) -> Lifetime:
    """Credentials from the environment with an expiry (AWS_CREDENTIAL_EXPIRATION, as
    `aws configure export-credentials` and aws-vault set it) end then; an SSO sign-in
    ends when its token does (`aws sso login` again). `_expiry_time` is botocore's own
    record of an expiry: it has no public accessor."""
    credentials = _credentials(session)
    method = str(getattr(credentials, "method", ""))
    if method == "env":
        expires = getattr(credentials, "_expiry_time", None)
        if expires is not None:
            return Lifetime(expires, "temporary credentials from the environment")
        frozen = credentials.get_frozen_credentials()
        if frozen.token:
            return Lifetime(None, "temporary credentials from the environment, expiry unknown")
        return Lifetime(None, "long-lived keys from the environment")
    if method == "sso":
        token_expiry = _sso_token_expiry(session)
        return Lifetime(token_expiry, f"SSO sign-in of profile {session.profile_name}")
    return Lifetime(None, f"{method or 'credentials'} of profile {session.profile_name}")


def _sso_token_expiry(session: Any) -> datetime | None:
    try:
        token = session._session.get_auth_token()  # boto3 keeps its botocore session here
        return token.get_frozen_token().expiration if token is not None else None
    except Exception:  # a legacy SSO profile has no token provider: unknown
        return None
