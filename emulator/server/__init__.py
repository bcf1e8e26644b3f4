"""The emulator endpoint: the capacity model served as a DynamoDB-compatible API.

`EmulatorServer` runs it in a background thread; `hotbench emulator serve` in the
foreground. See docs/emulator.md.
"""

from emulator.native import activate

activate(__name__, __path__)  # before the imports below: they may load compiled modules

from emulator.emulator_options import EmulatorOptions  # noqa: E402
from emulator.server.latency import Latency  # noqa: E402
from emulator.server.service import Service  # noqa: E402
from emulator.server.serving import EmulatorServer  # noqa: E402

__all__ = ["EmulatorOptions", "EmulatorServer", "Latency", "Service"]
