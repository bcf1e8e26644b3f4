"""Fakes the tests and benchmarks run against (never shipped in a package)."""
