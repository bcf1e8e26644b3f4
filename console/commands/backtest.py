"""`hotbench backtest PLAYBOOK [--minutes A:B] [--json FILE]`: replay an imported playbook
in the simulation and set it beside what the account recorded, minute by minute
(docs/import.md, "Backtest"). The comparison is console/importer/minute_comparison.py; this runs,
prints and writes."""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from console import exitcodes
from console.commands.params import add_params_argument, params_from
from console.output import UserError, write_json
from loadgen.format.playbook import Playbook


def _minutes(text: str) -> tuple[int, int]:
    try:
        first, last = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FIRST:LAST minutes (e.g. 690:750: 11:30 to 12:30 of a day "
            "from midnight)"
        ) from None
    if not 0 <= first < last:
        raise argparse.ArgumentTypeError(f"{text!r}: FIRST must be at least 0 and below LAST")
    return first, last


def _chart(
    console: Console, labels: list[str], recorded: list[float], simulated: list[float]
) -> None:
    """Throttled requests per minute, recorded and simulated, drawn in the terminal with
    plotext (installed with the console's extra, `.[tui]`); without it, said in a line."""
    try:
        import plotext as plt
    except ImportError:
        console.print("(no chart: plotext is installed with hotbench[tui])", highlight=False)
        return
    plt.clear_figure()
    plt.plotsize(min(console.width, 100), 15)
    plt.theme("clear")
    xs = list(range(len(recorded)))
    plt.plot(xs, recorded, label="recorded")
    plt.plot(xs, simulated, label="simulated")
    step = max(1, len(labels) // 6)
    plt.xticks(xs[::step], labels[::step])
    plt.title("throttled requests per minute")
    console.print(Text.from_ansi(plt.build()))


def handle(args: argparse.Namespace, console: Console) -> int:
    from console.commands.simulate import simulate_with_progress
    from console.importer.minute_comparison import (
        Backtest,
        as_result,
        recorded_minutes,
        simulated_minutes,
    )
    from console.importer.playbook_draft import minutes_of, starting_at
    from console.importer.recorded import Recorded, capacity_at
    from loadgen.format.kinds.rate_curve import curve_minutes
    from loadgen.format.playbook import load_playbook

    path = Path(args.playbook)
    playbook = load_playbook(path)
    recorded_path = Path(args.recorded or path.with_name(f"{path.stem}.recorded.json"))
    try:
        recording = Recorded.from_json(
            json.loads(recorded_path.read_text(encoding="utf-8")), str(recorded_path)
        )
    except FileNotFoundError:
        raise UserError(
            f"no recording {recorded_path}: `hotbench import ... --out {path}` writes it beside "
            "the playbook; or give it with --recorded FILE"
        ) from None
    except (OSError, json.JSONDecodeError, ValueError) as exc:
        raise UserError(f"cannot read the recording {recorded_path}: {exc}") from None
    if recording.what_if != "as recorded":
        raise UserError(
            f"{path} is a launch what-if ({recording.what_if}): no account recorded it; "
            "backtest the playbook imported without --scale and --peak"
        )
    total = curve_minutes(playbook.load.phases)
    first, last = args.minutes or (0, total)
    last = min(last, total)
    try:
        cut = minutes_of(playbook, first, last)
    except ValueError as exc:
        raise UserError(f"{path}: {exc}") from None
    capacity = capacity_at(recording, first) if first > 0 else {}
    if capacity:
        # Later minutes start where the account was (auto scaling had moved it).
        cut = starting_at(cut, capacity)
    result = simulate_with_progress(cut, console, args.quiet, params_from(args).params)
    (run,) = result.runs[:1]
    test = Backtest(
        first, recorded_minutes(recording, first, last), simulated_minutes(run, last - first)
    )

    start = datetime.fromisoformat(recording.start)
    labels = [f"{start + timedelta(minutes=first + m):%H:%M}" for m in range(last - first)]
    table = Table(title=f"{recording.table}: recorded / simulated", title_justify="left")
    for column in ("from", "requests/s", "RCU/s", "WCU/s", "throttled", *test.reasons()):
        table.add_column(column, justify="right" if column != "from" else "left")
    for row in test.rows(labels):
        table.add_row(*row)
    console.print(table)
    _chart(console, labels, list(test.recorded.throttled), list(test.simulated.throttled))
    console.print(Text(test.agreement()), highlight=False, soft_wrap=True)
    if args.json:
        document = as_result(recording, cut, first, last).to_json()
        playbook_file = path
        if (first, last) != (0, total):
            playbook_file = Path(args.json).with_suffix(".playbook.yaml")
            _write_cut(playbook_file, cut)
        document["reference"] = {
            "id": f"{recording.table}-recorded-{first}-{last}",
            "playbook_file": str(playbook_file),
            "source": f"hotbench import, {recording.source}, minutes {first}-{last}",
        }
        write_json(args.json, document)
        console.print(
            Text(f"wrote {args.json}: the recording as a result; hotbench calibrate {args.json}"),
            highlight=False,
            soft_wrap=True,
        )
    return exitcodes.OK


def _write_cut(target: Path, playbook: Playbook) -> None:
    """The replayed minutes as their own playbook file, curves inline (calibrate
    simulates the playbook a result names)."""
    import yaml

    document = playbook.model_dump(mode="json", exclude_defaults=True)
    target.write_text(yaml.safe_dump(document, sort_keys=False, width=100), encoding="utf-8")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "backtest",
        help="replay an imported playbook in the simulation beside what the account recorded, "
        "minute by minute (docs/import.md)",
    )
    parser.add_argument("playbook", help="a playbook written by `hotbench import --out`")
    parser.add_argument(
        "--recorded",
        metavar="FILE",
        help="the recording (default: PLAYBOOK's .recorded.json beside it)",
    )
    parser.add_argument(
        "--minutes",
        type=_minutes,
        metavar="FIRST:LAST",
        help="replay only these minutes of the window (e.g. 690:750); the simulation runs "
        "a few thousand requests a second, so a busy day is long",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the recording as a result (hotbench.result/1) that hotbench calibrate "
        "fits the model to",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_params_argument(parser)
    parser.set_defaults(handler=handle)
