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
	# pip byte-compiles what it installs (about 40 s of one core): kept, since where
	# PYTHONDONTWRITEBYTECODE is set (this machine) nothing would ever cache the compiled modules
	# and every process would compile torch's again (tried: the suite took 180 s longer)
	$(PIP) install --disable-pip-version-check -q torch==2.13.0
	$(PIP) install --disable-pip-version-check -q -e ".[train,rllib,dev]"
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
