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
    assert json.loads((out / "experiment.json").read_text())["until"] == u
    assert "until width 0.3" in run_cli("experiment", "report", out).output


def test_max_walls_caps_the_second_stage_and_the_report_says_which_arms_got_there(tmp_path):
    res = run_cli("compare", "greedy", "efficient", "--hands", 200, "--until-width", 0.01, "--max-walls", 400,
                  "--workers", 1)
    assert "planned 400 (capped by --max-walls 400); 0 of 1 arms reached it (not: A)" in res.output
    assert "pilot: 200 walls" in res.output and "400 of 400 walls: widest interval" in res.output
