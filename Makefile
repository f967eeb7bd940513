# Two commands on a fresh machine: `make run` starts the web server, `make test` checks everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SERVER_STAMP := $(VENV)/.installed-server
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs

SYSTEM_STAMP := $(VENV)/.system-deps
# TypeScript checks the page's plain JavaScript (tsconfig.json); nothing is built.
NODE_STAMP := node_modules/.installed

.PHONY: run play test check docs bench types messages language clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# What the server needs (make run, make play), and everything the tests and tools need besides (make test).
$(SERVER_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[web]'
	touch $(SERVER_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[web,dev]'
	touch $(STAMP) $(SERVER_STAMP)

$(SYSTEM_STAMP): scripts/system-deps.sh $(STAMP)
	scripts/system-deps.sh
	touch $(SYSTEM_STAMP)

$(NODE_STAMP): package.json package-lock.json $(SYSTEM_STAMP)
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

run: $(SERVER_STAMP)
	$(BIN)/quiltmaker serve

play: $(SERVER_STAMP)
	$(BIN)/quiltmaker play

test: $(STAMP) $(SYSTEM_STAMP) $(NODE_STAMP)
	$(BIN)/ruff check quiltmaker tests benchmarks scripts
	$(BIN)/python -m mypy
	npm run --silent check
	$(MKDOCS) build --strict --quiet
	$(BIN)/python -m pytest -q

# The quick round while working: everything but the tests marked slow (see pyproject.toml).
check: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check quiltmaker tests benchmarks scripts
	$(BIN)/python -m mypy
	npm run --silent check
	$(MKDOCS) build --strict --quiet
	$(BIN)/python -m pytest -q -m "not slow" -n auto

# The reference site (the guides and the API from the docstrings) into build/site; strict, so a
# broken link or cross-reference fails. Open build/site/index.html, or `$(MKDOCS) serve`.
docs: $(STAMP)
	$(MKDOCS) build --strict

# The page's types (static/contract.d.ts), generated from the server's contract (quiltmaker/web/contract):
# run after changing a message; a test fails while they are out of date.
types: $(STAMP) $(NODE_STAMP)
	$(BIN)/python -m quiltmaker.web.contract | scripts/page-types.sh > quiltmaker/web/static/contract.d.ts.new
	mv quiltmaker/web/static/contract.d.ts.new quiltmaker/web/static/contract.d.ts

# The catalogues (quiltmaker/locales) brought up to date with the words marked in the source: new words
# come untranslated and changed ones marked fuzzy, and tests/test_i18n.py fails until they are translated.
messages: $(STAMP)
	$(BIN)/python scripts/messages.py update

# A new language's catalogue: make language CODE=xx (then translate it, and add its line to quiltmaker/i18n.py).
language: $(STAMP)
	$(BIN)/python scripts/messages.py init $(CODE)

bench: $(STAMP)
	$(BIN)/quiltmaker bench

clean:
	rm -rf $(VENV) node_modules build *.egg-info
