"""Starting and stopping the emulator: in a background thread (tests, the console) or in
the foreground (`hotbench emulator serve`).

The thread owns its own event loop; the service's lock keeps the model consistent when
the Python API (metrics, skip) is called from another thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from emulator.emulator_options import EmulatorOptions
from emulator.eventloop import new_event_loop
from emulator.model import CapacityModel
from emulator.server.http import IDLE_TIMEOUT_S, HttpServer
from emulator.server.latency import Latency
from emulator.server.routes import make_handler
from emulator.server.service import Service
from emulator.server.signatures import SignatureCheck

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


async def _start(
    service: Service,
    latency: Latency,
    host: str,
    port: int,
    idle_timeout_s: float | None = IDLE_TIMEOUT_S,
) -> tuple[asyncio.Server, HttpServer]:
    http = HttpServer(
        make_handler(service, latency),
        idle_timeout_s=idle_timeout_s,
        keep_headers=service.signatures is not None,
    )
    loop = asyncio.get_running_loop()
    server = await loop.create_server(http, host, port, reuse_address=True, backlog=1024)
    return server, http


async def _stop(server: asyncio.Server, http: HttpServer) -> None:
    server.close()
    http.close_all()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(server.wait_closed(), 2.0)


class EmulatorServer:
    """The emulator on loopback in a background thread.

    with EmulatorServer(EmulatorOptions(scale=0.1, create_delay_s=0)) as emu:
        boto3.client("dynamodb", endpoint_url=emu.endpoint_url, ...)
    """

    def __init__(
        self,
        options: EmulatorOptions | None = None,
        host: str = DEFAULT_HOST,
        port: int = 0,
        latency: str | Latency = "none",
        clock: Callable[[], float] = time.monotonic,
        data_dir: Path | None = None,
        signatures: SignatureCheck | None = None,
        idle_timeout_s: float | None = IDLE_TIMEOUT_S,
    ) -> None:
        self.host = host
        self.port = port
        self.latency = latency if isinstance(latency, Latency) else Latency.parse(latency)
        self.idle_timeout_s = idle_timeout_s
        """Seconds an idle connection stays open (http.IDLE_TIMEOUT_S; None: for ever)."""
        self.service = Service(options, clock=clock, signatures=signatures)
        # A transaction is in flight while its reply travels (emulator/server/inflight.py).
        self.service.state.transactions.window_s = self.latency.mean_s
        if data_dir is not None:  # tables and items kept there (persistence.py)
            self.service.persist_to(data_dir)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._http: HttpServer | None = None

    # lifecycle -------------------------------------------------------------------------
    def start(self) -> EmulatorServer:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server, self._http = loop.run_until_complete(
                    _start(self.service, self.latency, self.host, self.port, self.idle_timeout_s)
                )
                sockets = self._server.sockets
                self.port = sockets[0].getsockname()[1]
            except BaseException as exc:  # handed to the starting thread
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(_stop(self._server, self._http))
                loop.close()

        self._thread = threading.Thread(target=run, name="hotbench-emulator", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread (items are lost with the process)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        self._loop = self._thread = None

    def __enter__(self) -> EmulatorServer:
        return self.start() if self._thread is None else self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # API -------------------------------------------------------------------------------
    @property
    def endpoint_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def model(self) -> CapacityModel:
        """The capacity model (hold `service.state.lock` while touching it from outside)."""
        return self.service.state.model

    def metrics(self, seconds: int = 60, table: str | None = None) -> dict[str, Any]:
        """What GET /_hotbench/metrics returns."""
        return self.service.metrics_view(seconds, table)

    def memory(self) -> dict[str, Any]:
        """What GET /_hotbench/memory returns."""
        return self.service.memory_view()

    def partitions(self, table: str) -> dict[str, Any]:
        """What GET /_hotbench/partitions?table=T returns."""
        return self.service.partitions_view(table)

    def skip(self, seconds: float) -> None:
        """Advance the emulator's clock by `seconds` at once (the 10-minute pauses
        between badOnDemand repeats); over HTTP, POST /_hotbench/skip?seconds=S."""
        self.service.skip(seconds)


def serve_forever(
    host: str,
    port: int,
    service: Service,
    latency: Latency,
    on_ready: Callable[[str], None],
    idle_timeout_s: float | None = IDLE_TIMEOUT_S,
) -> None:
    """Run in the foreground until Ctrl-C or SIGTERM, then stop cleanly and return.

    The signals are handled by the loop itself (`add_signal_handler`): uvloop does not
    run Python-level SIGINT handlers while it waits, so asyncio's default Ctrl-C
    handling would never fire."""

    service.state.transactions.window_s = latency.mean_s  # see emulator/server/inflight.py

    async def main() -> None:
        server, http = await _start(service, latency, host, port, idle_timeout_s)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        bound = server.sockets[0].getsockname()
        on_ready(f"http://{bound[0]}:{bound[1]}")
        try:
            await stop.wait()
        finally:
            await _stop(server, http)

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())
