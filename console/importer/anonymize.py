"""`--anonymize`: Contributor Insights' key values replaced by keyed hashes before
anything keeps or prints them (they can be personal data: a customer id, an e-mail).

The hash is HMAC-SHA256 keyed with a salt, over the value's text. The same value gives
the same hash within an import and, with the same salt (`--anonymize-salt` or
HOTBENCH_ANONYMIZE_SALT), across imports, so two snapshots of one table can be set side
by side; without a salt given, a random one is drawn for the run and kept nowhere, so
nobody can test guesses against the hashes. A value that reads as a number becomes
digits (a number attribute stays a number); any other becomes `anon-` and 16 hex
digits (64 bits: collisions are negligible for the keys a report holds). Each key value
is hashed on its own, so a partition key hashes alike in the partition-key rules and in
the partition-and-sort-key rules. Table, index and attribute names are kept.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from console.importer.aws_calls import AwsCalls

SCHEME = "HMAC-SHA256"
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


@dataclass
class KeyHasher:
    salt: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    salt_given: bool = False

    @classmethod
    def from_text(cls, salt: str | None) -> KeyHasher:
        if salt:
            return cls(salt.encode("utf-8"), salt_given=True)
        return cls()

    def __call__(self, value: str) -> str:
        digest = hmac.new(self.salt, value.encode("utf-8"), hashlib.sha256).hexdigest()
        if _NUMBER.match(value):
            return str(int(digest[:15], 16))
        return "anon-" + digest[:16]

    def describe(self) -> str:
        how = "the salt given" if self.salt_given else "a random salt kept nowhere"
        return f"{SCHEME} keyed with {how}"


@dataclass
class Anonymizer:
    """Passes calls to `inner` and hashes the contributor keys of every
    GetInsightRuleReport answer."""

    inner: AwsCalls
    hasher: KeyHasher

    def call(self, service: str, operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
        answer = self.inner.call(service, operation, params)
        if service == "cloudwatch" and operation == "GetInsightRuleReport":
            for contributor in answer.get("Contributors", []):
                contributor["Keys"] = [self.hasher(str(k)) for k in contributor.get("Keys", [])]
        return answer
