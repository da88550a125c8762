# splitpoker: the two commands of the README.
#   make demo   install everything, train MaskablePPO briefly, evaluate it, write plot + logs
#   make test   install everything and run the test suite
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PIP     = $(PY) -m pip
STAMP   = $(VENV)/.installed

.PHONY: install test test-fast demo lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# CPU torch from this machine's disk first, so nothing pulls a multi-GB CUDA build.
	# --no-compile: no byte-compiling of all 15,000 installed .py files (40 s on one core); Python
	# compiles the modules a run imports when it first imports them, and keeps them
	$(PIP) install --disable-pip-version-check --no-compile -q torch==2.13.0
	$(PIP) install --disable-pip-version-check --no-compile -q -e ".[train,rllib,dev]"
	touch $(STAMP)

install: $(STAMP)

test: install
	$(PY) -m pytest -q -n auto

test-fast: install
	$(PY) -m pytest -q -n auto -m "not slow"

demo: install
	$(PY) scripts/demo.py $(DEMO_ARGS)

lint: install
	$(PY) -m ruff check splitpoker envs agents scripts tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
