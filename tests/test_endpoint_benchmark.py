"""benchmarks/endpoint.py's per-round ratios: a stream's cost (emulator+stream against
emulator) and this branch against another checkout, each round's pair divided."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from tests.conftest import ROOT


def _benchmark() -> ModuleType:
    path = ROOT / "benchmarks" / "endpoint.py"
    spec = importlib.util.spec_from_file_location("endpoint_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_stream_ratio_is_each_rounds_pair_divided() -> None:
    per_round = _benchmark().per_round
    runs = {"emulator": [2000.0, 1000.0, 4000.0], "emulator+stream": [1500.0, 900.0, 4000.0]}
    assert per_round(runs, "emulator+stream", "emulator") == (
        "emulator+stream / emulator per round: 0.75, 0.90, 1.00 (median 0.90)"
    )
    # Only when both ran in this run; a round with no rate of the baseline is left out.
    assert per_round(runs, "emulator", "baseline") is None
    runs["baseline"] = [0.0, 500.0, 2000.0]
    assert per_round(runs, "emulator", "baseline") == (
        "emulator / baseline per round: 2.00, 2.00 (median 2.00)"
    )
