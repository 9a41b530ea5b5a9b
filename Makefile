# Every target that needs the virtual environment builds it first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
EXTRAS := dev,dask,notebooks,sql

.PHONY: setup test bench run notebooks findings clean

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

# The shipped experiments at a small size, then every notebook executed into reports/ (HTML + .ipynb).
notebooks: setup
	$(PY) -m experiments.notebooks --make-runs --runs runs/notebooks --out reports

# The shipped experiments at the findings' size and seed (experiments/findings.py), then the
# README's Findings section rewritten from the results.
findings: setup
	$(PY) -m experiments.findings --runs runs/findings --readme README.md

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
