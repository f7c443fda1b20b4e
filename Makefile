# The project's only entry points: run, test, bench, lint (see README.md).
# Everything is installed into .venv (Python) and clients/web/node_modules (browser libraries), both
# pinned by lock files; services the tests need (redis-server, chromium) come from Debian's packages.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WEB    := clients/web
HOST   ?= 127.0.0.1
PORT   ?= 8765
# pytest-xdist workers: one per core keeps the whole suite within a few minutes on 2 cores.
PYTEST_WORKERS ?= auto

.PHONY: run test lint check bench services clean lock help

help:
	@echo "make run    - set up and start the server on the embedded (in-memory) store"
	@echo "make test   - set up and pass the whole suite (lint, types, tests)"
	@echo "make bench  - print the performance figures (see BENCHMARKS.md)"
	@echo "make lint   - ruff, mypy --strict and the import-layer contracts"

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.lock -e '.[dev]'
	@touch $@

$(WEB)/node_modules/.installed: $(WEB)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is missing: apt-get install npm"; exit 1; }
	npm ci --prefix $(WEB) --no-audit --no-fund --silent
	@touch $@

WEB_DEPS := $(if $(wildcard $(WEB)/package-lock.json),$(WEB)/node_modules/.installed,)

run: $(STAMP) $(WEB_DEPS)
	$(BIN)/cuarenta serve --host $(HOST) --port $(PORT) --store memory

# Debian packages the tests start themselves: a private redis-server and headless chromium.
services:
	@command -v redis-server >/dev/null || $(MAKE) --no-print-directory apt PKG=redis-server
	@command -v chromium >/dev/null || $(MAKE) --no-print-directory apt PKG=chromium

apt:
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PKG) >/dev/null; \
	else \
		echo "$(PKG) is missing: run 'sudo apt-get install $(PKG)' and try again"; exit 1; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: $(STAMP) $(WEB_DEPS) services lint
	$(BIN)/pytest -n $(PYTEST_WORKERS)

check: test

bench: $(STAMP) $(WEB_DEPS)
	$(BIN)/cuarenta bench all

# Re-pin every Python dependency after changing pyproject.toml.
lock:
	$(PYTHON) -m venv /tmp/cuarenta-lock && /tmp/cuarenta-lock/bin/pip install --quiet --upgrade pip
	/tmp/cuarenta-lock/bin/pip install --quiet -e '.[dev]'
	/tmp/cuarenta-lock/bin/pip freeze --exclude-editable > requirements.lock
	rm -rf /tmp/cuarenta-lock

clean:
	rm -rf $(VENV) $(WEB)/node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis
