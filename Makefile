# Two commands on a fresh machine: `make run` plays, `make test` checks everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[web,dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quiltmaker play

test: $(STAMP)
	$(BIN)/ruff check quiltmaker tests benchmarks
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/quiltmaker bench

clean:
	rm -rf $(VENV) build *.egg-info
