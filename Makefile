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

run: $(STAMP)
	$(PY) examples/lra.py

test: $(STAMP)
	$(PY) -m ruff check phylanx tests benchmarks examples
	$(PY) -m phylanx primitives --markdown --check docs/primitives.md
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check phylanx tests benchmarks examples

docs: $(STAMP)
	$(PY) -m phylanx primitives --markdown > docs/primitives.md

bench: $(STAMP)
	$(PY) benchmarks/overhead.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
