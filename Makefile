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

# The learned players' shipped models (README: Learned players): a seat searching the questions of
# play where its hand is ready or one discard from it (search[near=0]: where the learned play acts;
# most of search's edge, at a third of its cost) in battle and flow (seed 102: the benches judge on
# seed 1's walls), then one whose exchange and void searched (seed 105), then a model for each
# question and blood; then two rounds of expert iteration in each blood: a seat searching with the
# models of the round before as its rollout policy (seeds 106, 107), and the play models trained
# again on every dataset so far. Every stage is a command that resumes where it stopped (training
# writes the same bytes again, so a round's dataset, which refuses to resume once the models it
# plays have changed, resumes); each pair of datasets plays side by side, one core each. The last
# round's play models take the margin duplicate play chose (PLAY_MARGIN: README, Learned players;
# empty: the validation hands'), the models the rounds play their validation hands' margin.
# Times on 2 cores: README, Learned players.
MODEL_HANDS ?= 40000
DEAL_HANDS  ?= 20000
ROUND_HANDS ?= 30000
ROUND_SEEDS ?= 106 107
PLAY_MARGIN ?= -0.25
MODEL_DATA  := runs/models
comma       := ,
LEARN       := $(VENV)/bin/sichuan learn
models: models-play-data models-deal-data
	for rules in battle flow; do \
		$(LEARN) $(MODEL_DATA)/$$rules-s102 --out strategies/models/$$rules.npz || exit 1; \
		for d in exchange void; do \
			$(LEARN) $(MODEL_DATA)/$$rules-xv105 --decision $$d --out strategies/models/$$rules-$$d.npz || exit 1; \
		done; \
	done
	rounds=""; for seed in $(ROUND_SEEDS); do \
		$(MAKE) models-round-data ROUND_SEED=$$seed || exit 1; \
		rounds="$$rounds $$seed"; \
		for rules in battle flow; do \
			data="$(MODEL_DATA)/$$rules-s102"; for r in $$rounds; do data="$$data $(MODEL_DATA)/$$rules-ei$$r"; done; \
			margin=""; if [ $$seed = $(lastword $(ROUND_SEEDS)) ]; then margin="$(if $(strip $(PLAY_MARGIN)),--margin $(PLAY_MARGIN))"; fi; \
			$(LEARN) $$data $$margin --out strategies/models/$$rules.npz || exit 1; \
		done; \
	done

# a pair of datasets side by side, one core each: $(call two_datasets,SEATS,HANDS,SEED,NAME)
define two_datasets
	mkdir -p $(MODEL_DATA)
	pids=""; for rules in battle flow; do \
		$(VENV)/bin/sichuan dataset --rules $$rules --seats "$(1),expert,expert,expert" --record 0 --hands $(2) \
			--seed $(3) --chunk-hands 200 --tables 50 --out $(MODEL_DATA)/$$rules-$(4) -q & \
		pids="$$pids $$!"; \
	done; for p in $$pids; do wait $$p || exit 1; done
endef

models-play-data: setup
	$(call two_datasets,search[near=0],$(MODEL_HANDS),102,s102)

models-deal-data: setup
	$(call two_datasets,expert+exchange=search+void=search,$(DEAL_HANDS),105,xv105)

# a round of expert iteration's datasets: their rollouts play the models strategies/models/ holds now
ROUND_SEED ?= 106
models-round-data: setup
	$(call two_datasets,search[policy=learned$(comma)near=0],$(ROUND_HANDS),$(ROUND_SEED),ei$(ROUND_SEED))

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
