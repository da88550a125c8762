# splitpoker: the two commands of the README.
#   make demo   install everything, train MaskablePPO briefly, evaluate it, write plot + logs
#   make test   install everything and run the test suite's default tier (the slow tier apart)
#   make test-slow  the slow tier: every documented command, the two-node Ray cluster, the fault
#               matrices, the exhaustive checks (CI runs both: .ci/run); make test-all runs both
#   make serve  the strategy explorer in the browser (docs/explorer/explorer.md)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PIP     = $(PY) -m pip
STAMP   = $(VENV)/.installed
TORCH   ?= 2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
SUDO    ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo -n)

.PHONY: install test test-slow test-all test-fast demo serve lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# PyTorch first, the CPU build, so that nothing later pulls PyPI's multi-GB CUDA build (the
	# default of `pip install torch` on Linux): PyTorch's CPU wheel index is asked first (a disk
	# that holds the wheel, as this machine's does, serves it too), then the plain install (macOS,
	# where PyPI's build is the CPU one). A torch $(TORCH) already in the venv is kept: that is how
	# a GPU build is used (README, "The two commands").
	# pip would byte-compile what it installs on one core (about 45 s); it is compiled after on
	# every core instead (about 24 s on two). Not skipped: where PYTHONDONTWRITEBYTECODE is set
	# (this machine) nothing would ever cache the compiled modules and every process would compile
	# torch's again (tried: the suite took 180 s longer). Files that do not compile on this Python
	# (torch's py312_intrinsics.py) are skipped as pip skips them.
	$(PY) -c 'import sys, torch; sys.exit(torch.__version__.split("+")[0] != "$(TORCH)")' 2>/dev/null \
	  || $(PIP) install --disable-pip-version-check -q --no-compile --timeout 30 --retries 1 \
	       --extra-index-url $(TORCH_CPU_INDEX) "torch==$(TORCH)+cpu" \
	  || $(PIP) install --disable-pip-version-check -q --no-compile "torch==$(TORCH)"
	# rliable: tests/test_benchmark_stats.py checks the benchmark's IQM and intervals against it
	# (skipped without it, so the suite would not run every test). torchrl: tests/test_torchrl.py.
	$(PIP) install --disable-pip-version-check -q --no-compile -e ".[train,rllib,dev,rliable,torchrl,serve]"
	$(PY) -c 'import compileall, sysconfig; compileall.compile_dir(sysconfig.get_paths()["purelib"], quiet=2, workers=0)'
	# Debian's chromium for the explorer's browser test (tests/test_explorer_browser.py drives it
	# through Playwright's executable_path; Playwright's own browser download is not needed). Where
	# it cannot be installed (no apt-get, no root) the test is skipped and says why.
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	  || { command -v apt-get >/dev/null 2>&1 && $(SUDO) apt-get install -y -q chromium >/dev/null 2>&1; } \
	  || { command -v apt-get >/dev/null 2>&1 && $(SUDO) apt-get update -q >/dev/null 2>&1 \
	       && $(SUDO) apt-get install -y -q chromium >/dev/null 2>&1; } \
	  || echo "note: chromium could not be installed (apt-get install chromium): the browser test will be skipped"
	touch $(STAMP)

install: $(STAMP)

# the default tier: every test not marked slow (about 15 minutes on 2 cores; docs/architecture.md)
test: install
	$(PY) -m pytest -q -n auto -m "not slow" --durations=15

test-slow: install
	$(PY) -m pytest -q -n auto -m slow --durations=30

test-all: install
	$(PY) -m pytest -q -n auto --durations=30

test-fast: test

demo: install
	$(PY) scripts/demo.py $(DEMO_ARGS)

# the strategy explorer on http://127.0.0.1:8765 (docs/explorer/explorer.md); SERVE_ARGS="--port 9000 --model ..."
serve: install
	$(PY) scripts/serve.py $(SERVE_ARGS)

lint: install
	$(PY) -m ruff check splitpoker envs agents scripts tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
