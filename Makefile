# The two set-up commands of README.md live here: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-fast venv-demo venv-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# One stamp per extra set, redone when pyproject.toml changes.
# Bytecode compiled up front, as pip does for a regular install: an editable install otherwise
# compiles every module at each start where PYTHONDONTWRITEBYTECODE is set (tens of ms a run).
$(VENV)/.installed-%: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/pip install -q -e '.[$(subst +,$(comma),$*)]'
	$(BIN)/python -m compileall -q streamctl backends tui agents jobs
	touch $@

comma := ,

venv-demo: $(VENV)/.installed-all
venv-test: $(VENV)/.installed-all+test

## demo: install, fetch the JVM artifacts, start the sandbox, show it
demo: venv-demo
	scripts/system-deps
	$(BIN)/streamctl sandbox fetch
	$(BIN)/streamctl sandbox up
	scripts/demo-view

## lint: ruff, mypy and import-linter, configured in pyproject.toml (scripts/lint)
.PHONY: lint
lint: venv-test
	$(BIN)/python scripts/lint

## test: the static checks, then the whole suite (unit + integration against a real sandbox
## started by the fixtures)
test: venv-test lint
	scripts/system-deps
	$(BIN)/streamctl sandbox fetch --kraft --distributed
	$(BIN)/pytest

## test-fast: for development, the tests that start no service (no JVM, no fetch; tests/jvm_guard.py),
## four pytest workers (two a core: many tests wait on timeouts), property tests with a quarter of their examples
test-fast: venv-test
	$(BIN)/pytest -m "not integration" -n 4 --hypothesis-profile=fast

clean:
	rm -rf $(VENV) build *.egg-info
