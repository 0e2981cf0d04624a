# Lore Explorer — `make run` runs the product, `make test` runs the tests. Nothing but Python 3.11+ needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT ?= 8000
LESSONS ?= 20000

.PHONY: run test lint format bench install migrate demo clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip
	@$(PY) -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

migrate: install
	@mkdir -p var
	@$(PY) manage.py migrate --noinput -v0

demo: migrate
	@$(PY) manage.py seed_demo --lessons $(LESSONS) --if-empty --token-file var/demo-token

run: demo
	@$(PY) scripts/run.py --port $(PORT)

lint: install
	@$(VENV)/bin/ruff check config lore policies explorer lorekit tests bench
	@$(VENV)/bin/ruff format --check config lore policies explorer lorekit tests bench
	@$(VENV)/bin/mypy config lore policies explorer lorekit

format: install
	@$(VENV)/bin/ruff check --fix config lore policies explorer lorekit tests bench || true
	@$(VENV)/bin/ruff format config lore policies explorer lorekit tests bench

test: lint
	@$(PY) -m pytest $(PYTEST_ARGS)

bench: install
	@$(PY) bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) var/*.sqlite3* var/broker staticfiles
