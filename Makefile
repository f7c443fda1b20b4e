# The project's only entry points: run, test, bench, lint (see README.md).
# Everything is installed into .venv (Python) and clients/web/node_modules (browser libraries), both
# pinned by lock files; services the tests need (redis-server, redis-sentinel, caddy, chromium)
# come from Debian's packages.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WEB    := clients/web
# `make run PORT=8766` or `CUARENTA_PORT=8766 make run` (likewise HOST / CUARENTA_HOST).
HOST   ?= $(or $(CUARENTA_HOST),127.0.0.1)
PORT   ?= $(or $(CUARENTA_PORT),8765)
# `make run` installs only what serving needs; the test tools come with `make test` (.[dev]).
RUN_STAMP := $(VENV)/.installed-run
PIP    := PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_WARN_SCRIPT_LOCATION=1 $(BIN)/pip install --quiet --progress-bar off
# pytest-xdist workers: one per core (about 10 minutes on 2 idle cores). Two per core finish
# sooner on a busy machine (most of the suite waits on browsers, servers and Redis), but a few
# timing-bound tests then miss their bounds: `make test PYTEST_WORKERS=4` for a quick local run.
PYTEST_WORKERS ?= auto

.PHONY: run test lint check bench services clean lock help fuzz screenshots deploy-test

help:
	@echo "make run    - set up and start the server on the embedded (in-memory) store"
	@echo "make test   - set up and pass the whole suite (lint, types, tests)"
	@echo "make bench  - print the performance figures (see BENCHMARKS.md)"
	@echo "make lint   - ruff check and format, mypy --strict, the import-layer contracts and tsc on the web client"
	@echo "make deploy-test - docker-compose.yml brought up with podman from Debian-built images, and played through"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed")'
	@$(PYTHON) -m venv $(VENV)

# The fast core that setup.py compiles with mypyc (in place, by `pip install -e .`): an edit
# to one of them reinstalls; a run that skips the Makefile gets the plain-Python core and a
# warning, never the stale build (engine/compiled.py checks the build's stamp of their digests).
CORE_SRC := setup.py engine/core.py engine/corecaps.py engine/corestate.py engine/coredeals.py engine/bots/fastplay.py

$(STAMP): pyproject.toml requirements.lock $(CORE_SRC) | $(BIN)/python
	$(PIP) --upgrade pip
	$(PIP) -c requirements.lock -e '.[dev]'
	@touch $@ $(RUN_STAMP)

# Quiet: pip's output goes to a log that is shown only if the install fails.
$(RUN_STAMP): pyproject.toml requirements.lock $(CORE_SRC) | $(BIN)/python
	@echo "setting up .venv (the server's packages only)..."
	@$(PIP) -c requirements.lock -e . >$(VENV)/pip-run.log 2>&1 || { cat $(VENV)/pip-run.log; exit 1; }
	@touch $@

$(WEB)/node_modules/.installed: $(WEB)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is missing: apt-get install npm"; exit 1; }
	@npm ci --prefix $(WEB) --no-audit --no-fund --silent
	@touch $@

WEB_DEPS := $(if $(wildcard $(WEB)/package-lock.json),$(WEB)/node_modules/.installed,)

# In the pocket (issue 42): the engine's own .py sources zipped for the browser's Pyodide, and
# the list of offline files with their version (clients/pocket.py). Built, never committed.
POCKET := $(WEB)/offline/engine.zip
$(POCKET): clients/pocket.py clients/pocket_api.py $(shell find engine -name '*.py' -o -name '*.json') \
		$(WEB)/pocket.html $(WEB)/style.css $(WEB)/pocket.css $(WEB)/offline/engine_worker.js $(wildcard $(WEB)/js/*.js $(WEB)/i18n/*.js) $(WEB_DEPS)
	@$(PYTHON) clients/pocket.py $(WEB)/offline >/dev/null

# The server's last line is the address to open (`listening on http://HOST:PORT/`).
run: $(RUN_STAMP) $(WEB_DEPS) $(POCKET)
	@$(BIN)/cuarenta serve --host $(HOST) --port $(PORT) --store memory --log-level warning

# Debian packages the tests start themselves: a private redis-server and headless chromium;
# redis-sentinel and caddy for the chaos run (tests/durability/test_chaos.py).
services:
	@command -v redis-server >/dev/null || $(MAKE) --no-print-directory apt PKG=redis-server
	@command -v redis-sentinel >/dev/null || $(MAKE) --no-print-directory apt PKG=redis-sentinel \
		|| echo "without redis-sentinel the chaos test is skipped"
	@command -v caddy >/dev/null || $(MAKE) --no-print-directory apt PKG=caddy \
		|| echo "without caddy the chaos test is skipped"
	@command -v chromium >/dev/null || $(MAKE) --no-print-directory apt PKG=chromium

apt:
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PKG) >/dev/null; \
	else \
		echo "$(PKG) is missing: run 'sudo apt-get install $(PKG)' and try again"; exit 1; \
	fi

lint: $(STAMP) $(WEB_DEPS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(WEB)/node_modules/.bin/tsc -p $(WEB)/tsconfig.json

test: $(STAMP) $(WEB_DEPS) $(POCKET) services lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) --durations=25

check: test

bench: $(STAMP) $(WEB_DEPS)
	$(BIN)/cuarenta bench all

fuzz: $(STAMP)  ## the long fuzzing run against a real server: FUZZ_SECONDS=300 make fuzz
	$(BIN)/pytest -m fuzz -s -q -p no:cacheprovider tests/server/test_fuzz.py

# The README's pictures: the browser tests that draw them, writing into docs/screenshots/.
screenshots: $(STAMP) $(WEB_DEPS) services
	CUARENTA_README_SHOTS=1 $(BIN)/pytest -q -p no:cacheprovider tests/web/test_table_fits.py tests/web/test_club_night.py

# docker-compose.yml run for real with podman (no Docker engine or registry needed): images built
# from a debootstrapped Debian 12 and Debian's packages, then a club night played through Caddy
# while a replica is killed and the whole stack goes down and up (deploy/deploy_test.py; a few
# minutes, the first run longer). Not part of `make test`. DEPLOY_CACHE (default
# /var/tmp/cuarenta-deploy) keeps the root filesystem and podman-compose between runs.
# runc: Debian 12's crun refuses this kind of host's hybrid cgroup mounts (deploy/podman.py).
DEPLOY_CACHE ?= /var/tmp/cuarenta-deploy
PODMAN_COMPOSE := $(DEPLOY_CACHE)/podman-compose/bin/podman-compose

$(PODMAN_COMPOSE): deploy/podman-compose.txt
	@$(PYTHON) -m venv $(DEPLOY_CACHE)/podman-compose
	@$(DEPLOY_CACHE)/podman-compose/bin/pip install --quiet --disable-pip-version-check -r deploy/podman-compose.txt
	@touch $@

deploy-test: $(STAMP)
	@command -v podman >/dev/null || $(MAKE) --no-print-directory apt PKG=podman
	@command -v debootstrap >/dev/null || $(MAKE) --no-print-directory apt PKG=debootstrap
	@command -v runc >/dev/null || $(MAKE) --no-print-directory apt PKG=runc
	@$(MAKE) --no-print-directory $(PODMAN_COMPOSE)
	DEPLOY_CACHE=$(DEPLOY_CACHE) PODMAN_COMPOSE=$(PODMAN_COMPOSE) $(BIN)/python -m deploy.deploy_test

# Re-pin every Python dependency after changing pyproject.toml.
lock:
	$(PYTHON) -m venv /tmp/cuarenta-lock && /tmp/cuarenta-lock/bin/pip install --quiet --upgrade pip
	/tmp/cuarenta-lock/bin/pip install --quiet -e '.[dev]'
	/tmp/cuarenta-lock/bin/pip freeze --exclude-editable > requirements.lock
	rm -rf /tmp/cuarenta-lock

clean:
	rm -rf $(VENV) $(WEB)/node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis
