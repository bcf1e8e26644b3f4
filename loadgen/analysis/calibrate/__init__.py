"""Calibration: fit the capacity model's parameters to result files (`hotbench calibrate`).

`measured` turns result files into the figures to match and the playbooks that reproduce
them; `fit` simulates those playbooks under candidate parameters and fits.
"""

from loadgen.analysis.calibrate.fit import Calibration, CalibrationOptions, calibrate
from loadgen.analysis.calibrate.measured import MeasuredResult, MeasuredResultError, load_measured

__all__ = [
    "Calibration",
    "CalibrationOptions",
    "MeasuredResult",
    "MeasuredResultError",
    "calibrate",
    "load_measured",
]
