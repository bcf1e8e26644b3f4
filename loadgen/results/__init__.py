"""The one result format both runners fill: counts per second, phases, iterations and
latency histograms (docs/results.md). Beside the playbook format, at the bottom of
loadgen."""
