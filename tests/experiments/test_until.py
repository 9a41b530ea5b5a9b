"""Runs that stop at the precision asked (issue 36, item 4): a pilot, then one second stage fixed
by it. The rule keeps its intervals' coverage (simulated on heavy-tailed, mostly-zero per-wall
differences like the engine's), and the commands record and report what they played."""

import json
import math

import numpy as np

from experiments.until import MARGIN, planned_walls
from simcore.runs.analysis import Z95
from tests.support.cli import run_cli


def test_the_second_stage_is_what_the_pilot_says_the_width_needs():
    n, capped = planned_walls([2.0, 1.0], 0.1, 1000)
    assert n == math.ceil(MARGIN * (2 * Z95 * 2.0 / 0.1) ** 2) and not capped
    assert planned_walls([0.01], 0.1, 1000) == (1000, False)          # the pilot is enough
    assert planned_walls([2.0], 0.1, 1000, max_walls=5000) == (5000, True)


def test_the_rule_keeps_its_coverage_on_heavy_tailed_differences():
    rng = np.random.default_rng(36)
    reps, pilot, width = 1500, 800, 0.5
    covered = narrow = 0
    truth = 0.17 * 0.3

    def draw(n):   # 83% of walls: no difference; else a t(3) tail
        return np.where(rng.random(n) < 0.17, 0.3 + 4 * rng.standard_t(3, n), 0.0)

    for _ in range(reps):
        x = draw(pilot)
        total, _ = planned_walls([x.std(ddof=1)], width, pilot)
        x = np.concatenate([x, draw(total - pilot)])
        half = Z95 * x.std(ddof=1) / math.sqrt(len(x))
        covered += abs(x.mean() - truth) <= half
        narrow += 2 * half <= width
    assert 0.935 <= covered / reps <= 0.965, covered / reps
    assert narrow / reps >= 0.8, narrow / reps


def test_compare_until_width_records_what_it_played(tmp_path):
    out = tmp_path / "u"
    rep = json.loads(run_cli("compare", "greedy", "efficient", "--hands", 300, "--until-width", 0.3, "--out", out,
                             "--json", "-q", "--workers", 1).stdout)
    u = rep["until"]
    assert u["pilot_walls"] == 300 and u["walls"] == u["planned_walls"] == rep["walls"] > 300
    assert u["reached"] == {"A": rep["rows"][0]["diff_high"] - rep["rows"][0]["diff_low"] <= 0.3}
    plan = json.loads((out / "experiment.json").read_text())["until_plan"]
    assert plan["pilot"] == 300 and plan["planned"] == u["planned_walls"] and plan["width"] == 0.3
    assert "until width 0.3" in run_cli("experiment", "report", out).output


def test_max_walls_caps_the_second_stage_and_the_report_says_which_arms_got_there(tmp_path):
    res = run_cli("compare", "greedy", "efficient", "--hands", 200, "--until-width", 0.01, "--max-walls", 400,
                  "--workers", 1)
    assert "planned 400 (capped by --max-walls 400); 0 of 1 arms reached it (not: A)" in res.output
    assert "pilot: 200 walls" in res.output and "second stage: 400 of 400 walls (100%)" in res.output


def _cell(n, k, deff=1.0):
    return {"pigs": {"seat_hands": n, "pigs": k, "deff": deff}}


def test_rates_plan_from_the_pilots_rate_and_design_effect():
    from experiments.until import planned_hands

    # 100 pigs in 10,000 seat-hands, +-25%: 1.96^2 / 0.25^2 * 0.99 / 0.01 = 6,085 seat-hands: the pilot is enough
    assert planned_hands([_cell(10_000, 100)], 0.25, 2500) == (2500, False)
    # 4 pigs in 40,000: p = 1e-4 needs 983,000 seat-hands, 24.6 times the pilot (x1.2)
    n, capped = planned_hands([_cell(40_000, 4), _cell(40_000, 400)], 0.25, 10_000)
    assert n == math.ceil(MARGIN * (Z95 / 0.25) ** 2 * (1 - 1e-4) / 1e-4 / 40_000 * 10_000) and not capped
    # no pig seen: planned as if one had been; a design effect scales it; the cap holds
    assert planned_hands([_cell(40_000, 0)], 0.25, 10_000) == planned_hands([_cell(40_000, 1)], 0.25, 10_000)
    assert planned_hands([_cell(40_000, 4, 2.0)], 0.25, 10_000)[0] > n
    assert planned_hands([_cell(40_000, 4)], 0.25, 10_000, max_hands=50_000) == (50_000, True)


PIGS = """
name = "pigs-until"
kind = "cells"
hands = 300
show = ["pigs"]
until_relative = 0.25
max_hands = 20000
[grid]
play = ["greedy"]
void = ["random"]
rules = ["battle", "flow"]
"""


def test_a_cells_spec_plays_until_its_pig_rates_are_precise(tmp_path):
    spec = tmp_path / "pigs.toml"
    spec.write_text(PIGS)
    out = tmp_path / "p"
    rep = json.loads(run_cli("experiment", "run", spec, "--out", out, "--json", "-q", "--workers", 1).stdout)
    u = rep["until"]
    assert u["pilot_hands"] == 300 and u["hands"] == u["planned_hands"] == rep["hands"] > 300
    for c in rep["cells"]:
        p = c["pigs"]
        assert u["reached"][c["cell"]] == ((p["rate_high"] - p["rate_low"]) / 2 <= 0.25 * p["rate"])
    assert "until every pig rate is within 25%" in run_cli("experiment", "report", out).output


def test_until_relative_needs_a_share_and_the_pig_section(tmp_path):
    from tests.support.experiments import assert_refused

    assert_refused(tmp_path, "a", PIGS.replace("0.25", "1.5"), "expected a share between 0 and 1")
    assert_refused(tmp_path, "b", PIGS.replace('show = ["pigs"]', 'show = ["spread"]'), 'needs "pigs" in show')
    res = run_cli("experiment", "run", "flower-pigs", "--until-width", 0.1, "--out", tmp_path / "x", expect=2)
    assert "--until-width sets the width of duplicate intervals" in res.output and res.output.count("\n") == 1


def test_the_python_api_takes_the_same_options(tmp_path):
    import experiments
    import simcore
    from experiments.spec import parse_spec

    spec = parse_spec({"name": "py", "kind": "duplicate", "hands": 200, "field": "efficient",
                       "arms": {"a": "greedy", "b": "efficient"}, "baseline": "b"}, source="py")
    rep = experiments.run(spec, tmp_path / "e", workers=1, estimator="plain", until_width=0.5, max_walls=300)
    assert rep["estimator"] == "plain" and rep["until"]["walls"] == rep["walls"] <= 300
    run = simcore.simulate(300, seats="greedy", luck=True)
    assert run.seats["luck"].notna().all()
