"""The opt-in check of a request's AWS Signature Version 4 (`hotbench emulator serve
--check-signatures`, `Service(check_signatures=...)`): a request signed with a wrong
secret, an unknown access key or a stale date is refused as DynamoDB refuses it, HTTP
400 with the service layer's exception and words, so a test can prove that an
application signs its requests (and a misconfigured client fails here as on AWS).

The signature is computed as SigV4 defines it
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html):
the canonical request of the method, path, query, the signed headers and the payload's
SHA-256, then the string to sign under the credential scope, then the HMAC chain of the
secret key over date, region and service. Off by default: without it any credentials
are taken, as DynamoDB Local takes them.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import os
import time
from collections.abc import Callable
from typing import Final
from urllib.parse import parse_qsl, quote, unquote

from emulator.server.protocol import CORAL_SERVICE, DynamoError

ALGORITHM: Final = "AWS4-HMAC-SHA256"
MAX_SKEW_S: Final = 15 * 60.0
"""[AWS] a request dated more than 15 minutes from the server's clock is refused."""
DEFAULT_CREDENTIALS: Final = {"x": "x"}
"""What `hotbench emulator serve` prints for boto3 (aws_access_key_id='x',
aws_secret_access_key='x'): accepted when the environment names no key."""

Headers = list[tuple[bytes, bytes]]


def _error(name: str, message: str) -> DynamoError:
    return DynamoError(name, message, CORAL_SERVICE)


MISSING: Final = "Request is missing Authentication Token"
BAD_SIGNATURE: Final = (
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details."
)
UNKNOWN_KEY: Final = "The security token included in the request is invalid."


class SignatureCheck:
    """The access keys this emulator knows, and the check of each request against them."""

    def __init__(
        self, credentials: dict[str, str], wall_clock: Callable[[], float] = time.time
    ) -> None:
        self.credentials = dict(credentials)
        """Secret access key by access key id."""
        self.wall_clock = wall_clock

    @classmethod
    def from_environment(cls) -> SignatureCheck:
        """The key pair in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when both are set,
        else the x / x that `serve` prints for clients."""
        key = os.environ.get("AWS_ACCESS_KEY_ID")
        secret = os.environ.get("AWS_SECRET_ACCESS_KEY")
        return cls({key: secret} if key and secret else DEFAULT_CREDENTIALS)

    def refusal(
        self,
        method: str,
        path: str,
        query: str,
        headers: Headers,
        body: bytes,
        authorization: str | None,
    ) -> DynamoError | None:
        """Why DynamoDB would refuse this request's signature, or None if it holds."""
        if authorization is None or not authorization.startswith("AWS4-"):
            # [AWS] no Authorization header, or one that is not SigV4 ("AWS4"): dynalite's
            # test/connection.js, run against DynamoDB.
            return _error("MissingAuthenticationTokenException", MISSING)
        named = {name.lower().decode("latin-1"): value for name, value in headers}
        params = _parameters(authorization)
        missing = [
            f"Authorization header requires '{p}' parameter."
            for p in ("Credential", "Signature", "SignedHeaders")
            if p not in params
        ]
        date = named.get("x-amz-date") or named.get("date")
        if date is None:
            missing.append(
                "Authorization header requires existence of either a 'X-Amz-Date' or a "
                "'Date' header."
            )
        if missing or not authorization.startswith(ALGORITHM + " "):
            return _error(
                "IncompleteSignatureException",
                " ".join(missing) + f" Authorization={authorization.split(' ')[0]}",
            )
        assert date is not None
        scope = params["Credential"].split("/")
        if len(scope) != 5 or scope[4] != "aws4_request":
            return _error(
                "IncompleteSignatureException",
                f"Credential should be scoped to correct service: 'dynamodb'. "
                f"Authorization={authorization.split(' ')[0]}",
            )
        secret = self.credentials.get(scope[0])
        if secret is None:
            return _error("UnrecognizedClientException", UNKNOWN_KEY)
        amz_date = date.decode("latin-1")
        stale = self._stale(amz_date)
        if stale is not None:
            return _error("InvalidSignatureException", stale)
        canonical = _canonical_request(method, path, query, named, params["SignedHeaders"], body)
        string_to_sign = "\n".join(
            (
                ALGORITHM,
                amz_date,
                "/".join(scope[1:]),
                hashlib.sha256(canonical.encode()).hexdigest(),
            )
        )
        key = ("AWS4" + secret).encode()
        for part in scope[1:]:
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, params["Signature"]):
            return _error("InvalidSignatureException", BAD_SIGNATURE)
        return None

    def _stale(self, amz_date: str) -> str | None:
        """[AWS] the words of a request signed more than 15 minutes from now."""
        try:
            signed = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(
                tzinfo=datetime.UTC
            )
        except ValueError:
            return f"Date must be in ISO-8601 'basic format'. Got '{amz_date}'."
        now = datetime.datetime.fromtimestamp(self.wall_clock(), tz=datetime.UTC)
        skew = (signed - now).total_seconds()
        if abs(skew) <= MAX_SKEW_S:
            return None

        def show(moment: datetime.datetime) -> str:
            return moment.strftime("%Y%m%dT%H%M%SZ")

        limit = datetime.timedelta(seconds=MAX_SKEW_S)
        if skew < 0:
            return (
                f"Signature expired: {amz_date} is now earlier than {show(now - limit)} "
                f"({show(now)} - 15 min.)"
            )
        return (
            f"Signature not yet current: {amz_date} is still later than {show(now + limit)} "
            f"({show(now)} + 15 min.)"
        )


def _parameters(authorization: str) -> dict[str, str]:
    """Credential, SignedHeaders and Signature of a SigV4 Authorization header."""
    _, _, rest = authorization.partition(" ")
    out: dict[str, str] = {}
    for part in rest.split(","):
        name, eq, value = part.strip().partition("=")
        if eq:
            out[name] = value
    return out


def _canonical_request(
    method: str,
    path: str,
    query: str,
    headers: dict[str, bytes],
    signed: str,
    body: bytes,
) -> str:
    uri = quote(unquote(path or "/"), safe="/~")
    pairs = sorted(parse_qsl(query, keep_blank_values=True))
    canonical_query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in pairs)
    names = signed.split(";")
    lines = "".join(
        f"{name}:{' '.join(headers.get(name, b'').decode('latin-1').split())}\n" for name in names
    )
    payload = headers.get("x-amz-content-sha256")
    digest = payload.decode("latin-1") if payload else hashlib.sha256(body).hexdigest()
    return "\n".join((method, uri, canonical_query, lines, signed, digest))
