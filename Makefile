# `make demo` and `make test` do all set-up on a fresh clone: they create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_PACKAGES := sandbox/node_packages

.PHONY: demo test bench images clean

$(STAMP): pyproject.toml $(NODE_PACKAGES)/package-lock.json
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "detour needs Python >= 3.12, but $(PYTHON) is " + sys.version.split()[0] + ": install 3.12 (pyenv reads .python-version) or run make PYTHON=python3.12")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	cd $(NODE_PACKAGES) && npm ci --silent --no-audit --no-fund
	touch $(STAMP)

demo: $(STAMP)
	bash examples/demo.sh

test: $(STAMP)
	$(BIN)/pytest

# detour/sandbox, detour/proxy and detour/replicas (needs a Docker engine; no registry).
images: $(STAMP)
	$(BIN)/detour images build

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache build $(NODE_PACKAGES)/node_modules
