"""`hotbench emulator serve`: the capacity model as a DynamoDB endpoint on loopback.

Point any SDK at the printed URL (any credentials; SigV4 is verified only with
--check-signatures) and it meets the throttling the model predicts for AWS. Ctrl-C stops
it; items live in memory.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from console.commands.params import add_params_argument, params_from
from console.output import UserError

if TYPE_CHECKING:
    from emulator.emulator_options import EmulatorOptions
    from emulator.server import Service


def handle(args: argparse.Namespace, console: Console) -> int:
    from emulator.native import status
    from emulator.server import Latency, Service
    from emulator.server.memory import format_size
    from emulator.server.serving import serve_forever

    if args.scale <= 0:
        raise UserError(f"--scale must be positive, got {args.scale}")
    try:
        latency = Latency.parse(args.latency)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    options = emulator_options(args)
    loaded = options.params
    service = Service(options)
    kept = _keep_data(service, args.data_dir)
    bound = format_size(service.state.memory.limit_bytes)
    if options.max_memory is None:
        bound += " (default: half the machine's memory)"

    def ready(url: str) -> None:
        console.print(
            f"hotbench emulator listening on [bold]{url}[/] "
            f"(scale {args.scale:g}, latency {args.latency}, "
            f"CreateTable -> ACTIVE in {service.state.create_delay_s:g} s)"
        )
        if loaded.path is not None:
            changed = ", ".join(f"{k} {v:g}" for k, v in loaded.changed.items())
            console.print(f"  params: {loaded.path} ({changed or 'no changes'})", highlight=False)
        console.print(
            f"  boto3.client('dynamodb', endpoint_url='{url}', region_name="
            "'us-east-1', aws_access_key_id='x', aws_secret_access_key='x')",
            highlight=False,
            markup=False,
        )
        console.print(
            f"  metrics: {url}/_hotbench/metrics   partitions: "
            f"{url}/_hotbench/partitions?table=NAME",
            highlight=False,
        )
        console.print(f"  emulator: {status()}", highlight=False)
        console.print(
            f"  store: {args.store} (items: {STORE_HELP[args.store]}); memory bound {bound}: "
            f"{url}/_hotbench/memory",
            highlight=False,
        )
        streams = format_size(service.state.stream_budget.limit_bytes)
        console.print(
            f"  streams: records kept up to {streams}"
            f"{'' if options.stream_bytes is not None else ' (default)'}; signatures: "
            f"{SIGNATURES_LINE[options.check_signatures]}",
            highlight=False,
        )
        if kept is None:
            console.print("  Ctrl-C to stop (items are kept in memory only)")
        else:
            console.print(f"  data: {kept}", highlight=False)
            console.print("  Ctrl-C to stop (tables and items are kept in --data-dir)")

    try:
        serve_forever(args.host, args.port, service, latency, ready)
    except OSError as exc:
        raise UserError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror}; choose another --port"
        ) from None
    except KeyboardInterrupt:  # a Ctrl-C before the loop took over the signals
        pass
    console.print("emulator stopped")
    return 0


def _keep_data(service: Service, directory: str | None) -> str | None:
    """--data-dir: load and keep tables and items there (emulator/server/persistence.py);
    the line `serve` prints about it, or None when items live in memory only."""
    if directory is None:
        return None
    from emulator.server.persistence import PersistenceError

    try:
        items = service.persist_to(Path(directory))
    except PersistenceError as exc:
        raise UserError(f"{exc}; choose another --data-dir") from None
    tables = len(service.state.tables)
    return (
        f"{directory} ({tables} tables, {items} items loaded; capacity state starts fresh "
        "on every start)"
    )


STORE_HELP = {
    "full": "whole, read back as written",
    "keys": "keys, index attributes and sizes only; capacity figures unchanged",
}


SIGNATURES_LINE = {
    False: "not checked (--check-signatures to verify them)",
    True: "checked against AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (x / x when unset)",
}


def memory_bound(text: str | None, flag: str = "--max-memory") -> int | None:
    """--max-memory (or another size flag, named in the message) in bytes (None: the
    emulator's default), or a UserError (exit 2)."""
    if text is None:
        return None
    # imported here: it loads the whole endpoint package, which `plan` and `up` need not
    from emulator.server.memory import parse_size

    try:
        return parse_size(text, flag)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def emulator_options(args: argparse.Namespace) -> EmulatorOptions:
    """The emulator's options from the flags that set them (--params, --scale,
    --create-delay, --store, --max-memory; `serve`'s --stream-memory and
    --check-signatures), read and checked once: for `emulator serve` (also as the process
    `up` starts, from EmulatorOptions.argv), the in-process emulator of `run` and `check
    --mode live` (a bad --params file or size is a UserError, exit 2)."""
    from emulator.emulator_options import EmulatorOptions

    return EmulatorOptions(
        params=params_from(args),
        scale=args.scale,
        create_delay_s=getattr(args, "create_delay", None),
        store=args.store,
        max_memory=memory_bound(args.max_memory),
        # Only `serve` has these two: a playbook's tables have no stream, and the workers
        # of `run` and `up` sign with the run's own fixed keys.
        stream_bytes=memory_bound(getattr(args, "stream_memory", None), "--stream-memory"),
        check_signatures=getattr(args, "check_signatures", False),
    )


def add_store_arguments(parser: argparse._ActionsContainer, default: str, note: str = "") -> None:
    """--store and --max-memory, for `emulator serve`, and for the emulator of `run`,
    `check --mode live` and `up --target local` (docs/emulator.md)."""
    parser.add_argument(
        "--store",
        choices=["full", "keys"],
        default=default,
        help=f"what the emulator keeps of each item: full (the whole item) or keys (keys, "
        f"index attributes and sizes: reads answer with those, every capacity figure is "
        f"the same; a few hundred bytes an item) (default {default}){note}",
    )
    parser.add_argument(
        "--max-memory",
        metavar="SIZE",
        default=None,
        help="the emulator's memory bound, e.g. 4G or 1500M: past it writes of new items "
        f"are refused with a ValidationException (default: half the machine's memory){note}",
    )


def add_endpoint_arguments(parser: argparse._ActionsContainer) -> None:
    """--stream-memory and --check-signatures: what `emulator serve` offers beyond the
    store and the bound, as EmulatorOptions.argv writes them for the process `up` starts
    (docs/emulator.md, Streams and Signatures)."""
    parser.add_argument(
        "--stream-memory",
        metavar="SIZE",
        default=None,
        help="what the records of all streams may take, e.g. 64M or 1G: past it the oldest "
        "records are trimmed, as if their 24 hours had passed (default 256M)",
    )
    parser.add_argument(
        "--check-signatures",
        action="store_true",
        help="verify each request's SigV4 signature as DynamoDB does, against "
        "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (x / x when unset): a wrong one is "
        "refused with InvalidSignatureException (default: any credentials are taken)",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "emulator", help="the capacity model as a DynamoDB-compatible endpoint (docs/emulator.md)"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    serve = actions.add_parser("serve", help="serve the DynamoDB API on loopback until Ctrl-C")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any)")
    serve.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply every capacity figure (metrics stay in full-scale units)",
    )
    serve.add_argument(
        "--latency",
        default="none",
        help="added response latency: none, fixed:4ms or normal:4ms,1ms",
    )
    serve.add_argument(
        "--create-delay",
        type=float,
        default=None,
        metavar="SECONDS",
        help="CreateTable -> ACTIVE delay (default: the model's 7.4 s)",
    )
    add_store_arguments(serve, default="full")
    add_endpoint_arguments(serve)
    serve.add_argument(
        "--data-dir",
        metavar="DIR",
        default=None,
        help="keep tables and items in DIR (SQLite) across restarts; capacity state starts "
        "fresh on every start (default: in memory only)",
    )
    add_params_argument(serve)
    serve.set_defaults(handler=handle)
