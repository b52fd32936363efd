# The two commands of the README: `make run` and `make test`. Each builds the venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# The main job on the embedded default: bot matches recorded in a SQLite file.
run: $(STAMP)
	$(BIN)/basra simulate --ruleset classic --seats 2 --bots easy --matches 3 --seed demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/bench_rules.py

clean:
	rm -rf $(VENV)
