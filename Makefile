# The two set-up commands of the README: `make run` and `make test`.
PYTHON ?= python3
# The environment every target runs in: VENV=... if given, else the active virtualenv
# ($VIRTUAL_ENV), else this checkout's .venv, else (a git worktree) the main checkout's
# .venv; only if there is none is .venv made here and phylanx installed into it.  An
# environment this Makefile did not make is used as it is (nothing is installed into
# it), with this checkout first on PYTHONPATH, so that a worktree's targets run its own
# code, not the code the environment has installed.
MAIN_CHECKOUT := $(patsubst %/.git,%,$(shell git rev-parse --path-format=absolute \
	--git-common-dir 2>/dev/null))
VENV ?= $(firstword $(VIRTUAL_ENV) $(wildcard .venv) \
	$(if $(MAIN_CHECKOUT),$(wildcard $(MAIN_CHECKOUT)/.venv)) .venv)
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
ifeq ($(VENV),.venv)
READY := $(STAMP)
else
READY := $(PY)
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))
endif

.PHONY: run test lint docs bench clean

.venv/bin/python:
	$(PYTHON) -m venv .venv

.venv/.installed: .venv/bin/python pyproject.toml
	.venv/bin/python -m pip install --quiet --upgrade pip
	.venv/bin/python -m pip install --quiet -e '.[all]'
	touch .venv/.installed

# the logistic regression on one process, then the same function, unchanged, on inputs
# tiled by rows over 1 and 2 localities (MPI ranks, one BLAS thread each so that the
# second locality is the only extra core)
LRA_TILED := examples/lra.py --tiled --samples 50000 --features 100 --iterations 50 \
	--alpha 1e-5 --repeat 2
run: $(READY)
	$(PY) examples/lra.py
	OPENBLAS_NUM_THREADS=1 $(PY) -m phylanx run -n 1 $(LRA_TILED)
	OPENBLAS_NUM_THREADS=1 $(PY) -m phylanx run -n 2 $(LRA_TILED)

# the suite on two worker processes (pytest-xdist), a test file's tests on one of them, so
# both cores of a 2-core machine work; `pytest` alone runs it in one process.  Python's
# bytecode cache stays on for it even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE): the suite starts hundreds of interpreters (MPI ranks, command
# lines), each of which would compile phylanx from source again, and each worker would
# rewrite every test module again (test_mpi.py alone: 29.5 s of CPU without it, 16.1 with)
test: $(READY)
	$(PY) -m ruff check phylanx tests benchmarks examples
	$(PY) -m phylanx primitives --markdown --check docs/primitives.md
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadfile

lint: $(READY)
	$(PY) -m ruff check phylanx tests benchmarks examples

docs: $(READY)
	$(PY) -m phylanx primitives --markdown > docs/primitives.md

bench: $(READY)
	$(PY) benchmarks/overhead.py

# (this checkout's own .venv only: VENV may be another checkout's or the active one)
clean:
	rm -rf .venv build *.egg-info .pytest_cache .ruff_cache
