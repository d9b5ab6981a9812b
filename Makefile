# `make demo` and `make test` do all set-up on a fresh clone: .venv, detour's sandbox runtime,
# its Node packages, and (as root, with apt) the Debian packages pip cannot install.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_PACKAGES := sandbox/node_packages
NODE_STAMP := $(NODE_PACKAGES)/node_modules/.installed
# Official Node clients the tests run in sandboxes (too large for detour's own packages).
TEST_NODE := tests/node_clients
TEST_NODE_STAMP := $(TEST_NODE)/node_modules/.installed
RUNTIME := sandbox/runtime
RUNTIME_STAMP := $(RUNTIME)/venv/.installed

.PHONY: demo test test-timings fidelity bench security fuzz images provision docs clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "detour needs Python >= 3.12, but $(PYTHON) is " + sys.version.split()[0] + ": install 3.12 (pyenv reads .python-version) or run make PYTHON=python3.12")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# What pip cannot install: as root, apt installs it; otherwise the exact command is printed.
provision: $(STAMP)
	$(BIN)/detour doctor --install

$(NODE_STAMP): $(NODE_PACKAGES)/package-lock.json | provision
	cd $(NODE_PACKAGES) && npm ci --silent --no-audit --no-fund
	touch $(NODE_STAMP)

$(TEST_NODE_STAMP): $(TEST_NODE)/package-lock.json | provision
	cd $(TEST_NODE) && npm ci --silent --no-audit --no-fund
	touch $(TEST_NODE_STAMP)

# detour's sandbox runtime: what agent code imports unless it brings its own (not detour's venv).
$(RUNTIME_STAMP): $(RUNTIME)/requirements.txt
	$(PYTHON) -m venv --clear $(RUNTIME)/venv
	$(RUNTIME)/venv/bin/pip install --quiet -r $(RUNTIME)/requirements.txt
	touch $(RUNTIME_STAMP)

demo: $(RUNTIME_STAMP) provision $(NODE_STAMP)
	bash examples/demo.sh

# The docker tests get an engine: the one that answers, or one tests/engine.py starts and stops.
# Two workers, a test file each at a time (its fixtures stay together), the longest files first
# (tests/module_order.py; xdist's own reorder would put them by test count); then, alone, the
# tests marked `exclusive` (they count every sandbox on the machine). A failure in either fails make.
PARALLEL := -n 2 --dist loadfile --no-loadscope-reorder
test: $(RUNTIME_STAMP) provision $(NODE_STAMP) $(TEST_NODE_STAMP)
	$(BIN)/python -m tests.engine sh -c '$(BIN)/pytest $(PARALLEL) -m "not exclusive"; parallel=$$?; \
		$(BIN)/pytest -m exclusive && exit $$parallel'
	# The store, replicas, DSL and platform API again, with environments in Postgres (no
	# Docker engine needed: the first run's engine is gone by now).
	# The generated packs' schemathesis properties (2.5 min) run in the first pass only: they
	# check routes and shapes against the vendors' descriptions; the state tests that stay here
	# cover the same packs on Postgres. With them, the stack's parts killed mid-run and the rollouts
	# whose callers hang up, on a stack whose environments are in Postgres (#50).
	DETOUR_REQUIRE_DOCKER= DETOUR_TEST_DATABASE=postgres $(BIN)/pytest $(PARALLEL) tests/unit \
		tests/e2e/test_parts_killed.py tests/e2e/test_rollouts_hung_up.py -k "not properties"

# The first pass again, measuring each test module's time into tests/module_seconds.json (the
# order make test schedules them in): after adding or much changing a slow test module.
test-timings: $(RUNTIME_STAMP) provision $(NODE_STAMP) $(TEST_NODE_STAMP)
	$(BIN)/python -m tests.engine $(BIN)/pytest $(PARALLEL) -m "not exclusive" --record-module-seconds

# The replicas against the vendors' references, a score per family (also part of `make test`);
# then each pack's official-client tests run again, and the cases each passed are written to
# mock_services/fidelity.json (detour services and the service pages read it; not in `make test`).
fidelity: $(RUNTIME_STAMP) provision $(NODE_STAMP) $(TEST_NODE_STAMP)
	$(BIN)/pytest -s tests/fidelity
	$(BIN)/python -m tests.fidelity.client_scores

# detour/sandbox, detour/proxy and detour/replicas (needs a Docker engine; no registry).
images: $(STAMP) $(NODE_STAMP)
	$(BIN)/detour images build

bench: $(RUNTIME_STAMP) provision $(NODE_STAMP)
	$(BIN)/python -m bench.run

# The proxy's parsers and decisions fuzzed (the properties make test runs briefly), each for 20,000 examples.
fuzz: $(STAMP)
	DETOUR_FUZZ=1 $(BIN)/pytest tests/unit/test_proxy_fuzz.py tests/unit/test_hosts.py

# The public egress corpus (a clone's cases/ in AEB_CASES) through the proxy: containment and false positives.
security: $(STAMP)
	AEB_CASES=$(AEB_CASES) $(BIN)/python -m bench.security

# The documentation site (mkdocs.yml) into site/; `$(BIN)/mkdocs serve` shows it while it is edited.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache build site dist $(NODE_PACKAGES)/node_modules $(TEST_NODE)/node_modules $(RUNTIME)/venv
