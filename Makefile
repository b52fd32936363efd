# The two commands of the README: `make run` and `make test`. Each builds the venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run simulate test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# The main job on the embedded default: the server, its lobby at http://127.0.0.1:8000/.
run: $(STAMP)
	$(BIN)/basra serve --port 8000

# Bot matches recorded in the same SQLite file (./basra.db).
simulate: $(STAMP)
	$(BIN)/basra simulate --ruleset classic --seats 2 --bots easy --matches 3 --seed demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# A benchmark through the harness (python -m bench lists them): make bench BENCH=scale ARGS='…'.
BENCH ?= rules
bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH) $(ARGS)

clean:
	rm -rf $(VENV)
