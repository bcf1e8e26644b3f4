"""The lean signer must produce exactly botocore's SigV4 signature for the same request."""

from __future__ import annotations

import datetime
import json
import time
from unittest import mock

import botocore.auth
import pytest
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from loadgen.live.sigv4 import Signer, StaticCredentials

WHEN = datetime.datetime(2026, 11, 30, 23, 59, 59, tzinfo=datetime.UTC)


def botocore_authorization(host: str, target: str, body: bytes, token: str | None) -> str:
    request = AWSRequest(
        method="POST",
        url=f"http://{host}/",
        data=body,
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target},
    )
    auth = botocore.auth.SigV4Auth(
        Credentials("AKIDEXAMPLE", "secret/key+x", token), "dynamodb", "us-west-2"
    )
    with mock.patch("botocore.auth.get_current_datetime", return_value=WHEN):
        auth.add_auth(request)
    return str(request.headers["Authorization"])


@pytest.mark.parametrize("token", [None, "session-token/abc=="])
@pytest.mark.parametrize("host", ["127.0.0.1:8000", "dynamodb.us-west-2.amazonaws.com"])
def test_signature_matches_botocore(token: str | None, host: str) -> None:
    body = json.dumps({"TableName": "t", "Item": {"pk": {"S": "Ünïcode"}}}).encode()
    target = "DynamoDB_20120810.PutItem"
    signer = Signer(StaticCredentials("AKIDEXAMPLE", "secret/key+x", token), "us-west-2", host)
    headers = dict(signer.headers(target, body, now=WHEN.timestamp()))
    assert headers["Authorization"] == botocore_authorization(host, target, body, token)
    assert headers["X-Amz-Date"] == "20261130T235959Z"
    assert headers.get("X-Amz-Security-Token") == token


def test_rotating_credentials_are_picked_up() -> None:
    class Rotating:
        def __init__(self) -> None:
            self.calls = 0

        def get_frozen_credentials(self) -> Credentials:
            self.calls += 1
            return Credentials(f"AKID{self.calls}", "s", "t")

    source = Rotating()
    signer = Signer(source, "us-west-2", "h")
    t = time.time()
    first = dict(signer.headers("X", b"{}", now=t))["Authorization"]
    again = dict(signer.headers("X", b"{}", now=t + 0.1))["Authorization"]
    later = dict(signer.headers("X", b"{}", now=t + 2.0))["Authorization"]
    assert "AKID1/" in first and "AKID1/" in again  # cached within a second
    assert "AKID2/" in later  # re-read after REFRESH_EVERY_S
    assert source.calls == 2
