"""The coordinator: start a fleet on one run plan, line it up, collect, add up.

It keeps nothing that matters in memory: the plan, the barrier and every worker's counts
are items in the results table, and the result is built from those items alone. Counts
are summed and latency histograms merged (never averages of averages). A worker that
missed the barrier, died, hung, was stopped by its watchdog or op cap, or refused is
named in the notes and the run is labelled partial, but the run still completes. So is
a run stopped early (`stop_when`, e.g. the emulator reached its memory bound): the
workers are told through the `abort` item, and the reason is the run's first note.

Every report is reconciled as it is added (sent = succeeded + throttled + errors +
timeouts, per second, hence per worker, per phase and per run): requests sent without
an outcome, such as a dead worker's in flight, become a labelled `unaccounted` count
with a note, never a silent difference.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from loadgen.live.barrier import coordinator_go
from loadgen.live.fleet import Fleet
from loadgen.live.messages import COMPLETE, PhaseShare, RunPlan, WorkerReport
from loadgen.live.resultstore import ResultStore
from loadgen.live.windows import Slot, Window, phase_times
from loadgen.load.arrivals import Schedule
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.iteration_results import at_second, iteration_totals, reconcile_iterations
from loadgen.results.records import PhaseResult, RunResult

Notify = Callable[[str], None]
"""Where a runner sends its progress messages for the user (a line each)."""
CLEANUP_FAILED = "clean-up failed: "
"""Starts every message about something a run could not remove: a user interface may
hide progress (--quiet), never these."""


@dataclass
class FleetOptions:
    """How long to wait for whom."""

    required: int | None = None
    """Workers that must be ready to GO at the barrier timeout (default: all)."""
    barrier_timeout_s: float = 60.0
    lead_s: float = 2.0
    """T0 = the moment of GO + this: time for every worker to see GO before T0."""
    collect_grace_s: float = 10.0
    """After the workers' own watchdog deadline, how long to wait for final items."""
    stop_grace_s: float = 20.0
    """After a stop (`run_fleet`'s stop_when), how long to wait for final items: a worker
    sees the stop at its next progress write and then waits for its requests in flight."""
    poll_s: float = 0.5
    clock: Callable[[], float] = time.time
    """The wall clock T0 is taken from, one every worker shares (the workers read their
    own, NTP-synced on Fargate): a server's, when the operator's may be off."""


StopCheck = Callable[[], str | None]
"""Asked while a run goes on: a reason to stop it now (e.g. the emulator's memory bound
was reached), or None."""


def run_fleet(
    plan: RunPlan,
    store: ResultStore,
    fleet: Fleet,
    env: dict[str, str],
    options: FleetOptions | None = None,
    notify: Notify | None = None,
    stop_when: StopCheck | None = None,
) -> RunResult:
    """Run `plan` on `fleet` and return the aggregated (possibly partial) result, in the
    units the workers measured (scaled; see loadgen.results.records.to_full_scale). When
    `stop_when` gives a reason, the workers are told to stop (the abort item), the run
    is collected as it stands and labelled partial with that reason."""
    options = options or FleetOptions()
    say = notify or (lambda _msg: None)
    stopped: str | None = None
    collected = False
    store.put_plan(plan)
    try:
        fleet.start(plan.run_id, plan.workers, env)
        now = options.clock
        t0, admitted = coordinator_go(
            store,
            plan.workers,
            options.required or plan.workers,
            options.barrier_timeout_s,
            options.lead_s,
            on_status=lambda n, m: say(f"{n} of {m} workers ready"),
            clock=now,
            gone=lambda: fleet_gone(fleet),
        )
        say(f"GO: {len(admitted)} of {plan.workers} workers, T0 in {t0 - now():.1f} s")
        fleet.released(t0, admitted)
        slots = {(w, window.index) for w in admitted for window in plan.windows}
        collect_by = t0 + plan.duration_s + plan.drain_s + options.collect_grace_s
        while now() < collect_by:
            if set(store.slot_reports("final")) >= slots or fleet.running() == 0:
                break
            if stopped is None and stop_when is not None:
                stopped = stop_when()
                if stopped is not None:
                    at = now() - t0
                    say(f"stopping the run at t={at:.0f} s: {stopped}")
                    stopped = f"stopped at t={at:.1f} s: {stopped}"
                    store.put_abort(
                        f"the run was stopped at t={at:.1f} s (its first note says why)"
                    )
                    collect_by = min(collect_by, now() + options.stop_grace_s)
            time.sleep(options.poll_s)
        finals: Reports = store.slot_reports("final")
        progress: Reports = store.slot_reports("progress")
        notes = fleet.notes()  # before the stop: its own SIGTERMs are no worker's fault
        collected = set(finals) >= slots
    finally:
        # workers still waiting or measuring leave (a fleet that cannot kill its workers,
        # such as Lambda invocations, relies on it; the others stop sooner)
        told = (
            None
            if collected
            else tell_to_stop(store, "the coordinator stopped before every worker reported")
        )
        stop_problem = stop_fleet(fleet, say)
    notes += [p for p in (told, stop_problem) if p]
    run = aggregate(plan, t0, admitted, finals, progress, notes)
    if stopped is not None:
        run.notes.insert(0, stopped)
        run.partial = True
    return run


def fleet_gone(fleet: Fleet) -> str | None:
    """Why the barrier can never fill: every worker has already stopped (a Fargate task
    that could not pull its image, a process that crashed at start), with each one's
    reasons from the fleet's notes; None while any still starts or runs."""
    if fleet.running() > 0:
        return None
    reasons = "; ".join(fleet.notes()) or "no reason given"
    return f"every worker stopped before the start barrier: {reasons}"


def tell_to_stop(store: ResultStore, why: str) -> str | None:
    """Write the abort item unless one is there; what went wrong instead, as a note (an
    interrupted or failed run is being left: this must not hide why)."""
    try:
        if store.get_abort() is None:
            store.put_abort(why)
    except Exception as exc:  # returned as a note; the run's own error stands
        return f"could not tell the workers to stop ({type(exc).__name__}: {exc})"
    return None


def stop_fleet(fleet: Fleet, say: Notify) -> str | None:
    """Stop every worker; a failure is said at once (also when the run itself failed) and
    returned as a note naming what may still run and the command that stops it."""
    try:
        fleet.stop("hotbench run finished or aborted")
        return None
    except Exception as exc:  # reported below with what is left; never swallowed
        left = "; ".join(f"{what}: {command}" for what, command in fleet.leftovers())
        message = (
            f"{CLEANUP_FAILED}could not stop the workers ({type(exc).__name__}: {exc}); "
            f"still running, stop with: {left or 'nothing known to be running'}"
        )
        say(message)
        return message


def _offered_until(
    plan: RunPlan, worker: int, run_t: float, reported: list[PhaseShare], window: Window
) -> list[int]:
    """This worker's share of each phase due before run time `run_t` in `window`; a
    phase of users (a mix or scenario) has no schedule: what its last report says it
    sent."""
    out = []
    offset = 0.0
    for i, phase in enumerate(plan.playbook.load.phases):
        if phase.kind.engine == "iterations":
            out.append(reported[i].offered if i < len(reported) else 0)
            offset += phase.duration_s
            continue
        times = phase_times(phase, offset, plan.scale, worker, plan.workers, window)
        out.append(sum(1 for t in times if offset + t <= run_t))
        offset += phase.duration_s
    return out


Reports = Mapping[int, WorkerReport] | Mapping[Slot, WorkerReport]
"""Reports by worker (an unsplit run: its window 0) or by (worker, window)."""


def _by_slot(reports: Reports) -> dict[Slot, WorkerReport]:
    return {(k if isinstance(k, tuple) else (k, 0)): r for k, r in reports.items()}


def aggregate(
    plan: RunPlan,
    t0: float,
    admitted: list[int],
    finals: Reports,
    progress: Reports,
    notes: list[str] | None = None,
) -> RunResult:
    """One RunResult from the workers' items: sums of counts, merged histograms. A split
    run's windows (loadgen.live.windows) are added up as the workers are: each reports
    for itself, and a lost window is labelled as a lost worker is."""
    run = RunResult(
        plan.table, plan.repeat, plan.duration_s, workers=plan.workers, notes=list(notes or [])
    )
    phases = plan.playbook.load.phases
    windows = plan.windows
    final_by, progress_by = _by_slot(finals), _by_slot(progress)
    offered = [0] * len(phases)
    first: list[float | None] = [None] * len(phases)
    latency = LatencyHistogram()
    for w in range(plan.workers):
        if w not in admitted:
            run.notes.append(f"worker {w} missed the start barrier: its share was not offered")
            continue
        for window in windows:
            report = _slot_report(plan, t0, w, window, final_by, progress_by, run)
            if report is None:
                continue
            _add_report(run, report, offered, first, latency)
    if len(admitted) < plan.workers or any(n.startswith("worker") for n in run.notes):
        run.partial = True
    _phases(plan, run, offered, first)
    run.latency = latency
    return run


def _slot_report(
    plan: RunPlan,
    t0: float,
    w: int,
    window: Window,
    finals: dict[Slot, WorkerReport],
    progress: dict[Slot, WorkerReport],
    run: RunResult,
) -> WorkerReport | None:
    """The report of worker `w`'s `window`: its final one, else its last progress as a
    lost report (offered up to when it was written), else None (noted)."""
    who = f"worker {w}" + (f" window {window.index}" if len(plan.windows) > 1 else "")
    slot = (w, window.index)
    report = finals.get(slot)
    if report is None:
        report = progress.get(slot)
        if report is None:
            run.notes.append(
                f"{who}: no report at all (died before its first progress item, or never "
                "started); its share is missing"
            )
            return None
        at = report.written_at - t0
        run.notes.append(
            f"{who}: no final report (died or hung); counted up to its "
            f"last progress item at t={at:.1f} s"
        )
        phases = plan.playbook.load.phases
        until = _offered_until(plan, w, at, report.phases, window)
        shares = [
            PhaseShare(p.name, p.kind.iterations.label, 0.0, p.duration_s, offered=n)
            for p, n in zip(phases, until, strict=True)
        ]
        return WorkerReport(
            w,
            "lost",
            report.seconds,
            shares,
            report.first_throttle_s,
            report.latency,
            iterations=report.iterations,
            window=window.index,
        )
    if report.status != COMPLETE:
        where = f": {report.snapshot}" if report.snapshot else ""
        why = "; ".join(report.notes) or report.status
        run.notes.append(f"{who}: {report.status} ({why}){where}")
    return report


def _add_report(
    run: RunResult,
    report: WorkerReport,
    offered: list[int],
    first: list[float | None],
    latency: LatencyHistogram,
) -> None:
    """Add one worker's (or one window's) report to the run: counts, offered shares,
    first throttles, the histogram."""
    if report.status != COMPLETE:
        run.partial = True
    _reconcile_worker(run, report)
    for t, counts in report.seconds.items():
        run.second(t).add(counts)
    for t, its in report.iterations.items():
        at_second(run.iterations, t).add(its)
    latency.merge(report.latency)
    for i, share in enumerate(report.phases[: len(offered)]):
        offered[i] += share.offered
        if share.first_throttle_s is not None:
            first[i] = (
                share.first_throttle_s
                if first[i] is None
                else min(first[i] or 0.0, share.first_throttle_s)
            )
    if report.first_throttle_s is not None and (
        run.first_throttle_s is None or report.first_throttle_s < run.first_throttle_s
    ):
        run.first_throttle_s = report.first_throttle_s


def _phases(plan: RunPlan, run: RunResult, offered: list[int], first: list[float | None]) -> None:
    """Each phase's result from the added counts, the schedule and the notes."""
    phases = plan.playbook.load.phases
    offset = 0.0
    for i, phase in enumerate(phases):
        counts = run.totals_between(offset, phase.duration_s)
        run.phases.append(
            PhaseResult(
                phase.name,
                phase.kind.iterations.label,
                offset,
                phase.duration_s,
                offered=offered[i],
                counts=counts,
                first_throttle_s=first[i],
                iterations=iteration_totals(run.iterations, offset, phase.duration_s)
                if phase.kind.engine == "iterations"
                else None,
            )
        )
        offset += phase.duration_s
    # a phase of users schedules no requests: what its workers sent is its whole
    full = sum(
        offered[i] if p.kind.engine == "iterations" else Schedule.for_phase(p, plan.scale).total
        for i, p in enumerate(phases)
    )
    run.scheduled = full
    if run.partial:
        run.notes.append(
            f"partial: the reporting workers account for {sum(offered):,} of "
            f"{full:,} scheduled requests; rates are over what they offered"
        )
    run.notes += [f"not reconciled: {p}" for p in run.reconciliation_problems()]


def _reconcile_worker(run: RunResult, report: WorkerReport) -> None:
    """Check sent = succeeded + throttled + errors + timeouts for one worker's report;
    any gap becomes a labelled `unaccounted` count with a note naming the worker."""
    w = report.worker
    gap = report.reconcile()
    if gap:
        why = (
            "in flight when its last progress item was written; the worker died, so "
            "their outcome is unknown"
            if report.status == "lost"
            else f"its {report.status} report has no outcome for them"
        )
        run.notes.append(f"worker {w}: {gap:,} sent requests unaccounted ({why})")
    lost = reconcile_iterations(report.iterations)
    if lost:
        run.notes.append(
            f"worker {w}: {lost:,} started iterations unaccounted (running when its last "
            "report was written)"
        )
    if report.progress_write_failures:
        # Not a "worker ..." note: those label the run partial, and this run is not.
        run.notes.append(
            f"progress: {report.progress_write_failures} write(s) of worker {w} failed; "
            "its final counts are complete"
        )
