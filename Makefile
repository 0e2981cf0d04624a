# Lore Explorer — `make run` runs the product, `make test` runs the tests. Nothing but Python 3.11+ needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT ?= 8000
LESSONS ?= 20000
# Local runs are development runs: without DEBUG (or a SECRET_KEY) every process refuses to start.
LOCAL_ENV := DEBUG=$${DEBUG:-1}

LINT_PATHS := $(wildcard config lore policies explorer members lorekit tests bench scripts)
TYPED_PATHS := $(wildcard config lore policies explorer members lorekit)

.PHONY: run test lint format bench install migrate demo clean status-model

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing dependencies into $(VENV) (log: $(VENV)/install.log)…"
	@$(PY) -m pip install -q --upgrade pip > $(VENV)/install.log 2>&1 || (cat $(VENV)/install.log; exit 1)
	@$(PY) -m pip install -q -e '.[dev]' >> $(VENV)/install.log 2>&1 || (cat $(VENV)/install.log; exit 1)
	@rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

migrate: install
	@mkdir -p var
	@$(LOCAL_ENV) $(PY) manage.py migrate --noinput -v0

demo: migrate
	@$(LOCAL_ENV) $(PY) manage.py seed_demo --lessons $(LESSONS) --if-empty --token-file var/demo-token

run: demo
	@$(PY) scripts/run.py --port $(PORT)

lint: install
	@$(VENV)/bin/ruff check $(LINT_PATHS)
	@$(VENV)/bin/ruff format --check $(LINT_PATHS)
	@$(LOCAL_ENV) $(VENV)/bin/mypy $(TYPED_PATHS)

format: install
	@$(VENV)/bin/ruff check --fix $(LINT_PATHS) || true
	@$(VENV)/bin/ruff format $(LINT_PATHS)

test: lint
	@$(PY) -m pytest $(PYTEST_ARGS)

bench: install
	@$(LOCAL_ENV) $(PY) bench/run.py $(BENCH_ARGS)

# Refit the gardener's learned status reader on the development corpus (docs/gardener.md, "A second reader").
status-model: install
	@$(LOCAL_ENV) $(PY) bench/status_model_train.py

clean:
	rm -rf $(VENV) var/*.sqlite3* var/broker staticfiles
