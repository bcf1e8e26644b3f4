# The two commands a newcomer needs: `make run` and `make test`. Both create .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHECKOV_VENV := .venv-checkov
# The emulator's own tests, run a second time on its pure-Python modules (the live fidelity
# run is left to the compiled pass: it measures the same model over HTTP for minutes).
PURE_TESTS := tests/emulator -m "not slow"

.PHONY: run test test-differential lint typecheck bench clean checkov native

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,tui]'
	touch $(STAMP)

# checkov has its own pins, so it lives in a venv of its own (the Terraform tests call it).
$(CHECKOV_VENV)/bin/checkov:
	$(PY) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q checkov

checkov: $(CHECKOV_VENV)/bin/checkov

## make native: compile the emulator with mypyc into .native/ (a no-op when it is current;
## pure Python runs wherever no current build exists, or with HOTBENCH_PURE=1).
native: $(STAMP)
	$(BIN)/python -m emulator.nativebuild build

## make run: simulate the M1 hot-partition playbook on the embedded capacity model.
run: native
	$(BIN)/hotbench simulate playbooks/hot-partition.yaml

## make test: lint, format check, type-check and run the whole test suite.
## The suite runs on the compiled emulator (what `make run` and `hotbench` use), then the
## emulator's own tests again on the pure-Python modules, the reference.
test: native $(CHECKOV_VENV)/bin/checkov
	$(BIN)/ruff check emulator loadgen console tests benchmarks
	$(BIN)/ruff format --check emulator loadgen console tests benchmarks
	$(BIN)/mypy
	HOTBENCH_EXPECT_NATIVE=1 HOTBENCH_CHECKOV=$(CURDIR)/$(CHECKOV_VENV)/bin/checkov $(BIN)/pytest -q
	HOTBENCH_PURE=1 $(BIN)/pytest -q $(PURE_TESTS)

## make test-differential: the differential test's long run (docs/model.md#the-differential-test):
## 200 generated playbooks through simulate and the endpoint; a failing one is kept in
## tests/loadgen/differential/found/. About 15-30 minutes on the pure-Python emulator.
test-differential: native
	HOTBENCH_DIFF_EXAMPLES=200 $(BIN)/pytest -q tests/loadgen/test_differential.py

lint: $(STAMP)
	$(BIN)/ruff check emulator loadgen console tests benchmarks
	$(BIN)/ruff format --check emulator loadgen console tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: native
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) .native .pytest_cache .mypy_cache .ruff_cache
