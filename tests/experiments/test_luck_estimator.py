"""Luck-corrected duplicate (issue 36, item 3): the luck estimate is unbiased (it agrees with the
plain one on the same walls on six cells, large effects among them, with the shipped value model
and with a deliberately bad one), the reports give both, and a run's value model and estimator
are part of what a resume must match."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from benchmarks.luck import CELLS, agreement, bad_weights, cell_estimates
from simcore.contract.rules import preset
from simcore.runs.value_model import shipped
from tests.support.cli import run_cli

WALLS = 4000


@pytest.mark.slow
@pytest.mark.parametrize("cell", CELLS, ids=lambda c: f"{c[0]}-{c[1].rsplit('/', 1)[-1]}")
def test_luck_and_plain_agree_on_the_same_walls(cell):
    rules, arm, field = cell
    for weights in (None, bad_weights(preset(rules))):
        g = agreement(*cell_estimates(rules, arm, field, WALLS, weights))
        # the per-wall gap (the luck terms' difference) has mean zero: within 3.5 standard errors
        assert abs(g["z"]) < 3.5, (cell, g)
    # a bad model is unbiased but removes no variance: it adds some
    bad = agreement(*cell_estimates(rules, arm, field, WALLS, bad_weights(preset(rules))))
    assert bad["factor"] < 1


def test_the_report_gives_both_estimates_on_the_same_walls(tmp_path):
    out = tmp_path / "cmp"
    rep = json.loads(run_cli("compare", "expert+void=fewest", "expert", "--rules", "flow", "--hands", 1500, "--out",
                             out, "--json", "-q", "--workers", 1).stdout)
    assert rep["estimator"] == "luck"
    a = rep["rows"][0]
    assert a["diff"] == a["diff_luck"] and a["diff_plain"] is not None and a["diff_luck"] != a["diff_plain"]
    assert a["variance_factor"] == pytest.approx(a["sd_diff_plain"] ** 2 / a["sd_diff_luck"] ** 2)
    # the plain estimator's CPU comes from the luck terms' measured cost (which of the two is
    # cheaper is a timing, measured by the bench, not asserted here)
    cost = json.loads((out / "experiment.json").read_text())["luck_cost"]
    assert cost["walls"] > 0 and cost["plain_seconds"] > 0 and cost["luck_seconds"] > 0
    assert a["cpu_per_wall_luck"] > 0
    assert a["cpu_per_wall_plain"] == pytest.approx(a["cpu_per_wall_luck"] * cost["plain_seconds"] / cost["luck_seconds"],
                                                    rel=1e-3)
    run = json.loads((out / "A" / "rot-0" / "run.json").read_text())
    assert run["config"]["value_model"] == shipped(preset("flow"))[1]
    luck = pq.read_table(out / "A" / "rot-0" / "seats").column("luck").to_numpy()
    assert np.isfinite(luck).all() and (luck != 0).any()
    text = run_cli("experiment", "report", out).output
    assert "luck-corrected" in text and "plain diff" in text and "CPU per wall" in text


def test_the_plain_estimator_measures_no_luck(tmp_path):
    out = tmp_path / "cmp"
    rep = json.loads(run_cli("compare", "greedy", "efficient", "--hands", 300, "--estimator", "plain", "--out", out,
                             "--json", "-q", "--workers", 1).stdout)
    assert rep["estimator"] == "plain" and rep["command"].endswith("--estimator plain")
    a = rep["rows"][0]
    assert a["diff"] == a["diff_plain"] and a["diff_luck"] is None and a["variance_factor"] is None
    assert a["cpu_per_wall_luck"] is None and a["cpu_per_wall_plain"] > 0
    assert "value_model" not in json.loads((out / "A" / "rot-0" / "run.json").read_text())["config"]
    assert pq.read_table(out / "A" / "rot-0" / "seats").column("luck").null_count == 4 * 300
    # another estimator on the same directory is refused in one line
    res = run_cli("compare", "greedy", "efficient", "--hands", 300, "--out", out, "-q", "--workers", 1, expect=2)
    assert res.output.startswith("Error: ") and res.output.count("\n") == 1 and "plain estimator" in res.output


def test_a_run_measured_with_another_value_model_is_not_resumed(tmp_path):
    out = tmp_path / "cmp"
    run_cli("compare", "greedy", "efficient", "--hands", 200, "--out", out, "-q", "--workers", 1)
    path = out / "A" / "rot-1" / "run.json"
    m = json.loads(path.read_text())
    m["config"]["value_model"] = "0123456789abcdef"
    path.write_text(json.dumps(m))
    res = run_cli("compare", "greedy", "efficient", "--hands", 400, "--out", out, "-q", "--workers", 1, expect=2)
    assert res.output.startswith("Error: ") and res.output.count("\n") == 1
    assert "0123456789abcdef" in res.output and "refitted" in res.output


@pytest.mark.parametrize("key, value, needle", [("estimator", '"lucky"', "'lucky' is not an estimator"),
                                                ("until_width", "0", "expected a positive number"),
                                                ("max_walls", "1.5", "positive whole number")])
def test_bad_precision_keys_are_refused(tmp_path, key, value, needle):
    from tests.support.experiments import assert_refused

    text = f'name = "p"\nkind = "duplicate"\nhands = 10\nfield = "expert"\n{key} = {value}\n[arms]\na = "expert"\nb = "greedy"\n'
    assert_refused(tmp_path, "p", text, needle)


def test_simulate_luck_fills_the_luck_column_and_a_resume_keeps_it(tmp_path):
    out = tmp_path / "r"
    run_cli("simulate", "--hands", 400, "--seats", "expert", "--luck", "--out", out, "-q", "--workers", 1)
    assert json.loads((out / "run.json").read_text())["config"]["value_model"] == shipped(preset("battle"))[1]
    luck = pq.read_table(out / "seats").column("luck")
    assert luck.null_count == 0 and np.isfinite(luck.to_numpy()).all()
    res = run_cli("simulate", "--hands", 800, "--seats", "expert", "--out", out, "-q", "--workers", 1, expect=2)
    assert "measures luck with value model" in res.output and res.output.count("\n") == 1
