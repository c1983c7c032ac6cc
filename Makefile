# Engram developer entry points. See docs/operations.md.
#
#   make install   create .venv (Python >= 3.12) and install pyproject deps (+ embedded, dev)
#   make run       embedded PostgreSQL+Redis (unless DATABASE_URL/REDIS_URL set), migrate,
#                  seed demo data, then web + Celery worker + beat until Ctrl-C
#   make test      ruff, makemigrations --check, pytest
#   make lint      ruff check + ruff format --check
#   make migrate   apply migrations (embedded stack unless DATABASE_URL set)
#   make screenshots  PNG of every console page with demo data → docs/screenshots/
#   make devstack  start embedded PostgreSQL+Redis and keep them up (make devstack-down)
#   make psql      psql on the embedded database
#
#   make devstack-status / shell / format / clean-data / clean-venv
#
#   Variables: PYTHON=/path/to/python3.12 (for a new .venv), PORT=8000 (make run),
#              PYTEST_ARGS="--create-db -k recall" (make test)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

VENV       ?= .venv
VENV_PY    := $(VENV)/bin/python
# PYTHON (optional) picks the interpreter for .venv; it is validated (>= 3.12) by
# scripts/find_python.sh, which otherwise searches PATH and pyenv. Deferred (=): only
# evaluated when .venv has to be (re)created.
PYTHON     ?=
BASE_PY     = $(shell PYTHON="$(PYTHON)" sh scripts/find_python.sh)
EXTRAS     ?= embedded,dev
DEVSTACK   := $(VENV_PY) scripts/devstack.py
# Runs a command with DATABASE_URL/REDIS_URL set, starting the embedded servers only for
# whichever of the two variables is unset, and stopping afterwards those it had to start
# (servers already up, e.g. from `make devstack`, are reused and left running).
WITH_STACK := $(DEVSTACK) exec --
# Like `make run`, the dev-only targets default to DEBUG (throwaway SECRET_KEY) unless set.
DEV_ENV    := DJANGO_DEBUG=$${DJANGO_DEBUG:-true}

.PHONY: help install venv run test lint format migrate screenshots devstack devstack-down \
        devstack-status psql shell clean-venv clean-data

help:
	@sed -n 's/^#   //p' Makefile

# The venv is (re)created when missing or when it was built from a Python < 3.12.
venv:
	@if [ ! -x "$(VENV_PY)" ] || ! "$(VENV_PY)" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
	  py="$(BASE_PY)"; [ -n "$$py" ] || exit 1; \
	  echo "make: creating $(VENV) with $$py ($$($$py -V 2>&1))"; \
	  rm -rf "$(VENV)"; "$$py" -m venv "$(VENV)"; \
	fi

# Quiet and idempotent: scripts/install_deps.py is a no-op while pyproject's deps are unchanged.
install: venv
	@$(VENV_PY) scripts/install_deps.py --extras "$(EXTRAS)"

run: install
	@$(VENV_PY) scripts/run_all.py

test: install
	$(VENV_PY) -m ruff check .
	$(WITH_STACK) bash -euo pipefail -c '\
	  DJANGO_SETTINGS_MODULE=config.settings.test $(VENV_PY) manage.py makemigrations --check --dry-run; \
	  $(VENV_PY) -m pytest -q $(PYTEST_ARGS)'

screenshots: install
	bash scripts/install_browser.sh
	$(WITH_STACK) $(VENV_PY) scripts/screenshots.py

lint: install
	$(VENV_PY) -m ruff check .
	$(VENV_PY) -m ruff format --check .

format: install
	$(VENV_PY) -m ruff check --fix .
	$(VENV_PY) -m ruff format .

migrate: install
	$(DEV_ENV) $(WITH_STACK) $(VENV_PY) manage.py migrate

# Start the embedded servers and leave them running until `make devstack-down`; every other
# target then reuses them instead of starting/stopping its own (saves ~1 s per command).
# In a shell: eval "$$(.venv/bin/python scripts/devstack.py up)"
devstack: install
	@$(DEVSTACK) up

devstack-down:
	@[ ! -x "$(VENV_PY)" ] || $(DEVSTACK) down

devstack-status: install
	@$(DEVSTACK) status

psql: install
	@$(DEVSTACK) psql

shell: install
	$(DEV_ENV) $(WITH_STACK) $(VENV_PY) manage.py shell

clean-venv:
	rm -rf "$(VENV)"

# Deletes .data/: the embedded databases and local files (stops the servers first).
clean-data: devstack-down
	rm -rf .data
