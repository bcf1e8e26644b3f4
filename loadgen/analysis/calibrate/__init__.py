"""Calibration: fit the capacity model's parameters to result files (`hotbench calibrate`).

`targets` turns result files into the figures to match and the playbooks that reproduce
them; `fit` simulates those playbooks under candidate parameters and fits.
"""

from loadgen.analysis.calibrate.fit import Calibration, CalibrationOptions, calibrate
from loadgen.analysis.calibrate.targets import Target, TargetError, load_target

__all__ = [
    "Calibration",
    "CalibrationOptions",
    "Target",
    "TargetError",
    "calibrate",
    "load_target",
]
