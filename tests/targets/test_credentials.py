"""The run's identity for Terraform: the same source of credentials boto3 used, the run's
region and the shared plugin cache (console/targets/credentials.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest

from console.targets.credentials import lifetime, terraform_environment

BASE = {
    "AWS_ACCESS_KEY_ID": "AKIAENVIRONMENT0001",
    "AWS_SECRET_ACCESS_KEY": "env-secret",
    "AWS_PROFILE": "other",
    "PATH": "/usr/bin",
}


@pytest.fixture
def shared_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CREDENTIAL_EXPIRATION",
    ):
        monkeypatch.delenv(name, raising=False)
    credentials = tmp_path / "credentials"
    credentials.write_text(
        "[bench]\naws_access_key_id = AKIAPROFILE00000001\naws_secret_access_key = s\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return tmp_path


def test_a_profile_reaches_terraform_as_the_profile_and_no_other_keys(
    shared_files: Path,
) -> None:
    """boto3 with a named profile ignores keys in the environment; the AWS SDK for Go
    (the provider) would prefer them: Terraform gets the profile and no keys."""
    session = boto3.Session(profile_name="bench", region_name="eu-west-1")
    env = terraform_environment(session, "eu-west-1", shared_files / "cache", BASE)
    assert env["AWS_PROFILE"] == "bench"
    assert "AWS_ACCESS_KEY_ID" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["AWS_REGION"] == env["AWS_DEFAULT_REGION"] == "eu-west-1"
    assert env["TF_PLUGIN_CACHE_DIR"] == str(shared_files / "cache" / "plugins")
    assert env["PATH"] == "/usr/bin"


def test_keys_from_the_environment_reach_terraform_without_a_profile(
    shared_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", BASE["AWS_ACCESS_KEY_ID"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", BASE["AWS_SECRET_ACCESS_KEY"])
    session = boto3.Session(region_name="us-east-1")
    env = terraform_environment(session, "us-east-1", shared_files, BASE)
    assert env["AWS_ACCESS_KEY_ID"] == BASE["AWS_ACCESS_KEY_ID"]
    assert "AWS_PROFILE" not in env


def test_how_long_the_credentials_last(shared_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Long-lived keys and a profile's keys: no expiry; temporary keys with
    AWS_CREDENTIAL_EXPIRATION: that time; without it: unknown, said."""
    assert lifetime(boto3.Session(profile_name="bench")).expires_at is None
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT0001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    assert lifetime(boto3.Session()).expires_at is None
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token")
    assert "expiry unknown" in lifetime(boto3.Session()).what
    at = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    monkeypatch.setenv("AWS_CREDENTIAL_EXPIRATION", at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert lifetime(boto3.Session()).expires_at == at
