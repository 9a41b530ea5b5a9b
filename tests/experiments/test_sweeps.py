"""Sweeps in duplicate specs (an arm table with ``values``: one arm per value) and the duplicate
report against any arm (``--vs ARM``), checked against the pandas oracle of
tests/support/duplicate_oracle.py."""

from __future__ import annotations

import json
import math

import pytest

from tests.support import duplicate_oracle
from tests.support.cli import run_cli
from tests.support.experiments import assert_close, assert_refused
from experiments import parse_spec
from experiments.duplicate import comparison
from experiments.execute import read_manifest
from experiments.report import format_text

WALLS = 300

SWEEP = """
name = "sweep"
kind = "duplicate"
hands = 300
field = "efficient"
baseline = "play-efficient"

[arms]
greedy-kp = "greedy+exchange=keep-pairs"

[arms.play]                       # one arm per value: play-greedy, play-efficient, play-random
seat = "{}+void=fewest"
values = ["greedy", "efficient", "random"]
"""

ARMS = ["greedy-kp", "play-greedy", "play-efficient", "play-random"]


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweeps")
    spec = root / "sweep.toml"
    spec.write_text(SWEEP)
    out = root / "out"
    res = run_cli("experiment", "run", spec, "--out", out, "-q", "--workers", 1)
    (root / "stdout.txt").write_text(res.stdout)
    return out


# -- expansion -------------------------------------------------------------------------------

def test_a_sweep_expands_into_one_arm_per_value_in_order():
    data = {"kind": "duplicate", "hands": 10, "field": "efficient", "baseline": "fw-4.0",
            "arms": {"plain": "expert[flush_weight=3,pace=2]",      # commas inside brackets: one seat
                     "fw": {"seat": "expert[flush_weight={}]+void=fewest", "values": [2.0, 4.0, 6.5, 8]},
                     "last": "greedy"}}
    spec = parse_spec(data)
    assert [a.name for a in spec.arms] == ["plain", "fw-2.0", "fw-4.0", "fw-6.5", "fw-8", "last"]
    for a, v in zip(spec.arms[1:5], ["2.0", "4.0", "6.5", "8.0"]):
        assert a.seat.canonical.startswith(f"expert[pace=1.5,flush_weight={v},") and a.seat.canonical.endswith("+void=fewest")
        assert a.sweep["name"] == "fw" and a.sweep["seat"] == "expert[flush_weight={}]+void=fewest"
    assert [a.sweep["value"] for a in spec.arms[1:5]] == [2.0, 4.0, 6.5, 8]
    assert spec.arms[0].sweep is None and "flush_weight=3.0" in spec.arms[0].seat.canonical
    assert spec.baseline == "fw-4.0"
    js = spec.to_json()["arms"]
    assert js[2]["sweep"] == {"name": "fw", "seat": "expert[flush_weight={}]+void=fewest", "value": 4.0}
    assert "sweep" not in js[0]
    # a sweep arm with its own rules; negative values and strings name directories
    spec = parse_spec({"kind": "duplicate", "hands": 10, "field": "efficient",
                       "arms": {"slack": {"seat": "expert[pung_slack={}]", "values": [-2, 0, 1], "rules": "flow"},
                                "p": {"seat": "{}", "values": ["greedy", "efficient"]}}})
    assert [a.name for a in spec.arms] == ["slack--2", "slack-0", "slack-1", "p-greedy", "p-efficient"]
    assert all(a.rules.rules.preset == "flow" for a in spec.arms[:3])
    assert spec.arms[3].rules.rules.preset == "battle"


def test_the_sweep_ran_with_the_right_seats(sweep_dir):
    m = read_manifest(sweep_dir)
    assert list(m["layout"]) == ARMS
    seats = {"greedy-kp": "greedy+exchange=keep-pairs+void=fewest", "play-greedy": "greedy+exchange=shortest+void=fewest",
             "play-efficient": "efficient+exchange=shortest+void=fewest",
             "play-random": "random+exchange=shortest+void=fewest"}
    for arm, entry in m["layout"].items():
        assert entry["seat"] == seats[arm]
        for r, rel in enumerate(entry["runs"]):
            cfg = json.loads((sweep_dir / rel / "run.json").read_text())["config"]
            assert cfg["seats"][r] == seats[arm]
            assert all(s == seats["play-efficient"] for i, s in enumerate(cfg["seats"]) if i != r)
    # the arm equal to the field is one run, shared by its four rotations
    assert len(set(m["layout"]["play-efficient"]["runs"])) == 1
    assert (sweep_dir / "play-random" / "rot-3" / "run.json").is_file()
    sw = [a.get("sweep") for a in m["spec"]["arms"]]
    assert sw[0] is None and [s["value"] for s in sw[1:]] == ["greedy", "efficient", "random"]
    assert all(s["name"] == "play" and s["seat"] == "{}+void=fewest" for s in sw[1:])


def test_the_report_shows_the_swept_values(sweep_dir):
    rep = json.loads((sweep_dir / "report.json").read_text())
    assert rep["sweeps"] == [{"name": "play", "seat": "{}+void=fewest", "values": ["greedy", "efficient", "random"],
                              "arms": ["play-greedy", "play-efficient", "play-random"]}]
    assert [(r["arm"], r["sweep"], r["value"]) for r in rep["rows"]] == [
        ("greedy-kp", None, None), ("play-greedy", "play", "greedy"), ("play-efficient", "play", "efficient"),
        ("play-random", "play", "random")]
    text = (sweep_dir.parent / "stdout.txt").read_text()
    assert "sweep play: {}+void=fewest with {} = greedy, efficient, random" in text
    assert "diff vs play-efficient" in text and "(baseline)" in text
    assert text.rstrip("\n") == format_text(rep)


def test_rerunning_a_sweep_resumes(sweep_dir):
    res = run_cli("experiment", "run", sweep_dir.parent / "sweep.toml", "--out", sweep_dir, "--workers", 1)
    steps = [x for x in res.stderr.splitlines() if x.strip().startswith("[")]   # a line per arm or run played
    assert steps and all("already complete" in x for x in steps), res.stderr


# -- --vs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("ref", ARMS)
def test_vs_report_equals_the_pandas_oracle(sweep_dir, ref):
    rep = json.loads(run_cli("experiment", "report", sweep_dir, "--vs", ref, "--json").stdout)
    assert rep["reference"] == ref and rep["baseline"] == "play-efficient"
    want = duplicate_oracle.comparison(sweep_dir, vs=ref)
    duplicate_oracle.assert_agrees(rep, want, ref)
    got = comparison(sweep_dir, vs=ref)
    assert_close(got, {k: rep[k] for k in got}, ref)      # the CLI's JSON: the comparison and its own keys
    sc = duplicate_oracle.direct_scores(sweep_dir)
    assert len(sc) == WALLS
    for row in rep["rows"]:
        d = sc[row["arm"]] - sc[ref]
        assert row["reference"] == (row["arm"] == ref)
        assert row["diff_plain"] == pytest.approx(d.mean(), abs=1e-12)
        if d.std() > 0:
            assert row["diff_plain_high"] - row["diff_plain"] == pytest.approx(1.959963984540054 * d.std() / math.sqrt(WALLS))
    if ref != "play-efficient":
        assert rep["command"].endswith(f"--vs {ref}")


def test_vs_one_arm_is_the_negative_of_vs_the_other(sweep_dir):
    reps = {ref: comparison(sweep_dir, vs=ref) for ref in ARMS}
    for a in ARMS:
        for b in ARMS:
            ra = next(r for r in reps[b]["rows"] if r["arm"] == a)      # a against b
            rb = next(r for r in reps[a]["rows"] if r["arm"] == b)      # b against a
            assert ra["diff"] == -rb["diff"]
            assert ra["diff_low"] == pytest.approx(-rb["diff_high"]) and ra["diff_high"] == pytest.approx(-rb["diff_low"])
            assert ra["sd_diff"] == pytest.approx(rb["sd_diff"]) and ra["walls_needed"] == rb["walls_needed"]
            assert ra["var_unpaired"] == pytest.approx(rb["var_unpaired"])
            assert ra["score"] == next(r for r in reps[a]["rows"] if r["arm"] == a)["score"]


def test_vs_the_baseline_is_the_default_report(sweep_dir):
    a = json.loads(run_cli("experiment", "report", sweep_dir, "--json").stdout)
    b = json.loads(run_cli("experiment", "report", sweep_dir, "--json", "--vs", "play-efficient").stdout)
    assert a == b and a["reference"] == "play-efficient"


def test_vs_text_names_the_reference(sweep_dir):
    text = run_cli("experiment", "report", sweep_dir, "--vs", "play-random").stdout
    assert "diff vs play-random" in text and "(reference)" in text and "(baseline)" not in text
    assert "reference: play-random (--vs; the spec's baseline is play-efficient)" in text


def test_run_with_vs_prints_and_saves_that_report(sweep_dir):
    res = run_cli("experiment", "run", sweep_dir.parent / "sweep.toml", "--out", sweep_dir, "--vs", "play-greedy",
                  "--json", "-q", "--workers", 1)
    rep = json.loads(res.stdout)
    try:
        assert rep["reference"] == "play-greedy"
        assert rep == json.loads((sweep_dir / "report.json").read_text())
        assert rep == json.loads(run_cli("experiment", "report", sweep_dir, "--vs", "play-greedy", "--json").stdout)
    finally:  # leave the default report for the other tests
        run_cli("experiment", "run", sweep_dir.parent / "sweep.toml", "--out", sweep_dir, "-q", "--workers", 1)


def test_bad_vs_is_one_line_exit_2(sweep_dir, tmp_path):
    out = run_cli("experiment", "report", sweep_dir, "--vs", "play-gredy", expect=2).output
    assert out.startswith("Error: --vs 'play-gredy' is not an arm") and out.count("\n") == 1, out
    assert "greedy-kp, play-greedy, play-efficient, play-random" in out
    out = run_cli("experiment", "run", sweep_dir.parent / "sweep.toml", "--out", tmp_path / "new", "--vs", "nope",
                  expect=2).output
    assert out.startswith("Error: --vs 'nope' is not an arm of sweep (arms: greedy-kp,") and out.count("\n") == 1, out
    assert not (tmp_path / "new").exists()   # refused before anything played
    cells = tmp_path / "cells.toml"
    cells.write_text('kind = "cells"\nhands = 20\nshow = ["spread"]\n[grid]\nseats = "greedy"\n')
    out = run_cli("experiment", "run", cells, "--out", tmp_path / "c", "--vs", "x", expect=2).output
    assert "--vs compares the arms of a duplicate experiment" in out and out.count("\n") == 1
    run_cli("experiment", "run", cells, "--out", tmp_path / "c", "-q", "--workers", 1)
    out = run_cli("experiment", "report", tmp_path / "c", "--vs", "x", expect=2).output
    assert "--vs compares the arms of a duplicate experiment" in out and out.count("\n") == 1


# -- bad sweeps ------------------------------------------------------------------------------

HEAD = 'kind = "duplicate"\nhands = 10\nfield = "efficient"\n[arms]\nbase = "greedy"\n'

BAD_SWEEPS = {
    "out-of-range": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = [2.0, 99.0]\n',
                     "arms.fw: value 99.0: strategy 'expert', parameter flush_weight: 99.0 is outside 0.0 to 50.0"),
    "not-a-number": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = [2.0, "lots"]\n',
                     "arms.fw: value 'lots': strategy 'expert', parameter flush_weight: 'lots' is not a number"),
    "int-param": ('[arms.ks]\nseat = "expert[kong_slack={}]"\nvalues = [0, 1.5]\n',
                  "arms.ks: value 1.5: strategy 'expert', parameter kong_slack: '1.5' is not an integer"),
    "bad-strategy": ('[arms.p]\nseat = "{}+void=fewest"\nvalues = ["greedy", "greedyy"]\n',
                     "arms.p: value 'greedyy': unknown play strategy 'greedyy'"),
    "boolean": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = [true]\n',
                "arms.fw.values: true is not a number or a non-empty string"),
    "empty": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = []\n', "arms.fw.values: expected a non-empty list"),
    "not-a-list": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = 2.0\n', "arms.fw.values: expected a non-empty list"),
    "inf": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = [inf]\n', "arms.fw: value inf: not a finite number"),
    "no-braces": ('[arms.fw]\nseat = "expert[flush_weight=2]"\nvalues = [2.0]\n', "arms.fw.seat: a swept arm's seat needs {}"),
    "braces-no-values": ('[arms.fw]\nseat = "expert[flush_weight={}]"\n', "arms.fw.seat: {} marks where a swept value goes"),
    "braces-in-string": ('fw = "expert[flush_weight={}]"\n', "arms.fw: {} marks where a swept value goes"),
    "repeat": ('[arms.fw]\nseat = "expert[flush_weight={}]"\nvalues = [2.0, 2.0]\n', "arms.fw.values: values repeat"),
    "collision": ('"p-greedy" = "greedy"\n[arms.p]\nseat = "{}"\nvalues = ["greedy", "random"]\n',
                  "arms: arm names repeat: p-greedy"),
    "two-seats": ('[arms.p]\nseat = "{},greedy"\nvalues = ["greedy"]\n',
                  "arms.p: value 'greedy': one seat spec expected (no commas outside brackets)"),
    "baseline": ('[arms.p]\nseat = "{}"\nvalues = ["greedy"]\n', "baseline: 'p' is not an arm (arms: base, p-greedy)"),
}


@pytest.mark.parametrize("case", sorted(BAD_SWEEPS))
def test_bad_sweep_is_one_line_exit_2(tmp_path, case):
    body, needle = BAD_SWEEPS[case]
    head = HEAD.replace("[arms]", 'baseline = "p"\n[arms]') if case == "baseline" else HEAD
    out = assert_refused(tmp_path, case, head + body, needle)
    assert out.startswith(f"Error: {tmp_path / case}.toml: "), out
