"""Shared fixtures for the Terraform kit tests (tests/terraform); the fake Terraform is
tests/conftest.py's, shared with the workflow's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def offline_terraform_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plugin cache, no checkpoint call: tests must never reach for the network."""
    for name in ("TF_PLUGIN_CACHE_DIR", "TF_DATA_DIR", "TF_CLI_ARGS", "TF_CLI_ARGS_init"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHECKPOINT_DISABLE", "1")
