"""Experiments: the shipped specs run through the CLI, duplicate scores and paired statistics
against a direct pandas computation, compare, report round trips, resume/extend, bad specs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.support import duplicate_oracle
from tests.support.cli import run_cli
from tests.support.experiments import SEED, SMALL, assert_close, assert_refused
from experiments import SHIPPED, load_spec
from experiments.duplicate import scores, seat_nets
from simcore.runs.analysis import Z95
from experiments.execute import read_manifest
from experiments.report import build, format_text
from simcore.runs import analysis


@pytest.fixture(scope="module")
def exps(small_experiments):
    return small_experiments


# -- shipped specs ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_parses_with_sane_defaults(name):
    spec = load_spec(name)
    assert spec.name == name and spec.source == f"experiments/{name}.toml"
    assert spec.hands >= 10_000, "defaults should give useful intervals"
    if spec.kind == "duplicate":
        assert spec.baseline in {a.name for a in spec.arms} and len(spec.arms) == 4
    else:
        assert spec.cells


def test_shipped_grids():
    pigs = load_spec("flower-pigs")
    assert len(pigs.cells) == 3 * 3 * 5
    assert {c.rules.rules.preset for c in pigs.cells} == {"battle", "flow", "chengdu", "kawu", "tfmj"}
    # random-void cells are sized smaller, relative to --hands
    sizes = {c.labels["void"]: c.hands_for(80_000) for c in pigs.cells}
    assert sizes == {"fewest": 80_000, "weakest": 80_000, "random": 10_000}
    bvf = load_spec("battle-vs-flow")
    assert [(c.rules.rules.preset, c.mode) for c in bvf.cells] == [
        ("battle", "hands"), ("battle", "matches"), ("flow", "hands"), ("flow", "matches")]
    assert all(len(set(c.seats)) == 1 and c.seats[0].canonical.startswith("expert[") and "+exchange=expert[" in c.seats[0].canonical
               for c in bvf.cells)
    rs = load_spec("rule-sets")
    assert [c.rules.rules.preset for c in rs.cells] == ["battle", "flow", "chengdu", "kawu", "tfmj"]
    assert [c.name for c in rs.cells] == ["battle", "flow", "chengdu", "kawu", "tfmj"]
    assert all(c.mode == "hands" and c.seats == rs.cells[0].seats and c.weight == 1 for c in rs.cells)
    assert rs.cells[0].seats[0].canonical.startswith("expert[") and len(set(rs.cells[0].seats)) == 1
    assert {"pigs", "spread", "reasons", "patterns", "ends"} == set(rs.show)


def test_every_cells_section_is_defined_and_printed(exps):
    """The spec's sections and the report's definitions are the same list; the text prints each
    section's table and definition."""
    from experiments import cells
    from experiments.spec import SECTIONS

    assert tuple(cells.DEFINITIONS) == SECTIONS
    rep = json.loads((exps / "rule-sets" / "report.json").read_text())
    text = format_text(rep)
    for heading in ("flower pigs", "net per seat-hand", "share of all points paid", "wins (every win",
                    "fan patterns: share of wins", "how hands end"):
        assert heading in text, heading
    for k in rep["show"]:
        assert f"- {k}: {cells.DEFINITIONS[k]}" in text
        assert all(k in c for c in rep["cells"])


@pytest.mark.parametrize("name", SMALL)
def test_shipped_experiment_ran_and_reports(exps, name):
    d = exps / name
    m = read_manifest(d)
    assert m["complete"] and m["hands"] == SMALL[name] and m["seed"] == SEED
    rep = json.loads((d / "report.json").read_text())
    text = format_text(rep)
    assert "95%" in text and f"--seed {SEED}" in text
    if rep["kind"] == "duplicate":
        assert "var removed" in text
        for row in rep["rows"]:
            if not row["baseline"] and row["diff_low"] != row["diff_high"]:
                # (an arm may play exactly as the field on every wall of a small run: void
                # expert and weakest choose alike at the start of nearly every hand)
                assert row["diff_low"] < row["diff"] < row["diff_high"]
                assert 0 < row["variance_removed"] < 1 and row["walls_needed"] > 0
                assert row["hands_needed"] == row["walls_needed"] * len(m["runs"])
    else:
        assert len(rep["cells"]) == len(load_spec(name).cells)


def test_run_through_the_installed_command(tmp_path):
    """As a user would: the `sichuan` console script, a shipped name, a new directory."""
    exe = Path(sys.executable).parent / "sichuan"
    out = tmp_path / "ex"
    res = subprocess.run([str(exe), "experiment", "run", "void", "--hands", "200", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "diff vs expert" in res.stdout and "var removed" in res.stdout
    # progress: one line per arm played where it differs (its 4 rotations and the field), then per other run
    assert "[3/3] arm random: 5 tables of 200 walls, played where it differs" in res.stderr, res.stderr
    assert res.stderr.count("played where it differs") == 3
    again = subprocess.run([str(exe), "experiment", "report", str(out)], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout == res.stdout


# -- duplicate statistics ----------------------------------------------------------------------

def test_duplicate_scores_equal_direct_pandas(exps):
    d = exps / "exchange"
    got = scores(d)
    want = duplicate_oracle.direct_scores(d)
    pd.testing.assert_frame_equal(got, want, check_names=False)
    assert len(got) == SMALL["exchange"] and list(got.index) == list(range(SMALL["exchange"]))


def test_arm_equal_to_field_scores_zero_on_every_wall(exps):
    for name, base in (("exchange", "expert"), ("exchange-efficient", "shortest"), ("void", "expert"),
                       ("void-efficient", "fewest")):
        sc = scores(exps / name)
        assert (sc[base] == 0).all()
        # it is one run, shared by its four rotations
        m = read_manifest(exps / name)
        assert len(set(m["layout"][base]["runs"])) == 1


def test_paired_statistics_match_their_definitions(exps):
    d = exps / "void"
    rep = build(d, width=0.5)
    nets = seat_nets(d)
    sc = scores(d)
    corrected = scores(d, corrected=True)
    walls = len(sc)
    base = rep["baseline"]
    assert rep["estimator"] == "luck" and corrected.notna().all().all()
    for row in rep["rows"]:
        arm = row["arm"]
        diff = sc[arm] - sc[base]
        sd = diff.std(ddof=1)
        assert row["diff_plain"] == pytest.approx(diff.mean())
        assert row["diff_plain_high"] - row["diff_plain"] == pytest.approx(Z95 * sd / math.sqrt(walls))
        assert row["sd_diff_plain"] == pytest.approx(sd, abs=1e-12)
        # the main difference is the luck-corrected one: nets less luck, paired the same way
        cdiff = corrected[arm] - corrected[base]
        assert row["diff"] == pytest.approx(cdiff.mean(), abs=1e-12)
        assert row["diff_high"] - row["diff"] == pytest.approx(Z95 * cdiff.std(ddof=1) / math.sqrt(walls), abs=1e-12)
        if arm != base:
            assert row["variance_factor"] == pytest.approx(sd ** 2 / cdiff.var(ddof=1))
            sd = cdiff.std(ddof=1)   # walls needed follow the main difference
        var_a = np.var(nets[arm].to_numpy().ravel(), ddof=1)
        var_b = np.var(nets[base].to_numpy().ravel(), ddof=1)
        var_unp = (var_a + var_b) / 4
        assert row["var_unpaired"] == pytest.approx(var_unp)
        if arm != base:
            assert row["variance_removed"] == pytest.approx(1 - row["sd_diff_plain"] ** 2 / var_unp)
            assert row["walls_needed"] == math.ceil((2 * Z95 * sd / 0.5) ** 2)
            # every distinct table plays every wall once (an arm equal to the field plays one table)
            tables = {r for e in read_manifest(d)["layout"].values() for r in e["runs"]}
            assert row["hands_needed"] == row["walls_needed"] * len(tables)
        else:
            assert row["diff"] == 0 and row["sd_diff"] == 0 and row["walls_needed"] == 0


def test_compare_with_itself_is_exactly_zero(tmp_path):
    res = run_cli("compare", "greedy", "greedy", "--hands", 150, "--json", "-q", "--workers", 1)
    rep = json.loads(res.stdout)
    assert [r["arm"] for r in rep["rows"]] == ["A", "B"]
    for r in rep["rows"]:
        assert r["diff"] == 0 and r["diff_low"] == 0 and r["diff_high"] == 0 and r["sd_diff"] == 0
        assert r["score"] == 0 and r["walls_needed"] == 0
    assert rep["hands_played"] == 150  # one run, shared by every rotation of both arms
    assert rep["command"] == "sichuan compare greedy greedy --hands 150 --seed 0"


def test_compare_head_to_head_with_rules_and_out(tmp_path):
    out = tmp_path / "cmp"
    res = run_cli("compare", "greedy", "efficient", "--rules", "kawu", "--set", "fan_cap=4", "--hands", 200,
                  "--out", out, "-q", "--workers", 1)
    assert "diff vs B" in res.output and "kawu+fan_cap=4" in res.output
    sc = scores(out)
    assert (sc["B"] == 0).all() and sc["A"].abs().sum() > 0
    cfg = json.loads((out / "A" / "rot-2" / "run.json").read_text())["config"]
    assert cfg["rules"]["preset"] == "kawu" and cfg["rules"]["options"]["fan_cap"] == 4
    assert cfg["seats"][2].startswith("greedy") and cfg["seats"][0].startswith("efficient")


# -- reports ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SMALL)
def test_report_json_round_trip(exps, name):
    d = exps / name
    as_json = run_cli("experiment", "report", d, "--json").stdout
    rep = json.loads(as_json)
    assert rep == json.loads((d / "report.json").read_text())  # recomputed from the runs = saved at run time
    text = run_cli("experiment", "report", d).stdout
    assert text.rstrip("\n") == format_text(rep)               # the text is rendered from the JSON
    assert json.loads(json.dumps(rep)) == rep


def test_report_width_changes_only_walls_needed(exps):
    a = json.loads(run_cli("experiment", "report", exps / "exchange", "--json").stdout)
    b = json.loads(run_cli("experiment", "report", exps / "exchange", "--json", "--width", 0.05).stdout)
    for ra, rb in zip(a["rows"], b["rows"]):
        assert ra["diff"] == rb["diff"]
        if ra["walls_needed"]:
            assert rb["walls_needed"] == pytest.approx(4 * ra["walls_needed"], rel=0.01, abs=2)


def test_cells_statistics(exps):
    rep = json.loads((exps / "battle-vs-flow" / "report.json").read_text())
    cells = {c["cell"]: c for c in rep["cells"]}
    for c in cells.values():
        assert abs(c["spread"]["mean"]) < 1e-12                       # every hand sums to zero
        assert sum(r["share"] for r in c["reasons"]["reasons"].values()) == pytest.approx(1)
        assert c["spread"]["sd_low"] < c["spread"]["sd"] < c["spread"]["sd_high"]
    assert cells["battle-matches"]["matches"]["kind"] == "matches"
    assert cells["battle-matches"]["matches"]["matches"] == SMALL["battle-vs-flow"] // 8
    assert cells["battle-hands"]["matches"]["kind"] == "blocks"
    # a match's totals from the seats table directly
    run = analysis.load(exps / "battle-vs-flow" / "flow-matches")
    tot = run.seats.groupby(["match", "seat"])["net"].sum()
    m = cells["flow-matches"]["matches"]
    assert m["sd"] == pytest.approx(tot.std(ddof=1))
    assert m["losers"] == int((tot <= -50).sum())
    # pigs: counts equal the seats table
    rep = json.loads((exps / "flower-pigs" / "report.json").read_text())
    for c in rep["cells"]:
        s = analysis.load(exps / "flower-pigs" / c["cell"]).seats
        assert c["pigs"]["pigs"] == int(s["flower_pig"].fillna(False).astype(bool).sum())
        assert c["pigs"]["seat_hands"] == len(s)
        p = c["pigs"]
        assert p["rate_low"] <= p["rate"] <= p["rate_high"] and p["deff"] >= 1


def test_rule_sets_statistics(exps):
    """The patterns and ends sections of every preset, against the runs' tables directly."""
    from simcore.contract.evaluate import PATTERNS

    rep = json.loads((exps / "rule-sets" / "report.json").read_text())
    assert [c["preset"] for c in rep["cells"]] == ["battle", "flow", "chengdu", "kawu", "tfmj"]
    for c in rep["cells"]:
        run = analysis.load(exps / "rule-sets" / c["cell"])
        w, p, e = run.wins, c["patterns"], c["ends"]
        assert p["wins"] == len(w) and p["wins_per_hand"] == pytest.approx(len(w) / len(run.hands))
        assert p["base"] == pytest.approx(w["base"].mean()) and p["base_low"] < p["base"] < p["base_high"]
        assert set(p["patterns"]) == set(PATTERNS)
        for name, x in p["patterns"].items():
            has = w[name] > 0
            assert x["wins"] == int(has.sum()) and x["share"] == pytest.approx(has.mean())
            assert x["share_low"] <= x["share"] <= x["share_high"] and x["deff"] >= 1
            if has.any():
                assert x["base"] == pytest.approx(w.loc[has, "base"].mean())
            else:
                assert x["base"] is None and x["share_low"] == 0
        exhausted = int((run.hands["end_reason"] == "wall_exhausted").sum())
        assert e["wall_exhausted"] == exhausted and e["rate"] == pytest.approx(exhausted / len(run.hands))
        assert e["rate"] == c["wall_exhausted"]
        moved = run.seats.groupby("hand")["net"].apply(lambda x: x.abs().sum() / 2)
        assert e["net_moved"] == pytest.approx(moved.mean()) and e["net_moved_sd"] == pytest.approx(moved.std())
        assert e["net_moved"] == pytest.approx(2 * c["spread"]["mean_abs"])   # four seats, half of sum |net|
        # what each rule set pays for
        reasons = c["reasons"]["reasons"]
        assert reasons["kong_transfer"]["payments"] == 0 or c["preset"] == "tfmj"
        assert reasons["kong_discard_liability"]["payments"] == 0 or c["preset"] == "chengdu"
        assert p["patterns"]["kong_discard"]["wins"] == 0 or c["preset"] == "tfmj"
    cells = {c["preset"]: c for c in rep["cells"]}
    assert cells["flow"]["ends"]["rate"] == 1                      # blood flow plays every hand to the wall
    assert cells["flow"]["patterns"]["wins_per_hand"] > cells["battle"]["patterns"]["wins_per_hand"]


@pytest.mark.parametrize("preset", ["flow", "tfmj"])
def test_patterns_and_ends_stream_over_chunks(tmp_path, preset):
    """Several chunks (and in blood flow several wins per hand): the streamed patterns and ends
    equal the whole-table pandas computation."""
    from tests.support import cells_oracle

    from experiments.cells import cell_stats
    from simcore.contract.rules import preset as rules
    from simcore.runs.runner import RunConfig, run

    out = tmp_path / preset
    run(out, RunConfig(rules(preset), ("efficient+exchange=shortest+void=fewest",) * 4, 5, "hands", 1203, 250),
        workers=1)
    sections = ["patterns", "ends"]
    got = cell_stats(out, sections, 50, 1203)
    assert_close(got, cells_oracle.cell_stats(out, sections, 50, 1203), preset)
    assert "spread" not in got and got["patterns"]["wins"] > 1203 * (2 if preset == "flow" else 1)


# -- resume, extend, refuse ------------------------------------------------------------------

def test_rerun_resumes_and_larger_hands_extends(tmp_path):
    out = tmp_path / "ex"
    run_cli("compare", "greedy", "efficient", "--hands", 100, "--out", out, "-q", "--workers", 1)
    before = scores(out)
    res = run_cli("compare", "greedy", "efficient", "--hands", 100, "--out", out, "--workers", 1)
    # A's four rotations and the all-B run, played together where A differs from B
    assert res.stderr.count("already complete") == 1 and "5 tables of 100 walls" in res.stderr
    run_cli("compare", "greedy", "efficient", "--hands", 180, "--out", out, "-q", "--workers", 1)
    after = scores(out)
    assert len(after) == 180
    pd.testing.assert_frame_equal(after.iloc[:100], before)
    err = run_cli("compare", "greedy", "efficient", "--hands", 100, "--out", out, "-q", expect=2).output
    assert "may only grow" in err
    err = run_cli("compare", "greedy", "efficient", "--hands", 180, "--seed", 3, "--out", out, "-q", expect=2).output
    assert "seed" in err and err.count("\n") == 1
    err = run_cli("compare", "greedy", "random", "--hands", 180, "--out", out, "-q", expect=2).output
    assert "different spec" in err


# -- bad input -------------------------------------------------------------------------------

GOOD = """
name = "t"
kind = "duplicate"
hands = 10
field = "efficient"
[arms]
a = "efficient"
b = "greedy"
"""

BAD_SPECS = {
    "no-kind": ('name = "t"\nhands = 10\n', "kind: missing"),
    "bad-kind": ('kind = "tournament"\nhands = 10\n', "is not a kind"),
    "toml": ('kind = "duplicate\n', "not valid TOML"),
    "no-hands": ('kind = "duplicate"\nfield = "efficient"\n', "hands: missing"),
    "bad-seat": (GOOD.replace('b = "greedy"', 'b = "greedyy"'), "arms.b: unknown play strategy 'greedyy'"),
    "bad-policy": (GOOD.replace('b = "greedy"', 'b = "greedy+void=most"'), "unknown void strategy 'most'"),
    "baseline": (GOOD.replace('field = "efficient"', 'field = "efficient"\nbaseline = "c"'),
                 "baseline: 'c' is not an arm"),
    "one-arm": (GOOD.replace('b = "greedy"\n', ""), "at least two arms"),
    "unknown-key": (GOOD.replace("hands = 10", "hands = 10\nwalls = 5"), "walls: unknown key"),
    "bad-rules": (GOOD.replace("hands = 10", 'hands = 10\nrules = "battel"'), "unknown preset 'battel'"),
    "bad-set": (GOOD.replace("hands = 10", "hands = 10\nsets = { fan_cap = 99 }"), "fan_cap"),
    "zero-hands": (GOOD.replace("hands = 10", "hands = 0"), "hands: expected an integer >= 1"),
    "cells-mode": ('kind = "cells"\nhands = 10\n[grid]\nmode = ["hands", "rounds"]\n', "mode: expected \"hands\" or \"matches\""),
    "cells-both": ('kind = "cells"\nhands = 10\n[grid]\nrules = "flow"\n[[cells]]\nseats = "greedy"\n', "exactly one of"),
    "sizes": ('kind = "cells"\nhands = 10\n[grid]\nrules = ["flow", "kawu"]\n[[sizes]]\nwhere = { void = "random" }\nhands = 5\n',
              "matches no cell"),
    "show": ('kind = "cells"\nhands = 10\nshow = ["pig"]\n[grid]\nrules = "flow"\n', "show: expected a list"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_spec_one_line_error_exit_2(tmp_path, case):
    assert_refused(tmp_path, case, *BAD_SPECS[case])


def test_bad_names_and_dirs_are_one_line(tmp_path):
    out = run_cli("experiment", "run", "exchang", "--out", tmp_path / "x", expect=2).output
    assert "unknown experiment 'exchang'" in out and "exchange" in out and out.count("\n") == 1
    out = run_cli("experiment", "run", tmp_path / "missing.toml", "--out", tmp_path / "x", expect=2).output
    assert "does not exist" in out and out.count("\n") == 1
    out = run_cli("experiment", "report", tmp_path, expect=2).output
    assert "not an experiment directory" in out and out.count("\n") == 1
    out = run_cli("compare", "greedy", "nope", "--hands", 10, expect=2).output
    assert out.startswith("Error: B: unknown play strategy 'nope'") and out.count("\n") == 1
    out = run_cli("compare", "greedy", "efficient", "--set", "fan_cap", expect=2).output
    assert out.startswith("Error: ") and out.count("\n") == 1
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    out = run_cli("experiment", "run", "exchange", "--hands", 10, "--out", tmp_path / "busy", expect=2).output
    assert "not empty" in out and out.count("\n") == 1


def test_list_names_the_shipped_experiments():
    """`sichuan experiment list` gives every spec shipped in experiments/, no more, in SHIPPED's
    order, each with its kind and size; the session's small runs cover all but the precision run."""
    from experiments.spec import SPEC_DIR, SURVEY

    on_disk = sorted(p.stem for p in SPEC_DIR.glob("*.toml"))
    out = run_cli("experiment", "list").output
    listed = [line.split()[0] for line in out.splitlines()]
    assert sorted(listed) == on_disk and listed == list(SHIPPED)
    for line, name in zip(out.splitlines(), SHIPPED):
        spec = load_spec(name)
        assert spec.kind in line.split() and f"{spec.hands:,} " in line
    assert "expert-pigs" in listed and set(SMALL) == set(SURVEY) == set(SHIPPED) - {"expert-pigs"}


# -- the streamed reports equal the whole-table ones -------------------------------------------


@pytest.mark.parametrize("name", ["exchange", "void", "flower-pigs", "battle-vs-flow", "rule-sets"])
def test_streamed_reports_equal_the_whole_table_ones(exps, name):
    from tests.support import cells_oracle

    from experiments.cells import cells_report
    from experiments.duplicate import comparison

    d = exps / name
    if name in ("exchange", "void"):
        duplicate_oracle.assert_agrees(comparison(d), duplicate_oracle.comparison(d), name)
        return
    rep, m = cells_report(d), read_manifest(d)
    for cell in rep["cells"]:
        entry = m["layout"][cell["cell"]]
        want = cells_oracle.cell_stats(d / entry["run"], rep["show"], rep["loss_threshold"], entry["hands"])
        assert set(cell) - set(want) == {"cell", "labels", "seats", "rules", "preset", "mode"}
        assert_close({k: cell[k] for k in want}, want, f"{name}.{cell['cell']}")


def test_blocks_that_span_chunks_count_once(tmp_path):
    """Independent hands cut into chunks that split an 8-hand block: the block's totals are
    carried across the chunk boundary, exactly as the whole table counts them."""
    from tests.support import cells_oracle

    from experiments.cells import cell_stats
    from simcore.contract.rules import preset
    from simcore.runs.runner import RunConfig, run

    out = tmp_path / "blocks"
    run(out, RunConfig(preset("flow"), ("efficient+exchange=shortest+void=random",) * 4, 5, "hands", 2003, 300),
        workers=1)
    sections = ["pigs", "spread", "matches", "reasons"]
    assert_close(cell_stats(out, sections, 20, 2003), cells_oracle.cell_stats(out, sections, 20, 2003), "blocks")


def test_small_figures_and_few_values_print_honestly():
    """A pig's net over two pigs prints its count, not a normal interval of zero width; a cost
    below the shown decimals prints in scientific notation, not 0.0000."""
    from experiments.report import _mean_ci, _rate_ci

    assert _mean_ci(-194.0, -194.0, -194.0, 2, "{:+.1f}") == "-194.0 (n = 2)"
    assert _mean_ci(-100.0, -120.0, -80.0, 40, "{:+.1f}") == "-100.0 [-120.0, -80.0]"
    assert _rate_ci(0.0000123, 0.000005, 0.00002, "f", 4).startswith("1.2e-05 [")
    assert _rate_ci(0.0123, 0.011, 0.013, "f", 4) == "0.0123 [0.0110, 0.0130]"
