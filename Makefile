# The two set-up commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint docs bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all]'
	touch $(STAMP)

# the logistic regression on one process, then the same function, unchanged, on inputs
# tiled by rows over 1 and 2 localities (MPI ranks, one BLAS thread each so that the
# second locality is the only extra core)
LRA_TILED := examples/lra.py --tiled --samples 50000 --features 100 --iterations 50 \
	--alpha 1e-5 --repeat 2
run: $(STAMP)
	$(PY) examples/lra.py
	OPENBLAS_NUM_THREADS=1 $(PY) -m phylanx run -n 1 $(LRA_TILED)
	OPENBLAS_NUM_THREADS=1 $(PY) -m phylanx run -n 2 $(LRA_TILED)

# the suite on two worker processes (pytest-xdist), a test file's tests on one of them, so
# both cores of a 2-core machine work; `pytest` alone runs it in one process.  Python's
# bytecode cache stays on for it even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE): the suite starts hundreds of interpreters (MPI ranks, command
# lines), each of which would compile phylanx from source again, and each worker would
# rewrite every test module again (test_mpi.py alone: 29.5 s of CPU without it, 16.1 with)
test: $(STAMP)
	$(PY) -m ruff check phylanx tests benchmarks examples
	$(PY) -m phylanx primitives --markdown --check docs/primitives.md
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 2 --dist loadfile

lint: $(STAMP)
	$(PY) -m ruff check phylanx tests benchmarks examples

docs: $(STAMP)
	$(PY) -m phylanx primitives --markdown > docs/primitives.md

bench: $(STAMP)
	$(PY) benchmarks/overhead.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
