# The README's two commands: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/coupsolve demo

# Two pytest-xdist workers (the tests that start a Ray cluster share one, see tests/test_distributed.py).
XDIST := -n 2 --dist loadgroup

test: $(STAMP)
	$(PY) -m pytest -q $(XDIST)

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow $(XDIST)

# Benchmarks against OpenSpiel and LiteEFG (about 50 minutes; BENCH_ARGS=--quick for a few minutes;
# BENCH_ARGS=--readme also writes the summary into README.md).
BENCH_ARGS ?=
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
