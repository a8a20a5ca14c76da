# Colonia — the two commands every user needs: `make run` and `make test`.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help install anchors run test test-long lint unit e2e browser jstools nginx bench schemathesis load load-curve clean messages catalogues

help:
	@echo "make run    install into .venv, migrate, load the default variants, start everything"
	@echo "make test   install and run the whole suite (lint, import contracts, tests)"
	@echo "make test-long  the same, thorough: many more random games, whole games in the browser"

$(STAMP): pyproject.toml
	@test -x $(PY) || "$$(bin/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

# Translations: the .mo files are compiled from locale/*/LC_MESSAGES/*.po on every install
# (pure Python, no GNU gettext needed; only stale ones are rewritten).
catalogues: $(STAMP)
	@$(PY) config/catalogues.py

install: $(STAMP) catalogues

# The OpenSpiel anchor of the AI (python -m ailab.anchor) and its tests; CI installs it too.
anchors: install
	$(PY) -m pip install --quiet -e ".[dev,anchors]"

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_variants
	$(PY) -m config.run

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# Debian's Chromium drives the browser tests; installed here when we may (root), never downloaded.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "could not install chromium: browser tests will fail"; \
	  else echo "install Debian's chromium package to run the browser tests"; fi; }

# Debian's nginx fronts the multi-process stack of deploy/ (tests/deploy); installed here
# when we may (root), else those tests skip and say why.
nginx:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null \
	      && { nginx -s quit 2>/dev/null || true; }) \
	      || echo "could not install nginx: the deploy/ tests will skip"; \
	  else echo "install Debian's nginx package to run the deploy/ tests"; fi; }

# axe-core, the accessibility audit the browser tests run inside Chromium (tests/e2e/audit.py):
# the npm package pinned by package-lock.json, into node_modules/ (npm installed from Debian
# when we may; no browser is downloaded).
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null) \
	      || echo "could not install npm: the accessibility audit will fail"; \
	  else echo "install Debian's npm package to run the accessibility audit"; fi; }
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --no-audit --no-fund --loglevel=error && touch $(NODE_STAMP); fi

jstools: $(NODE_STAMP)


# Test workers (pytest-xdist; each has its own test database, Redis namespace, ports and
# temporary folders): one more than the machine's cores, because about a third of a worker's
# time is spent waiting on the servers, browsers and sockets its tests start (two-core
# machine: 6m21s with two workers, 5m53s with three). worksteal: a worker that runs out of
# tests takes queued ones from the others, so a few slow tests do not leave a core idle at the
# end. (Not loadgroup: it keys its work by test id and silently runs one of schemathesis's many
# cases that share an id.) The ten slowest tests are listed at the end.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_ARGS := -n $(TEST_WORKERS) --dist worksteal --durations=10

# Bytecode caches on for the test run even where the environment turns them off
# (PYTHONDONTWRITEBYTECODE=1, as in some container images): without them every xdist worker
# and every server a test starts compiles the project and re-rewrites the test modules' asserts
# (collection 17 s -> 5 s per process on the two-core machine).
test test-long: export PYTHONDONTWRITEBYTECODE :=

test: install browser jstools nginx lint
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# Nightly-style: the long Hypothesis profile (ten times the random games per property and
# contract test) and the tests marked `long` (a whole game per game in the browser, the
# 200-game footprint acceptance run); see tests/conftest.py.
test-long: install browser jstools nginx lint
	HYPOTHESIS_PROFILE=long SCHEMATHESIS_MAX_EXAMPLES=$${SCHEMATHESIS_MAX_EXAMPLES:-60} \
	  $(VENV)/bin/pytest $(PYTEST_ARGS)

bench: install
	$(PY) -m tools.bench newhaven --players 2 --games 200
	$(PY) -m tools.bench nouvellefrance --players 2 --games 50

# The API against its live schema with a long budget (the suite runs a short one).
schemathesis: install
	SCHEMATHESIS_MAX_EXAMPLES=$${SCHEMATHESIS_MAX_EXAMPLES:-500} $(VENV)/bin/pytest -q -s tests/api

# The load curve against a running `make run` (see scripts/load.py --help).
load: install
	$(PY) scripts/load.py --curve

# The curve on the embedded stack, then through the proxy stack of deploy/ (each started
# and stopped by the script): 10/100/1,000 sockets over 20 and 100 tables, two web processes.
load-curve: install nginx
	$(PY) scripts/load.py --stack both --curve --users 10 $(LOAD_ARGS)

# After adding or changing user-facing text: refresh the catalogues, then translate the new
# entries in locale/{de,fr,it}/LC_MESSAGES/*.po (see "Translations" in README.md).
# Needs GNU gettext's xgettext/msgmerge (Debian: gettext), for engineers only.
MESSAGE_IGNORES := --ignore=.venv --ignore=var --ignore=tests --ignore=static/vendor \
	--ignore=node_modules --ignore='*.egg-info'
messages: $(STAMP)
	DJANGO_SETTINGS_MODULE=config.settings.base $(PY) -m games.data_texts
	$(PY) manage.py makemessages --no-obsolete -l de -l fr -l it $(MESSAGE_IGNORES)
	$(PY) manage.py makemessages --no-obsolete -d djangojs -l de -l fr -l it $(MESSAGE_IGNORES)
	@$(PY) config/catalogues.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis .ruff_cache node_modules
