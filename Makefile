# The README's two commands: `make demo` and `make test`. Both create .venv on first use; `demo`
# installs coupsolve alone, `test` its `test` extra too (pytest, hypothesis, Ray, MkDocs: most of the
# install's time).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CREATED := $(VENV)/.created
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test test-slow bench clean

$(CREATED):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	touch $(CREATED)

$(STAMP): pyproject.toml $(CREATED)
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

demo: $(STAMP)
	$(VENV)/bin/coupsolve demo

# Two pytest-xdist workers (the tests that start a Ray cluster share one, see tests/test_distributed.py).
XDIST := -n 2 --dist loadgroup

# tests/install_browser.sh: Debian's chromium and chromium-driver for the web page's browser tests, when
# missing and run as root (else one line, and those tests skip saying why). The 40 slowest tests are
# listed at the end: the candidates for the `slow` marker when the default run grows.
test: $(TEST_STAMP)
	bash tests/install_browser.sh
	$(PY) -m pytest -q --durations=40 $(XDIST)

test-slow: $(TEST_STAMP)
	bash tests/install_browser.sh
	$(PY) -m pytest -q -m slow $(XDIST)

# Benchmarks against OpenSpiel and LiteEFG (about 50 minutes; BENCH_ARGS=--quick for a few minutes;
# BENCH_ARGS=--docs also writes the summary into docs/benchmarks.md).
BENCH_ARGS ?=
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
