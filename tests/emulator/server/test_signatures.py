"""The opt-in SigV4 check (issue 41, item 5): with it, a request is refused as DynamoDB
refuses it (HTTP 400, the service layer's exception and words) when its signature does
not match, its access key is unknown, its date is stale, or it is not signed at all;
without it any credentials are taken."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from emulator.server import EmulatorOptions, EmulatorServer
from emulator.server.signatures import SignatureCheck
from tests.emulator.server.conftest import NO_RETRY, key_table

GOOD = {"AKIDEXAMPLE": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}


def _client(emu: EmulatorServer, key: str, secret: str, service: str = "dynamodb") -> Any:
    return boto3.session.Session().client(
        service,
        endpoint_url=emu.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        config=NO_RETRY,
    )


@pytest.fixture
def checked() -> Iterator[EmulatorServer]:
    with EmulatorServer(
        EmulatorOptions(create_delay_s=0), signatures=SignatureCheck(GOOD)
    ) as server:
        yield server
        assert server.service.internal_errors == 0


def _refused(call: Any) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as caught:
        call()
    response = caught.value.response
    return (
        response["ResponseMetadata"]["HTTPStatusCode"],
        response["Error"]["Code"],
        response["Error"]["Message"],
    )


def test_a_good_signature_passes_and_a_wrong_one_is_refused(checked: EmulatorServer) -> None:
    ((key, secret),) = GOOD.items()
    good = _client(checked, key, secret)
    key_table(good, sk_type=None)
    good.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "body": {"S": "ünïcode " * 50}})
    assert _client(checked, key, secret, "dynamodbstreams").list_streams()["Streams"] == []
    status, code, message = _refused(lambda: _client(checked, key, "not-the-secret").list_tables())
    assert (status, code) == (400, "InvalidSignatureException")
    assert message.startswith("The request signature we calculated does not match")
    assert _refused(lambda: _client(checked, "AKIDUNKNOWN", secret).list_tables()) == (
        400,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    )
    # Nothing of a refused request was done.
    assert (
        _refused(
            lambda: _client(checked, key, "wrong").put_item(
                TableName="tbl", Item={"pk": {"S": "b"}}
            )
        )[1]
        == "InvalidSignatureException"
    )
    assert good.scan(TableName="tbl", Select="COUNT")["Count"] == 1


def test_a_stale_date_is_refused_in_dynamodbs_words() -> None:
    skewed = SignatureCheck(GOOD, wall_clock=lambda: time.time() + 3600)
    with EmulatorServer(EmulatorOptions(create_delay_s=0), signatures=skewed) as server:
        ((key, secret),) = GOOD.items()
        status, code, message = _refused(lambda: _client(server, key, secret).list_tables())
        assert (status, code) == (400, "InvalidSignatureException")
        assert message.startswith("Signature expired: ") and message.endswith(" - 15 min.)")


def _raw(emu: EmulatorServer, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection(emu.endpoint_url.removeprefix("http://"), timeout=10)
    connection.request(
        "POST",
        "/",
        body=b"{}",
        headers={"X-Amz-Target": "DynamoDB_20120810.ListTables", **headers},
    )
    reply = connection.getresponse()
    status, body = reply.status, json.loads(reply.read())
    connection.close()
    return status, body


def test_unsigned_and_incomplete_requests_get_dynamodbs_answers(checked: EmulatorServer) -> None:
    """The answers dynalite's test/connection.js records from DynamoDB."""
    assert _raw(checked, {}) == (
        400,
        {
            "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
            "message": "Request is missing Authentication Token",
        },
    )
    assert _raw(checked, {"Authorization": "AWS4"})[1]["__type"].endswith(
        "#MissingAuthenticationTokenException"
    )
    assert _raw(checked, {"Authorization": "AWS4-"}) == (
        400,
        {
            "__type": "com.amazon.coral.service#IncompleteSignatureException",
            "message": "Authorization header requires 'Credential' parameter. "
            "Authorization header requires 'Signature' parameter. "
            "Authorization header requires 'SignedHeaders' parameter. "
            "Authorization header requires existence of either a 'X-Amz-Date' or a "
            "'Date' header. Authorization=AWS4-",
        },
    )


def test_without_the_check_any_credentials_are_taken(emu: EmulatorServer) -> None:
    assert _client(emu, "anything", "at all").list_tables()["TableNames"] == []
    assert _raw(emu, {})[0] == 200


def test_the_default_keys_are_the_environments_or_x(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    assert SignatureCheck.from_environment().credentials == {"x": "x"}
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKID")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "SECRET")
    assert SignatureCheck.from_environment().credentials == {"AKID": "SECRET"}
