"""Tables per region and account, as DynamoDB keeps them: a table created in us-east-1 is
not found from eu-west-1, and its ARN names its region and account.

A request's region is the one its SigV4 credential scope names (`Authorization:
AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request, ...`), which
every SDK signs with the region it was given. Its account is the access key id when that
is 12 digits (as LocalStack takes it, so a test can use two accounts with two keys),
otherwise the emulator's default account. A request with no credentials reaches the
default region and account (`Service(region=..., account=...)`, us-east-1 and
000000000000).
"""

from __future__ import annotations

import re
from typing import Final

from emulator.server.emulator_state import EmulatorState
from emulator.server.protocol import CORAL_SERVICE, DynamoError

MAX_NAMESPACES: Final = 64
"""Regions and accounts one emulator keeps at most (each has its own model and metrics):
a client inventing a region per request cannot grow the server without bound."""
_REGION: Final = re.compile(r"[a-z0-9-]{1,32}")
_ACCOUNT: Final = re.compile(r"\d{12}")
_CREDENTIAL: Final = b"Credential="
SCOPE_CACHE: Final = 1024


class Regions:
    """Each account's and region's state, the default one first, made at first use."""

    def __init__(self, default: EmulatorState) -> None:
        self.default = default
        self.states: dict[tuple[str, str], EmulatorState] = {
            (default.account, default.region): default
        }
        self._scopes: dict[bytes, EmulatorState] = {}
        """The state of each Authorization header's start up to its credential scope's
        end (AKID/date/region/service/aws4_request,): found with one slice and one look-up."""
        self._last: tuple[bytes, EmulatorState] = (b"\x00never", default)
        """The last prefix seen and its state (the common case: one client, one region)."""

    def of(self, authorization: bytes) -> EmulatorState:
        """The state a request signed with `authorization` (the header's bytes) reaches.

        The credential scope (up to the comma after it) is the same in every request a
        client signs for one region on one day, so the last one seen is tried first with
        one `startswith` (a per-request cost of ~0.1 us, against ~2 us for finding and
        slicing the scope: measured compiled, with benchmarks/endpoint.py's header)."""
        last = self._last
        if authorization.startswith(last[0]):
            return last[1]
        start = authorization.find(_CREDENTIAL)
        if start < 0:
            return self.default
        end = authorization.find(b",", start)
        if end < 0:
            return self.default
        prefix = authorization[: end + 1]
        found = self._scopes.get(prefix)
        if found is None:
            scope = authorization[start + len(_CREDENTIAL) : end].decode("latin-1")
            found = self._resolve(scope)
            if len(self._scopes) >= SCOPE_CACHE:
                self._scopes.clear()
            self._scopes[prefix] = found
        self._last = (prefix, found)
        return found

    def _resolve(self, scope: str) -> EmulatorState:
        parts = scope.strip().split("/")
        if len(parts) != 5 or _REGION.fullmatch(parts[2]) is None:
            return self.default  # not a scope this emulator can read: the default region
        key, region = parts[0], parts[2]
        account = key if _ACCOUNT.fullmatch(key) else self.default.account
        return self.named(region, account)

    def named(self, region: str, account: str | None = None) -> EmulatorState:
        """The state of `region` (and `account`, default the emulator's), made if new."""
        ident = (account or self.default.account, region)
        found = self.states.get(ident)
        if found is not None:
            return found
        with self.default.lock:
            found = self.states.get(ident)
            if found is None:
                if len(self.states) >= MAX_NAMESPACES:
                    raise DynamoError(
                        "UnrecognizedClientException",
                        f"The hotbench emulator keeps at most {MAX_NAMESPACES} regions and "
                        "accounts; restart it, or use fewer",
                        CORAL_SERVICE,
                    )
                found = self.default.sibling(region, ident[0])
                self.states[ident] = found
        return found

    def skip(self, seconds: float) -> None:
        """Let `seconds` of emulator time pass in every region (one clock for all)."""
        with self.default.lock:
            self.default.time.offset += seconds
            for state in list(self.states.values()):
                state.tick()
