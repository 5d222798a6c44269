# Two commands for a newcomer: `make demo` and `make test`. See README.md.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Every package pinned with hashes for Python 3.11 on Linux x86_64, in two locks:
# requirements/runtime.txt (what production installs: docs/deploy.md) and
# requirements/dev.txt (runtime + test and lint tools, constrained by the first).
# pyproject.toml keeps the compatible ranges; `make lock` turns them into these files.
RUNTIME_LOCK := requirements/runtime.txt
LOCK := requirements/dev.txt
UV_VERSION := 0.13.9
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo test test-all test-postgres test-browser browser-deps lint format bench serve install lock clean help

help:
	@echo "make demo   - install, migrate SQLite, load the demo study, serve on http://$(HOST):$(PORT)/"
	@echo "make test   - install and run the fast tier (minutes): every test but slow, load and browser ones"
	@echo "make test-all - install and run every test (browser tests if Chromium is present)"
	@echo "make test-browser - the browser tests only (Chromium through Playwright)"
	@echo "make lint   - ruff, mypy over every app, tests and bench (strict on the pure packages), import contracts, migrations check"
	@echo "make bench  - run every benchmark; results in bench/results/, summary in docs/performance.md"
	@echo "make lock   - re-pin $(LOCK) from pyproject.toml (UPGRADE=1: newest of all; UPGRADE='pkg ...': those)"

# uv installs the locked wheels (hashes verified) in seconds where pip takes minutes; pip
# does it when uv cannot be had (INSTALLER=pip forces that).
INSTALLER ?= uv
$(STAMP): $(LOCK) $(RUNTIME_LOCK) pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# opencc (the OpenCC binding) replaced opencc-python-reimplemented: both own opencc/
	@$(BIN)/python -m pip uninstall -q -y opencc-python-reimplemented 2>/dev/null || true
	@if [ "$(INSTALLER)" = uv ] && $(BIN)/python -m pip install -q "uv==$(UV_VERSION)"; then \
		$(BIN)/uv pip install -q --python $(BIN)/python -r $(LOCK) \
		&& $(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e .; \
	else \
		$(BIN)/python -m pip install -q --upgrade pip \
		&& $(BIN)/python -m pip install -q -r $(LOCK) \
		&& $(BIN)/python -m pip install -q --no-deps -e .; \
	fi
	$(BIN)/python -m pip check
	@touch $(STAMP)

install: $(STAMP)

# Keeps the pins that still satisfy pyproject.toml. UPGRADE=1 re-resolves everything to the
# newest allowed versions; UPGRADE="pypinyin django" upgrades just those.
UPGRADE_FLAGS = $(if $(filter 1,$(UPGRADE)),--upgrade,$(foreach p,$(UPGRADE),--upgrade-package $(p)))
lock:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q "uv==$(UV_VERSION)"
	@mkdir -p $(dir $(LOCK))
	$(BIN)/uv pip compile pyproject.toml --generate-hashes \
		--python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
		--custom-compile-command "make lock" \
		$(UPGRADE_FLAGS) --quiet --output-file $(RUNTIME_LOCK)
	$(BIN)/uv pip compile pyproject.toml --extra dev --constraint $(RUNTIME_LOCK) --generate-hashes \
		--python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
		--custom-compile-command "make lock" \
		$(UPGRADE_FLAGS) --quiet --output-file $(LOCK)

# The demo's background jobs run in a worker process of their own (kombu's filesystem
# queue under var/queue: nothing to install), started beside the server and stopped with it;
# it consumes both queues (loads and exports on ``jobs``, reports on ``reports``), at the
# lowest CPU priority and on one BLAS thread, so the pages stay quick while a report is
# computed (docs/deploy.md, *Worker priority*).
DEMO_ENV := DEBUG=1 CELERY_BROKER_URL=filesystem:// OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
demo: $(STAMP)
	DEBUG=1 $(BIN)/python manage.py migrate --noinput -v0
	DEBUG=1 $(BIN)/python manage.py demo --host http://$(HOST):$(PORT)
	@echo "Serving on http://$(HOST):$(PORT)/ with a background job worker (Ctrl-C stops both)"
	@$(DEMO_ENV) bash -c 'nice -n 19 $(BIN)/celery -A config worker -Q jobs,reports --pool=solo --loglevel=WARNING \
		& worker=$$!; trap "kill $$worker 2>/dev/null; wait $$worker 2>/dev/null" EXIT; \
		$(BIN)/python manage.py runserver $(HOST):$(PORT) --noreload'

# The tiers (tests/tiers.py). Tests run in parallel processes (pytest-xdist, one per core);
# PYTEST_ARGS adds arguments, e.g. PYTEST_ARGS="tests/loading -k csv".
XDIST ?= -n auto --dist loadfile
FAST := not slow and not load and not browser

test: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "$(FAST)" $(PYTEST_ARGS)
	@echo "Fast tier only: the tests marked slow, load or browser were left out (tests/tiers.py)."
	@echo "Run them with: make test-all (everything) or make test-browser (Chromium)."

test-all: $(STAMP) browser-deps
	$(BIN)/python -m pytest $(XDIST) -m "not browser" $(PYTEST_ARGS)
	$(BIN)/python -m pytest $(XDIST) -m browser $(PYTEST_ARGS)

# With DATABASE_URL=postgres://…: the tests whose behaviour depends on the engine (their
# slow ones run once, on SQLite, in test-all; PG_ALL=1 runs them here too).
PG_MARKS := postgres and not browser and not load$(if $(PG_ALL),, and not slow)
test-postgres: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "$(PG_MARKS)" $(PYTEST_ARGS)

test-browser: $(STAMP) browser-deps
	$(BIN)/python -m pytest $(XDIST) -m browser $(PYTEST_ARGS)

browser-deps:
	@if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then \
		echo "Browser tests: Chromium found, they will run."; \
	else \
		echo "Browser tests: SKIPPED - no Chromium (install it with: apt-get install -y chromium)."; \
	fi
	@if command -v npm >/dev/null 2>&1; then \
		test -f tests/browser/node_modules/axe-core/axe.min.js || (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error); \
	else \
		echo "Accessibility checks (axe-core): SKIPPED - no npm (install Node.js, then: cd tests/browser && npm ci)."; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy  # every app, tests/ and bench/ (pyproject.toml [tool.mypy] files), strict on the pure packages
	TESTING=1 $(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/run_all.py $(if $(QUICK),--quick)

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .mypy_cache .ruff_cache
