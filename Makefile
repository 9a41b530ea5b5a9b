# Every target that needs the virtual environment builds it first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
EXTRAS := dev,dask,notebooks,sql,agents

.PHONY: setup test bench run notebooks findings screenshot models models-play-data models-deal-data models-round-data clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

setup: $(STAMP)

# The browser tests (tests/inspection/test_page.py) need Debian's chromium and chromium-driver: installed
# here when missing, never by `make run`.
test: setup
	scripts/ensure-chromium
	$(PY) -m pytest -q

bench: setup
	$(PY) -m benchmarks.bench --record

run: setup
	$(VENV)/bin/sichuan simulate --hands 1000000 --out runs/demo

# The shipped experiments at a small size, then every notebook executed into reports/ (HTML + .ipynb).
notebooks: setup
	$(PY) -m experiments.notebooks --make-runs --runs runs/notebooks --out reports

# The shipped experiments at the findings' size and seed (experiments/findings.py), then the
# README's Findings section rewritten from the results.
findings: setup
	$(PY) -m experiments.findings --runs runs/findings --readme README.md

# The README's picture of the hand viewer, docs/viewer.png (not made by the tests, so a test run
# leaves the repo unchanged): a blood-flow hand with seven wins, at its last win.
SHOT_PAGE := runs/viewer-screenshot.html
screenshot: setup
	scripts/ensure-chromium
	mkdir -p runs
	$(VENV)/bin/sichuan trace --rules flow --seed 1 --hand 11 --format html -o $(SHOT_PAGE)
	$(PY) scripts/screenshot.py $(SHOT_PAGE) docs/viewer.png

# The learned players' shipped models (README: Learned players): a searching seat's decisions of
# play in battle and flow (seed 102: the benches judge on seed 1's walls; about an hour on 2
# cores), then one whose exchange and void searched (seed 105; about an hour), then a model for
# each question and blood (minutes); then a round of expert iteration in battle: a seat searching
# with those models as its rollout policy (seed 106, 21,000 hands, about 40 minutes), and the
# battle model trained again on both datasets. Every stage is a command that resumes where it
# stopped (a round's dataset refuses to resume once the models it plays have changed); each pair
# of datasets plays side by side, one core each.
MODEL_HANDS ?= 40000
DEAL_HANDS  ?= 20000
ROUND_HANDS ?= 21000
MODEL_DATA  := runs/models
models: models-play-data models-deal-data
	$(VENV)/bin/sichuan learn $(MODEL_DATA)/battle-s102 --out strategies/models/battle.npz
	$(VENV)/bin/sichuan learn $(MODEL_DATA)/flow-s102 --out strategies/models/flow.npz
	for rules in battle flow; do for d in exchange void; do \
		$(VENV)/bin/sichuan learn $(MODEL_DATA)/$$rules-xv105 --decision $$d --out strategies/models/$$rules-$$d.npz || exit 1; \
	done; done
	$(MAKE) models-round-data
	$(VENV)/bin/sichuan learn $(MODEL_DATA)/battle-s102 $(MODEL_DATA)/battle-ei106 --out strategies/models/battle.npz

# expert iteration's dataset: its rollouts play the models strategies/models/ holds now
models-round-data: setup
	mkdir -p $(MODEL_DATA)
	$(VENV)/bin/sichuan dataset --rules battle --seats "search[policy=learned],expert,expert,expert" --record 0 \
		--hands $(ROUND_HANDS) --seed 106 --chunk-hands 200 --tables 50 --out $(MODEL_DATA)/battle-ei106 -q

models-play-data: setup
	mkdir -p $(MODEL_DATA)
	$(VENV)/bin/sichuan dataset --rules battle --seats "search,expert,expert,expert" --record 0 --hands $(MODEL_HANDS) \
		--seed 102 --chunk-hands 200 --tables 50 --out $(MODEL_DATA)/battle-s102 -q & a=$$!; \
	$(VENV)/bin/sichuan dataset --rules flow --seats "search,expert,expert,expert" --record 0 --hands $(MODEL_HANDS) \
		--seed 102 --chunk-hands 200 --tables 50 --out $(MODEL_DATA)/flow-s102 -q & b=$$!; \
	wait $$a && wait $$b

models-deal-data: setup
	mkdir -p $(MODEL_DATA)
	pids=""; for rules in battle flow; do \
		$(VENV)/bin/sichuan dataset --rules $$rules --seats "expert+exchange=search+void=search,expert,expert,expert" \
			--record 0 --hands $(DEAL_HANDS) --seed 105 --chunk-hands 200 --tables 50 --out $(MODEL_DATA)/$$rules-xv105 -q & \
		pids="$$pids $$!"; \
	done; for p in $$pids; do wait $$p || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
