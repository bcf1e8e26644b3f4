# The two commands a newcomer needs: `make run` and `make test`. Both create .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHECKOV_VENV := .venv-checkov

.PHONY: run test lint typecheck bench clean checkov

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

## make run: simulate the M1 hot-partition playbook on the embedded capacity model.
run: $(STAMP)
	$(BIN)/hotbench simulate playbooks/hot-partition.yaml

## make test: lint, type-check and run the whole test suite.
test: $(STAMP) $(CHECKOV_VENV)/bin/checkov
	$(BIN)/ruff check emulator loadgen console tests benchmarks
	$(BIN)/mypy
	HOTBENCH_CHECKOV=$(CURDIR)/$(CHECKOV_VENV)/bin/checkov $(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check emulator loadgen console tests benchmarks
	$(BIN)/ruff format --check emulator loadgen console tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) .pytest_cache .mypy_cache .ruff_cache
