# The two commands a newcomer needs: `make run` and `make test`. Both create .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHECKOV_VENV := .venv-checkov
# The emulator's own tests, run a second time on its pure-Python modules (the live fidelity
# run is left to the compiled pass: it measures the same model over HTTP for minutes).
PURE_TESTS := tests/emulator -m 'not slow'

.PHONY: run test test-fast test-stress test-differential lint typecheck bench clean checkov native

# The installs go through uv (from PyPI, into the venv first): it resolves the same versions
# as pip (pyproject.toml's lower bounds see to that) in a fraction of the time, because it
# downloads in parallel and leaves bytecode to be compiled on first import. On a 2-core
# machine pip took 2 min 12 s for the project and 4 min 32 s for checkov; uv about 25 s and
# 6 s (docs/ci.md, "Where the time goes").
# --compile-bytecode: what pip does by default. Without it, where PYTHONDONTWRITEBYTECODE
# is set (it is on this project's machine, and CI's times say on its CI too), no process
# ever wrote a .pyc, and every process the suite starts compiled each module it imports
# from source again:
# `hotbench up --help` 1.13 s -> 0.58 s of CPU with the bytecode; 18 s more to install.
UV := $(BIN)/uv
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q uv
	$(UV) pip install -q --compile-bytecode --python $(BIN)/python -e '.[dev,tui]'
	touch $(STAMP)

# checkov has its own pins, so it lives in a venv of its own (the Terraform tests call it).
$(CHECKOV_VENV)/bin/checkov: $(STAMP)
	$(UV) venv -q --allow-existing $(CHECKOV_VENV)
	$(UV) pip install -q --python $(CHECKOV_VENV)/bin/python checkov

checkov: $(CHECKOV_VENV)/bin/checkov

## make native: compile the emulator with mypyc into .native/ (a no-op when it is current;
## pure Python runs wherever no current build exists, or with HOTBENCH_PURE=1).
NATIVE_BUILD := $(BIN)/python -m emulator.nativebuild build
native: $(STAMP)
	$(NATIVE_BUILD)

## make run: simulate the M1 hot-partition playbook on the embedded capacity model.
run: native
	$(BIN)/hotbench simulate playbooks/hot-partition.yaml

## make test: lint, format check, type-check and run the whole test suite.
## The suite runs on the compiled emulator (what `make run` and `hotbench` use), and the
## emulator's own tests again on the pure-Python modules, the reference. Every pass runs
## even when one before it fails, and the end prints one line per pass (scripts/passes.py).
## The mypyc build (`native&`) runs in the background beside lint, the type check and the
## pure pass, which need no build; `--wait` holds the compiled pass until it is done.
## pytest runs on several processes (pytest-xdist): the live tests that measure physics in
## real time share one group (`xdist_group("live")`), so they never compete with each other.
# The pure pass runs on two processes, beside the build, and is CPU-bound. The compiled
# pass on three: its tests wait on processes they start (the CLI, emulators, workers) for
# a fifth of their time, and a third process fills that: 578 s -> 426 s, the same tests,
# one after the other on a quiet machine (docs/ci.md, "Where the time goes").
# PYTHONDONTWRITEBYTECODE= (empty: unset) for the test runs: pytest keeps the test modules it
# rewrites for its assertion messages in __pycache__ only where bytecode may be written, so
# with the variable set each pytest process (the controller and every xdist worker) rewrote
# all 281 test files on every run: 10.3 s -> 5.8 s of CPU for one collection. The processes
# the tests start inherit it and write the project's own bytecode on first import (which a
# `make bytecode` step had compiled up front before).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest
XDIST := -n 2 --dist loadgroup
XDIST_COMPILED := -n 3 --dist loadgroup
BUILD := native&: $(NATIVE_BUILD)
LINT := $(BIN)/ruff check emulator loadgen console tests benchmarks scripts
FORMAT := $(BIN)/ruff format --check emulator loadgen console tests benchmarks scripts
COMPILED := HOTBENCH_EXPECT_NATIVE=1 HOTBENCH_CHECKOV=$(CURDIR)/$(CHECKOV_VENV)/bin/checkov \
	$(PYTEST) -q $(XDIST_COMPILED)
PURE := HOTBENCH_PURE=1 $(PYTEST) -q $(XDIST) $(PURE_TESTS)
test: $(STAMP) $(CHECKOV_VENV)/bin/checkov
	$(BIN)/python scripts/passes.py "$(BUILD)" "lint: $(LINT)" "format: $(FORMAT)" \
		"types: $(BIN)/mypy" "pure: $(PURE)" --wait "compiled: $(COMPILED)"

## make test-fast: the everyday loop, everything but the slow live checks (marked `slow`)
## and the end-to-end lifecycles (marked `e2e`), which make test runs. Why both: they are
## 2 % of the tests and half of the compiled pass's CPU (docs/ci.md, "make test-fast").
test-fast: $(STAMP)
	PASSES_TITLE="make test-fast" $(BIN)/python scripts/passes.py "$(BUILD)" "lint: $(LINT)" "format: $(FORMAT)" \
		"types: $(BIN)/mypy" --wait \
		"fast: HOTBENCH_EXPECT_NATIVE=1 $(PYTEST) -q $(XDIST_COMPILED) -m 'not slow and not e2e'"

## make test-stress: the suite three times in a row while a CPU hog keeps both cores busy
## (scripts/stress.py); every run must pass. About three times make test's time.
test-stress: $(STAMP) $(CHECKOV_VENV)/bin/checkov
	$(BIN)/python scripts/stress.py --runs 3 -- $(MAKE) --no-print-directory test

## make test-differential: the differential test's long run (docs/model.md#the-differential-test):
## 200 generated playbooks through simulate and the endpoint; a failing one is kept in
## tests/loadgen/differential/found/. About 15-30 minutes on the pure-Python emulator.
test-differential: native
	HOTBENCH_DIFF_EXAMPLES=200 $(PYTEST) -q tests/loadgen/test_differential.py

lint: $(STAMP)
	$(LINT)
	$(FORMAT)

typecheck: $(STAMP)
	$(BIN)/mypy

bench: native
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) .native .pytest_cache .mypy_cache .ruff_cache
