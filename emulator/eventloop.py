"""The event loop every hotbench process runs: uvloop's when installed, asyncio's
otherwise. uvloop roughly halves the HTTP stack's cost per request (see
benchmarks/endpoint.py), for the endpoint and the load generator's client alike.

Outside `emulator/server/`, whose package import pulls in the whole endpoint: a load
generator worker needs the loop, not the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new loop (uvloop's if installed), for `asyncio.Runner` or a thread of its own."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to completion on a new loop (uvloop's if installed), as `asyncio.run`."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(coro)
