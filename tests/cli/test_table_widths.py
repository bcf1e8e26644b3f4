"""The CLI's tables in a real terminal's width, not a pipe's: at 80 and 100 columns the
run, simulate, check, tally, compare, advise and plan outputs fit, and keep each table
name and each throttle rate whole (console.render.fitted_tables moves or folds what does not fit).

Each output is printed by the command's own code onto a rich Console of that width with
`force_terminal` (what a terminal gives; a pipe gets 200 columns), then kept as a
snapshot (`--snapshot-update` after a deliberate change), so a change to what is drawn
shows in review as text."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from console.cli import main
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.records import Counts, PlaybookResult, RunResult
from tests.conftest import BUILT_IN_SIMULATIONS, PLAYBOOKS, ROOT

WIDTHS = (80, 100)


class Terminal:
    """A terminal of `width` columns that the CLI's `main` prints onto."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.console = Console(
            width=width, file=io.StringIO(), force_terminal=True, color_system=None
        )

    def text(self) -> str:
        """What was printed, trailing blanks dropped and the wall time (the one figure
        that differs run to run) shown as `N.N`."""
        value = self.console.file.getvalue()  # type: ignore[attr-defined]
        value = re.sub(r"in [\d.,]+ s of wall time", "in N.N s of wall time", value)
        return "\n".join(line.rstrip() for line in value.splitlines()) + "\n"


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}cols")
def terminal(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Terminal:
    term = Terminal(request.param)
    monkeypatch.setattr("console.cli.Console", lambda *args, **kwargs: term.console)
    return term


def _fits(text: str, width: int) -> None:
    """No line wider than the terminal, no cell cut, and every table's right edge drawn
    (rich crops a table wider than the console at its width, edge and all)."""
    wide = [line for line in text.splitlines() if len(line) > width]
    assert not wide, f"{len(wide)} line(s) wider than {width}: {wide[:2]}"
    assert "…" not in text  # rich's mark of a cut cell
    for line in text.splitlines():
        if line and line[0] in "┏┃┡│└":
            assert line[-1] in "┓┃┩│┘", f"a table cut at the edge: {line!r}"


def _whole(text: str, result: PlaybookResult) -> None:
    """Every run's table name and throttle rate appear whole on one line of the first
    results table (the one with the `rate` column)."""
    for run in result.runs:
        rate = f"{run.totals().throttled / max(1, run.offered) * 100:.1f} %"
        assert any(
            re.search(rf"│ {re.escape(run.table)}\b", line) and rate in line
            for line in text.splitlines()
        ), f"{run.table} #{run.repeat}: its name and {rate} are not on one line"


def _live(simulated: PlaybookResult) -> PlaybookResult:
    """The simulated runs as a live run reports them: sent, errors, timeouts, late and
    client-side latency, the columns only a live table has."""
    runs = []
    for i, run in enumerate(simulated.runs):
        seconds = {}
        for t, counts in run.seconds.items():
            live = Counts()
            live.add(counts)
            live.sent = counts.succeeded + counts.throttled
            seconds[t] = live
        seconds[0].late += 10 * i
        latency = LatencyHistogram()
        for ms in (1, 2, 2, 3, 40 + i):
            latency.record(ms / 1000)
        runs.append(
            RunResult(
                run.table,
                run.repeat,
                run.duration_s,
                seconds=seconds,
                phases=run.phases,
                first_throttle_s=run.first_throttle_s,
                workers=2,
                latency=latency,
            )
        )
    result = PlaybookResult(simulated.playbook, "run", 0.1, runs=runs, target="local")
    result.wall_s = 123.4
    return result


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")
def test_simulate(terminal: Terminal, snapshot: object, built_in_simulation: Callable) -> None:
    assert main(["simulate", str(PLAYBOOKS / "hot-partition.yaml"), "--quiet"]) == 0
    text = terminal.text()
    _fits(text, terminal.width)
    _whole(text, built_in_simulation("hot-partition"))
    assert text == snapshot


@BUILT_IN_SIMULATIONS
def test_run(terminal: Terminal, snapshot: object, built_in_simulation: Callable) -> None:
    from console.commands.run import exit_code
    from console.render.results_table import report_result

    live = _live(built_in_simulation("hot-partition"))
    report_result(live, None, terminal.console)  # what `hotbench run` prints
    assert exit_code(live)[0] == 0
    text = terminal.text()
    _fits(text, terminal.width)
    _whole(text, live)
    for column in ("sent", "late", "p99"):
        assert column in text
    assert text == snapshot


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")
def test_check(terminal: Terminal, snapshot: object, built_in_simulation: Callable) -> None:
    code = main(["check", str(PLAYBOOKS / "write-sharding.yaml"), "--quiet"])
    assert code == 0
    text = terminal.text()
    _fits(text, terminal.width)
    _whole(text, built_in_simulation("write-sharding"))
    assert "PASSED" in text
    assert text == snapshot


def test_tally(terminal: Terminal, snapshot: object) -> None:
    """M1's tally: a label longer than its column goes on over a second line, so
    goodGsi is never cut to `good…`."""
    from console.render.workflow_output import print_tally
    from console.workflow.run_cost import tally_state
    from tests.tui.fixed_m1 import NOW, m1_state

    tally = tally_state(m1_state(), None, now=NOW)
    long = tally.lines[0].model_copy(update={"what": "writes, goodGsi#1 load, tables and GSIs"})
    print_tally(tally.model_copy(update={"lines": [long, *tally.lines[1:]]}), terminal.console)
    text = terminal.text()
    _fits(text, terminal.width)
    assert "goodGsi#1" in text
    assert text == snapshot


@BUILT_IN_SIMULATIONS
def test_compare(
    terminal: Terminal,
    snapshot: object,
    built_in_simulation: Callable,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    (tmp_path / "simulated.json").write_text(
        json.dumps(built_in_simulation("hot-partition").to_json())
    )
    shutil.copy(ROOT / "docs" / "reference-results" / "m1-hot-partition.json", tmp_path)
    monkeypatch.chdir(tmp_path)  # the titles name the files: the same names every time
    main(["compare", "m1-hot-partition.json", "simulated.json"])
    text = terminal.text()
    _fits(text, terminal.width)
    assert re.search(r"│ bad #1 .* throttle_rate .* 54\.8 %", text)  # run, figure, rate
    assert text == snapshot


def test_advise(terminal: Terminal, snapshot: object) -> None:
    assert main(["advise", str(PLAYBOOKS / "hot-partition.yaml")]) == 0
    text = terminal.text()
    _fits(text, terminal.width)
    assert "\n      4,000 WCU/s" in text or terminal.width > 80  # continued, indented
    assert text == snapshot


def test_plan(terminal: Terminal, snapshot: object, tmp_path: Path) -> None:
    code = main(["plan", str(PLAYBOOKS / "hot-partition.yaml"), "--runs-dir", str(tmp_path)])
    assert code == 0
    text = terminal.text()
    _fits(text, terminal.width)
    for variant in ("bad", "good", "goodGsi", "badOnDemand", "byWarehouseShelf"):
        assert re.search(rf"│ {variant}\b|\b{variant}\b", text)
    assert text == snapshot


def test_a_title_longer_than_its_table_stays_on_one_line(
    terminal: Terminal, tmp_path: Path
) -> None:
    """smoke's two tables make a table narrower than its title, which wrapped over it."""
    assert main(["plan", str(PLAYBOOKS / "smoke.yaml"), "--runs-dir", str(tmp_path)]) == 0
    text = terminal.text()
    _fits(text, terminal.width)
    assert "smoke: plan on local (tables <run-id>-<variant>)" in text.splitlines()


def test_runs_keeps_each_run_id_whole(terminal: Terminal, tmp_path: Path) -> None:
    """`runs` at 80 columns cut every id to `hb-12031…`, the one thing each command takes."""
    from datetime import UTC, datetime

    from console.run.state import RunState, StateStore, Status, Step

    folder = tmp_path / "a-runs-folder-whose-path-is-longer-than-the-table-is-wide"
    store = StateStore(folder)
    ids = ["hb-1201090000-0001", "hb-1201090000-0002"]
    for run_id in ids:
        state = RunState(
            run_id=run_id,
            target="local",
            region="us-east-1",
            playbook_path=str(PLAYBOOKS / "hot-partition.yaml"),
            playbook_name="hot-partition",
        )
        record = state.record(Step.RUN)
        record.status, record.error = Status.FAILED, "interrupted"
        record.started_at = datetime.now(UTC)
        store.save(state)
    assert main(["runs", "--runs-dir", str(folder)]) == 0
    text = terminal.text()
    _fits(text, terminal.width)
    for run_id in ids:
        whole = re.compile(rf"│ {run_id} +│")  # padded when the title is wider than the cells
        assert any(whole.search(line) and "run interrupted" in line for line in text.splitlines())
