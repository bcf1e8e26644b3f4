"""A run's shared types, below the targets and the workflow that both use them.

What a run is and holds (its state file and records, settings, options, hooks, errors,
the run lock, the processes it starts, the samples `watch` streams, the reports steps
return). `console/targets/` (where a run lives) and `console/workflow/` (the steps over
it) both import from here; nothing here imports either of them (tests/test_layers.py).
"""
