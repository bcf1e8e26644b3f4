"""The one result format both runners fill and every reader of results takes: counts per
second and phase, latency histograms, iteration counts (docs/results.md). Imports nothing
else of loadgen."""
