# Every target that needs the virtual environment builds it first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
EXTRAS := dev,dask

.PHONY: setup test bench run clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

setup: $(STAMP)

test: setup
	$(PY) -m pytest -q

bench: setup
	$(PY) -m simcore.bench

run: setup
	$(VENV)/bin/sichuan simulate --hands 1000000 --out runs/demo

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
