"""The emulator endpoint: the capacity model served as a DynamoDB-compatible API.

`EmulatorServer` runs it in a background thread; `hotbench emulator serve` in the
foreground. See docs/emulator.md.
"""

from emulator.server.latency import Latency
from emulator.server.runner import EmulatorServer
from emulator.server.service import Service

__all__ = ["EmulatorServer", "Latency", "Service"]
