"""DynamoDB's JSON 1.0 wire protocol as both ends speak it: the names every request and
reply carries. Shared by the endpoint and the load generator, so a client and the
emulator can never disagree on them; the rest of the protocol (error bodies) is the
endpoint's, in `emulator/server/protocol.py`.
"""

from __future__ import annotations

from typing import Final

JSON_CONTENT_TYPE: Final = "application/x-amz-json-1.0"
"""[AWS] the Content-Type of every DynamoDB request and reply."""
TARGET_PREFIX: Final = "DynamoDB_20120810."
"""[AWS] what X-Amz-Target starts with: the API version, then the operation's name."""
STREAMS_TARGET_PREFIX: Final = "DynamoDBStreams_20120810."
"""[AWS] the X-Amz-Target prefix of the DynamoDB Streams API (same endpoint here)."""
