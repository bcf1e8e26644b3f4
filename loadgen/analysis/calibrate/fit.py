"""Fitting the capacity model's parameters to result files.

The distance is every figure a result carries, each as (simulated - measured) / its
tolerance, squared and summed over all results, plus a weak prior that keeps each
parameter near its current value (half its value is one prior standard deviation). The
prior makes the problem well-posed: a parameter no figure responds to stays where it was
instead of wandering, and the ratio of its fitted uncertainty to its prior width says
whether the data constrain it.

Steps, and why:
1. a screen: each parameter alone at its value / 4 and x 4 (within bounds). The figures
   of a simulation are step functions of time parameters (the model acts once a second,
   the simulation in 50 ms ticks), flat over wide ranges (a GSI backlog longer than the
   run changes nothing): a local derivative at the current value can be zero where a
   larger move matters, so the screen looks wide. It finds which results each parameter
   moves (only those are simulated again), gives a three-point profile, and a start;
2. a bounded fit, `scipy.optimize.minimize(method="Powell")` in log space over the
   screened range of each parameter the screen found constrained: derivative-free,
   because the figures are step functions and a gradient method sees zero slopes; its
   bounded line searches cost tens of simulations where differential evolution costs
   hundreds;
3. uncertainties from the Jacobian at the fit (J^T J with the prior rows, inverted): a
   parameter whose uncertainty stays above half its prior width is flagged as not
   constrained and left at its prior;
4. leave one result out: the fit linearised at the solution and re-solved without that
   result's rows, then that result *simulated* under those parameters: how well the
   others predict it.

What it costs: the search simulates each result's tables one at a time (a `Part`:
only the tables with figures, only when a parameter it reads and the screen saw move it
changes), each at the coarsest tick that reproduces its figures at the prior (M3's
buckets at 0.5 s, ten times fewer ticks); the figures reported are always the whole
playbook at the simulation's own 0.05 s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.optimize import minimize

from emulator.native import compiled
from emulator.params import DEFAULT_PARAMS, CapacityParams, ParamInfo, settable
from loadgen.analysis.calibrate.measured import MeasuredResult
from loadgen.analysis.figures import MISSING_RESIDUAL, Figure, Tolerance, by_key, residual
from loadgen.format.playbook import Playbook
from loadgen.simulation.simulate import TICK_S, simulate

PRIOR_WIDTH = 0.5
"""One prior standard deviation, as a fraction of the parameter's current value."""
PROBE_FACTOR = 4.0
CONSTRAINED_RATIO = 0.5
"""Fitted uncertainty / prior width below which the data constrain a parameter."""
STEP = 0.1
"""Finite-difference step, as a fraction of the prior width."""


class CalibrationError(ValueError):
    """Options that cannot be calibrated with (an unknown or integer parameter)."""


@dataclass(frozen=True)
class CalibrationOptions:
    fit: tuple[str, ...] = ()
    """Parameters to fit; empty: every parameter tagged [fit] in emulator/params.py."""
    prior: CapacityParams = DEFAULT_PARAMS
    """Where the fit starts and what the prior centres on (a --params file, or the
    defaults)."""
    max_evaluations: int = 60
    """Function evaluations of the least-squares fit (each one simulates the results
    the fitted parameters move, and its Jacobian one more per parameter)."""
    leave_one_out: bool = True
    progress: Callable[[str], None] | None = None


@dataclass(frozen=True)
class FigureFit:
    target: str
    figure: Figure
    tolerance: Tolerance
    simulated_prior: float | None
    simulated: float | None
    residual_prior: float
    residual: float


@dataclass(frozen=True)
class ParamFit:
    name: str
    source: str
    prior: float
    value: float
    sigma: float | None
    """One standard deviation of the fitted value (None: not fitted)."""
    prior_sigma: float
    status: str
    """"fitted", or why it was left at its prior."""
    moves: tuple[str, ...]
    """The results whose figures the screen saw it move."""
    profile: tuple[tuple[float, float], ...]
    """(value, distance over all figures) at the screen's points."""

    @property
    def constrained(self) -> bool:
        return self.status == "fitted"


@dataclass(frozen=True)
class LeaveOneOut:
    target: str
    rms_prior: float
    rms_in_fit: float
    rms_predicted: float
    """RMS residual (in tolerances) of the held-out result simulated under parameters
    fitted to the other results alone."""
    max_predicted: float


@dataclass
class Calibration:
    params: CapacityParams
    fits: list[ParamFit]
    figures: list[FigureFit]
    leave_one_out: list[LeaveOneOut] = field(default_factory=list)
    simulations: int = 0
    wall_s: float = 0.0
    distance_prior: float = 0.0
    distance: float = 0.0
    notes: list[str] = field(default_factory=list)

    def changed(self) -> dict[str, float]:
        """The fitted parameters whose value differs from the shipped default (what a
        params file needs to name)."""
        out = {}
        for f in self.fits:
            if f.constrained and not math.isclose(
                f.value, getattr(DEFAULT_PARAMS, f.name), rel_tol=1e-3
            ):
                out[f.name] = float(f"{f.value:.4g}")
        return out


def fit_names(options: CalibrationOptions) -> list[ParamInfo]:
    known = settable()
    names = list(options.fit) or [n for n, i in known.items() if i.source == "fit"]
    out = []
    for name in names:
        info = known.get(name)
        if info is None:
            raise CalibrationError(f"--fit {name}: not a parameter; `hotbench params` lists them")
        if info.integer:
            raise CalibrationError(f"--fit {name}: a whole-number parameter cannot be fitted")
        out.append(info)
    return out


COARSE_TICKS_S = (0.5, 0.25, 0.1)
"""Ticks a part may be simulated at during the search, coarsest first (see `Part`)."""
TICK_AGREEMENT = 0.1
"""How far (in tolerances) a part's figures at a coarse tick may be from the same part at
the simulation's own tick, at the prior, for the coarse tick to be used in the search."""


@dataclass
class Part:
    """One table of one result, simulated alone during the search: its runs only, at the
    coarsest tick whose figures agree with the fine tick's at the prior.

    Why: a parameter moves only some tables (the GSI intake only goodGsi), and a tick
    of 0.5 s is ten times cheaper than 0.05 s where the figures do not need the
    resolution (M3's 10-second buckets after 30 minutes do not; M2's first throttles,
    within a second, do). A table simulated alone draws its own random stream (the
    playbook's stream is shared by its tables in order), so its figures differ from the
    whole playbook's by sampling noise: on M1 at the prior, at most 0.13 of a tolerance
    (measured 2026-12-01). The figures *reported* (at the prior, at the fit, left out)
    are the whole playbook's at the simulation's own tick (`Evaluator.exact`)."""

    target: int
    table: str
    playbook: Playbook
    rows: list[int]
    """Indices of the target's figures this part carries."""
    tick_s: float = TICK_S
    tick_deviation: float = 0.0
    """Largest |residual difference| of the chosen tick against TICK_S, at the prior."""


def _parts(targets: list[MeasuredResult]) -> list[Part]:
    """Each target's tables that carry figures, each with its own runs (a target of one
    table keeps its playbook as it is)."""
    parts = []
    for t, target in enumerate(targets):
        playbook = target.playbook
        tables = [r.table for r in playbook.runs()]
        for table in dict.fromkeys(tables):
            rows = [
                k
                for k, (figure, _) in enumerate(target.figures)
                if figure.run.rsplit(" #", 1)[0] == table
            ]
            if not rows:
                continue  # no figure: simulating it would change nothing we compare
            alone = playbook
            if len(set(tables)) > 1:
                runs = [r for r in playbook.runs() if r.table == table]
                alone = playbook.model_copy(
                    update={"load": playbook.load.model_copy(update={"runs": runs})}
                )
            parts.append(Part(t, table, alone, rows))
    return parts


SimKey = tuple[int, tuple[float, ...]]


class Evaluator:
    """Residuals of each target under candidate values. The search simulates `Part`s
    (a table alone, at its tick), each once per distinct value of the parameters it
    depends on (a cache: the screen, the fit and its Jacobian revisit points, and a
    probe of a parameter a part never reads is the same point for it); `exact` gives the
    figures of the whole playbook at the simulation's own tick, for what is reported."""

    def __init__(
        self, targets: list[MeasuredResult], prior: CapacityParams, names: list[str]
    ) -> None:
        self.targets = targets
        self.prior = prior
        self.names = names
        known = settable()
        self.low = np.array([known[n].low for n in names], dtype=np.float64)
        self.high = np.array([known[n].high for n in names], dtype=np.float64)
        self.simulations = 0
        self.parts = _parts(targets)
        self.relevant: list[list[int]] = [list(range(len(names))) for _ in self.parts]
        """Per part, the parameters it depends on: at first those its simulation reads
        (`reads`), after the screen those the screen saw move it. A part is simulated
        again only when one of those changes."""
        self.exact_relevant: list[list[int]] = [list(range(len(names))) for _ in targets]
        self._cache: dict[SimKey, tuple[np.ndarray, list[float | None]]] = {}
        self._exact: dict[SimKey, tuple[np.ndarray, list[float | None]]] = {}

    def params(self, values: np.ndarray) -> CapacityParams:
        changes: dict[str, Any] = {n: float(v) for n, v in zip(self.names, values, strict=True)}
        return replace(self.prior, **changes)

    def _compare(
        self, target: MeasuredResult, rows: list[int], simulated: dict[str, Figure]
    ) -> tuple[np.ndarray, list[float | None]]:
        res, sims = [], []
        for k in rows:
            figure, tolerance = target.figures[k]
            other = simulated.get(figure.key)
            sims.append(None if other is None else other.value)
            res.append(MISSING_RESIDUAL if other is None else residual(figure, other, tolerance))
        return np.array(res, dtype=np.float64), sims

    def _simulate(
        self, playbook: Playbook, params: CapacityParams, tick_s: float
    ) -> dict[str, Figure]:
        self.simulations += 1
        return by_key(simulate(playbook, params, tick_s=tick_s).to_json())

    def prepare(self, say: Callable[[str], None]) -> None:
        """At the prior: the exact figures of every target, what each part's simulation
        reads, and each part's tick (see `Part`)."""
        x0 = np.array([getattr(self.prior, n) for n in self.names], dtype=np.float64)
        for t, target in enumerate(self.targets):
            reads, params = _recording(self.prior)
            simulated = self._simulate(target.playbook, params, TICK_S)
            found = _indices(reads, self.names)
            if found is not None:
                self.exact_relevant[t] = found
            self._exact[self._key(t, x0, self.exact_relevant[t])] = self._compare(
                target, list(range(len(target.figures))), simulated
            )
        for p, part in enumerate(self.parts):
            target = self.targets[part.target]
            if part.playbook is target.playbook:
                fine = self.exact(part.target, x0)[0][part.rows]
                self.relevant[p] = self.exact_relevant[part.target]
            else:
                reads, params = _recording(self.prior)
                fine = self._compare(
                    target, part.rows, self._simulate(part.playbook, params, TICK_S)
                )[0]
                found = _indices(reads, self.names)
                if found is not None:
                    self.relevant[p] = found
            for tick in COARSE_TICKS_S:
                coarse = self._compare(
                    target, part.rows, self._simulate(part.playbook, self.prior, tick)
                )
                deviation = float(np.max(np.abs(coarse[0] - fine), initial=0.0))
                if deviation <= TICK_AGREEMENT:
                    part.tick_s, part.tick_deviation = tick, deviation
                    self._cache[self._key(p, x0, self.relevant[p])] = coarse
                    break
            else:
                part.tick_s = TICK_S
            alone = "" if part.playbook is target.playbook else " alone"
            say(
                f"{target.label} {part.table}: simulated{alone} at {part.tick_s:g} s ticks "
                f"in the search (figures within {part.tick_deviation:.2f} tolerances of "
                f"{TICK_S:g} s at the prior)"
            )

    @staticmethod
    def _key(index: int, values: np.ndarray, which: list[int]) -> SimKey:
        return (index, tuple(round(float(values[i]), 9) for i in which))

    def part(self, p: int, values: np.ndarray) -> tuple[np.ndarray, list[float | None]]:
        key = self._key(p, values, self.relevant[p])
        hit = self._cache.get(key)
        if hit is None:
            part = self.parts[p]
            target = self.targets[part.target]
            simulated = self._simulate(part.playbook, self.params(values), part.tick_s)
            hit = self._cache[key] = self._compare(target, part.rows, simulated)
        return hit

    def residuals(self, index: int, values: np.ndarray) -> np.ndarray:
        """The search's residuals of a target: its parts', in its figures' order (a
        figure of a table the playbook never runs stays missing)."""
        out = np.full(len(self.targets[index].figures), MISSING_RESIDUAL, dtype=np.float64)
        for p, part in enumerate(self.parts):
            if part.target == index:
                out[part.rows] = self.part(p, values)[0]
        return out

    def exact(self, index: int, values: np.ndarray) -> tuple[np.ndarray, list[float | None]]:
        """The whole playbook at the simulation's own tick: the figures reported."""
        key = self._key(index, values, self.exact_relevant[index])
        hit = self._exact.get(key)
        if hit is None:
            target = self.targets[index]
            simulated = self._simulate(target.playbook, self.params(values), TICK_S)
            hit = self._exact[key] = self._compare(
                target, list(range(len(target.figures))), simulated
            )
        return hit

    def narrow(self, part_moves: list[set[int]]) -> None:
        """After the screen: each part depends only on the parameters seen to move its
        own figures (`part_moves[i]`: the parts parameter i moved)."""
        for p in range(len(self.parts)):
            self.relevant[p] = [i for i in self.relevant[p] if p in part_moves[i]]


def _recording(prior: CapacityParams) -> tuple[set[str], CapacityParams]:
    """Parameters equal to `prior` that note each attribute read into the returned set.

    A simulation that never reads a parameter cannot depend on it, so the search keys
    a part's simulations on the parameters it reads: the M3 playbook (no GSI, no hot
    key) never reads the GSI or isolation parameters, and is the costliest to simulate.
    Where the emulator is compiled its code reads the fields directly and nothing is
    noted: the set stays empty and every parameter counts as read."""
    reads: set[str] = set()
    if compiled():  # mypyc refuses instances of an interpreted subclass
        return reads, prior

    class Recording(type(prior)):  # type: ignore[misc]
        def __getattribute__(self, name: str) -> Any:
            reads.add(name)
            return object.__getattribute__(self, name)

    return reads, Recording(**{n: getattr(prior, n) for n in _field_names()})


def _indices(reads: set[str], names: list[str]) -> list[int] | None:
    """The indices of `names` read (None: nothing was noted, so all count as read)."""
    if not reads - {"__class__", "__dict__"}:
        return None
    return [i for i, n in enumerate(names) if n in reads]


def _field_names() -> list[str]:
    from dataclasses import fields

    return [f.name for f in fields(CapacityParams)]


def _probes(info: ParamInfo, prior: float) -> tuple[float, float]:
    if prior > 0:
        low, high = prior / PROBE_FACTOR, prior * PROBE_FACTOR
    else:
        span = info.high - info.low
        low, high = info.low + span / 16, info.low + span / 4
    return max(info.low, low), min(info.high, high)


def _prior_sigma(info: ParamInfo, prior: float) -> float:
    return PRIOR_WIDTH * abs(prior) if prior else 0.25 * (info.high - info.low)


def calibrate(
    targets: list[MeasuredResult], options: CalibrationOptions = CalibrationOptions()
) -> Calibration:
    """Fit `options.fit` (default: every [fit] parameter) to every figure of `targets`."""
    wall0 = time.perf_counter()
    say = options.progress or (lambda _m: None)
    infos = fit_names(options)
    names = [i.name for i in infos]
    ev = Evaluator(targets, options.prior, names)
    x0 = np.array([getattr(options.prior, n) for n in names], dtype=np.float64)
    sigma0 = np.array([_prior_sigma(i, v) for i, v in zip(infos, x0, strict=True)])
    n_targets = len(targets)

    say(f"simulating {n_targets} result(s) under the prior")
    ev.prepare(say)
    r0 = [ev.exact(t, x0)[0] for t in range(n_targets)]

    def data_cost(rs: list[np.ndarray]) -> float:
        return float(sum(float(np.sum(r * r)) for r in rs))

    # 1. the screen, one parameter at a time from the best point so far: a parameter
    # that matters only once another has moved (a GSI backlog once the intake lets the
    # log fill) is screened after that move.
    moves: list[set[int]] = []
    part_moves: list[set[int]] = []
    profiles: list[tuple[tuple[float, float], ...]] = []
    secant: list[list[np.ndarray]] = []
    current = x0.copy()

    def penalised(x: np.ndarray, rs: list[np.ndarray]) -> float:
        return data_cost(rs) + float(np.sum(((x - x0) / sigma0) ** 2))

    for i, info in enumerate(infos):
        say(f"screening {info.name}")
        base = [ev.residuals(t, current) for t in range(n_targets)]
        candidates = [(penalised(current, base), float(current[i]))]
        points = []
        rows: list[list[np.ndarray]] = []
        for probe in _probes(info, x0[i]):
            x = current.copy()
            x[i] = probe
            # A part that never reads the parameter answers from the cache.
            rs = [ev.residuals(t, x) for t in range(n_targets)]
            rows.append(rs)
            points.append((probe, data_cost(rs)))
            candidates.append((penalised(x, rs), probe))
        moved = {
            t
            for t in range(n_targets)
            if any(np.max(np.abs(rs[t] - base[t]), initial=0.0) > 1e-6 for rs in rows)
        }
        moves.append(moved)
        part_moves.append(
            {
                p
                for p, part in enumerate(ev.parts)
                if any(
                    np.max(np.abs(rs[part.target][part.rows] - base[part.target][part.rows])) > 1e-6
                    for rs in rows
                )
            }
        )
        (lo_v, lo_c), (hi_v, hi_c) = points
        profiles.append(((lo_v, lo_c), (float(current[i]), data_cost(base)), (hi_v, hi_c)))
        sides = [
            [(rows[k][t] - base[t]) / (points[k][0] - current[i]) for t in range(n_targets)]
            if points[k][0] != current[i]
            else [np.zeros_like(base[t]) for t in range(n_targets)]
            for k in (0, 1)
        ]
        secant.append(max(sides, key=lambda cols: float(sum(np.sum(c * c) for c in cols))))
        current[i] = min(candidates)[1]
    starts = current

    # Which parameters the data constrain: each one's steeper one-sided slope from the
    # screen, with the prior (a parameter with a valley between its probes has a flat
    # secant but steep sides).
    ev.narrow(part_moves)
    ratio = np.ones(len(infos))
    correlated: dict[int, tuple[int, float]] = {}
    if infos:
        j_screen = np.column_stack([np.concatenate(col) for col in secant])
        cov = np.linalg.inv(j_screen.T @ j_screen + np.diag(1.0 / sigma0**2))
        ratio = np.sqrt(np.diag(cov)) / sigma0
        corr = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
        for i in range(len(infos)):
            others = [(abs(corr[i, j]), j) for j in range(len(infos)) if j != i]
            if others and max(others)[0] > 0.9:
                j = max(others)[1]
                correlated[i] = (j, float(corr[i, j]))
    free = [i for i in range(len(infos)) if moves[i] and ratio[i] < CONSTRAINED_RATIO]

    # 2. the fit, over the screened range of each free parameter, in log space.
    span_low = np.array([_probes(infos[i], x0[i])[0] for i in range(len(infos))])
    span_high = np.array([_probes(infos[i], x0[i])[1] for i in range(len(infos))])

    def full(u: np.ndarray) -> np.ndarray:
        x = x0.copy()
        x[free] = _from_unit(u, span_low[free], span_high[free], x0[free])
        return x

    def distance(u: np.ndarray) -> float:
        x = full(u)
        return penalised(x, [ev.residuals(t, x) for t in range(n_targets)])

    x_fit = x0.copy()
    if free:
        say(f"fitting {', '.join(names[i] for i in free)}")
        start = _to_unit(starts[free], span_low[free], span_high[free], x0[free])
        solution = minimize(
            distance,
            start,
            method="Powell",
            bounds=[(-1.0, 1.0)] * len(free),
            options={"xtol": 0.01, "ftol": 1e-3, "maxfev": options.max_evaluations},
        )
        x_fit = full(np.asarray(solution.x))

    # 3. uncertainties from the Jacobian at the fit.
    sigma_fit = np.full(len(infos), np.nan)
    r_at = [ev.residuals(t, x_fit) for t in range(n_targets)]
    blocks = _jacobian(ev, x_fit, r_at, free, sigma0, n_targets)
    if free:
        j_fit = np.vstack([*blocks, np.diag(1.0 / sigma0[free])])
        cov_fit = np.linalg.pinv(j_fit.T @ j_fit)
        sigma_fit[free] = np.sqrt(np.maximum(np.diag(cov_fit), 0.0))

    fits = []
    for i, info in enumerate(infos):
        pinned = i in free and sigma_fit[i] < CONSTRAINED_RATIO * sigma0[i]
        partner = (names[correlated[i][0]], correlated[i][1]) if i in correlated else None
        status = fit_status(bool(moves[i]), pinned, partner, profiles[i])
        if status != "fitted":
            x_fit[i] = x0[i]
        fits.append(
            ParamFit(
                info.name,
                info.source,
                float(x0[i]),
                float(x_fit[i]),
                float(sigma_fit[i]) if status == "fitted" else None,
                float(sigma0[i]),
                status,
                tuple(targets[t].label for t in sorted(moves[i])),
                profiles[i],
            )
        )

    figure_fits: list[FigureFit] = []
    r_fit = []
    for t, target in enumerate(targets):
        res_fit, sim_fit = ev.exact(t, x_fit)
        res_prior, sim_prior = ev.exact(t, x0)
        r_fit.append(res_fit)
        for k, (figure, tolerance) in enumerate(target.figures):
            figure_fits.append(
                FigureFit(
                    target.label,
                    figure,
                    tolerance,
                    sim_prior[k],
                    sim_fit[k],
                    float(res_prior[k]),
                    float(res_fit[k]),
                )
            )
    out = Calibration(ev.params(x_fit), fits, figure_fits)
    out.distance_prior = data_cost(r0)
    out.distance = data_cost(r_fit)
    fitted = [i for i in range(len(infos)) if fits[i].constrained]
    if options.leave_one_out and n_targets > 1 and fitted:
        # The slopes from the search's own residuals at the fit, as in step 3: the
        # reported ones (`r_fit`, the whole playbook at TICK_S) differ from the search's
        # (a table alone, a coarse tick) by noise of up to TICK_AGREEMENT, which taken
        # as a difference over a tenth of the prior width is a slope of up to ~2 per
        # prior sd, even for a result that never reads the parameter.
        r_search = [ev.residuals(t, x_fit) for t in range(n_targets)]
        blocks = _jacobian(ev, x_fit, r_search, fitted, sigma0, n_targets)
        out.leave_one_out = _leave_one_out(
            ev, targets, x0, x_fit, sigma0, fitted, blocks, r0, r_fit, say
        )
    out.simulations = ev.simulations
    out.wall_s = time.perf_counter() - wall0
    return out


PROFILE_MOVES = 1.0
"""A profile whose distance (squared residuals in tolerances) spans more than this over
the screen has figures that move with the parameter: one tolerance, squared."""


def fit_status(
    moves: bool,
    pinned: bool,
    partner: tuple[str, float] | None,
    profile: tuple[tuple[float, float], ...],
) -> str:
    """Why a parameter was fitted or left at its prior, in words that agree with its own
    profile: one whose figures move with it over the screen (its distance 50-fold from
    one end of the screen to the prior) is never said to "barely move" them: it is
    bounded to a range, but not pinned to a value near its prior."""
    if not moves:
        return "not constrained: no figure moves with it (left at its prior)"
    if pinned:
        return "fitted"
    if partner is not None:
        name, c = partner
        return (
            f"not constrained alone: only together with {name} (correlation {c:+.2f}; "
            "left at its prior)"
        )
    distances = [c for _, c in profile]
    low, high = (min(distances), max(distances)) if distances else (0.0, 0.0)
    if high - low > PROFILE_MOVES:
        return (
            f"bounded, not pinned: the figures move with it over the screen (distance "
            f"{low:.3g} to {high:.3g}) but too little near its prior to fix a value "
            "(left at its prior)"
        )
    return "not constrained: the figures barely move with it (left at its prior)"


def _rms(r: np.ndarray) -> float:
    return float(np.sqrt(np.mean(r * r))) if len(r) else 0.0


def _to_unit(x: np.ndarray, low: np.ndarray, high: np.ndarray, x0: np.ndarray) -> np.ndarray:
    """Values -> [-1, 1] over [low, high], log-spaced around x0 where all are positive
    (a time or a factor matters by ratio), linear otherwise."""
    u = np.empty_like(x)
    for k in range(len(x)):
        if low[k] > 0:
            up = math.log(high[k] / x0[k]) or 1.0
            down = math.log(x0[k] / low[k]) or 1.0
            ratio = math.log(x[k] / x0[k])
            u[k] = ratio / up if ratio >= 0 else ratio / down
        else:
            u[k] = (2 * (x[k] - low[k]) / (high[k] - low[k])) - 1
    return np.clip(u, -1.0, 1.0)


def _from_unit(u: np.ndarray, low: np.ndarray, high: np.ndarray, x0: np.ndarray) -> np.ndarray:
    x = np.empty_like(u)
    for k in range(len(u)):
        if low[k] > 0:
            end = high[k] if u[k] >= 0 else low[k]
            x[k] = x0[k] * (end / x0[k]) ** abs(u[k])
        else:
            x[k] = low[k] + (u[k] + 1) / 2 * (high[k] - low[k])
    return x


def _jacobian(
    ev: Evaluator,
    x: np.ndarray,
    r_at: list[np.ndarray],
    which: list[int],
    sigma0: np.ndarray,
    n_targets: int,
) -> list[np.ndarray]:
    """Per target, d(residuals)/d(parameter) for the parameters `which`, by a forward
    difference of a tenth of the prior width (coarse on purpose: the figures are steps at
    the model's one-second resolution)."""
    blocks = []
    for t in range(n_targets):
        cols = []
        for i in which:
            h = STEP * sigma0[i]
            xs = x.copy()
            xs[i] = x[i] + h if x[i] + h <= ev.high[i] else x[i] - h
            cols.append((ev.residuals(t, xs) - r_at[t]) / (xs[i] - x[i]))
        blocks.append(np.column_stack(cols) if cols else np.zeros((len(r_at[t]), 0)))
    return blocks


def _leave_one_out(
    ev: Evaluator,
    targets: list[MeasuredResult],
    x0: np.ndarray,
    x_fit: np.ndarray,
    sigma0: np.ndarray,
    fitted: list[int],
    blocks: list[np.ndarray],
    r0: list[np.ndarray],
    r_fit: list[np.ndarray],
    say: Callable[[str], None],
) -> list[LeaveOneOut]:
    """Each result predicted by a fit to the others: the Jacobian at the full fit, the
    held-out result's rows removed, one Gauss-Newton step with the prior, then the held-out
    result simulated under those parameters (the prediction is a simulation, not the
    linearisation)."""
    n = len(targets)
    prior_rows = np.diag(1.0 / sigma0[fitted])
    out = []
    for k in range(n):
        say(f"leaving out {targets[k].label}")
        j = np.vstack([*(blocks[t] for t in range(n) if t != k), prior_rows])
        r = np.concatenate(
            [*(r_fit[t] for t in range(n) if t != k), (x_fit[fitted] - x0[fitted]) / sigma0[fitted]]
        )
        step, *_ = np.linalg.lstsq(j, -r, rcond=None)
        x = x_fit.copy()
        x[fitted] = np.clip(x_fit[fitted] + step, ev.low[fitted], ev.high[fitted])
        predicted = ev.exact(k, x)[0]
        out.append(
            LeaveOneOut(
                targets[k].label,
                _rms(r0[k]),
                _rms(r_fit[k]),
                _rms(predicted),
                float(np.max(np.abs(predicted), initial=0.0)),
            )
        )
    return out
