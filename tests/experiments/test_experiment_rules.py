"""`sichuan experiment run SPEC --rules PRESET|FILE.toml --set KEY=VALUE` (issue 44, item 6): a
spec played under other rules. --rules takes the place of the spec's own rules in every arm or
cell that does not name its own (those keep theirs), --set overrides an option everywhere; the
experiment directory records what was given, the report says which rules, and a resume under other
rules is refused in one line naming both."""

from __future__ import annotations

import json

from experiments.execute import read_manifest
from tests.support.cli import run_cli

SPEC = """
name = "ruled"
kind = "duplicate"
hands = 40
field = "efficient"
baseline = "b"
[arms]
a = "greedy"
b = "efficient"
k = { seat = "greedy", rules = "kawu" }
"""

CELLS = """
name = "ruled-cells"
kind = "cells"
hands = 120
show = ["pigs", "ends"]
[grid]
play = ["greedy"]
void = ["fewest", "random"]
"""


def _config(run_dir) -> dict:
    return json.loads((run_dir / "run.json").read_text())["config"]


def test_a_duplicate_spec_runs_under_other_rules_and_says_so(tmp_path):
    spec = tmp_path / "ruled.toml"
    spec.write_text(SPEC)
    out = tmp_path / "flow"
    args = ["experiment", "run", spec, "--rules", "flow", "--set", "fan_cap=5", "--hands", 40, "--out", out,
            "-q", "--workers", 1]
    res = run_cli(*args)
    # the arms that take the spec's rules play flow, the one that names its own keeps kawu; --set reaches both
    m = read_manifest(out)
    for arm, preset in (("a", "flow"), ("b", "flow"), ("k", "kawu")):
        rules = _config(out / m["layout"][arm]["runs"][1])["rules"]
        assert rules["preset"] == preset and rules["options"]["fan_cap"] == 5, (arm, rules)
    # the directory records what was given; the report names the rules and reproduces them
    assert m["spec"]["rules_override"] == {"rules": "flow", "sets": ["fan_cap=5"], "spec_rules": "battle"}
    text = res.stdout
    assert ("rules: flow+fan_cap=5, kawu+fan_cap=5 (--rules flow --set fan_cap=5, in place of the spec's battle)\n"
            in text), text
    assert f"reproduce: sichuan experiment run {spec} --hands 40 --seed 0 --rules flow --set fan_cap=5 --out {out}" \
        in text, text
    rep = json.loads(run_cli("experiment", "report", out, "--json").stdout)
    assert rep["rules_override"]["rules"] == "flow"
    assert {r["arm"]: r["rules"] for r in rep["rows"]} == {"a": "flow+fan_cap=5", "b": "flow+fan_cap=5",
                                                          "k": "kawu+fan_cap=5"}
    # the same command resumes; other rules are refused, in one line naming both
    again = run_cli(*[a for a in args if a != "-q"])
    assert "already complete" in again.stderr
    plain = run_cli("experiment", "run", spec, "--hands", 40, "--out", out, "-q", expect=2).output
    assert plain.count("\n") == 1 and plain.startswith("Error: "), plain
    assert ("holds experiment 'ruled' under rules flow+fan_cap=5, kawu+fan_cap=5 (--rules flow --set fan_cap=5), "
            "not battle, kawu (the spec's); give --rules flow --set fan_cap=5 to resume or extend it, or use a new "
            "--out directory") in plain, plain
    other = run_cli("experiment", "run", spec, "--rules", "chengdu", "--hands", 40, "--out", out, "-q",
                    expect=2).output
    assert other.count("\n") == 1 and "under rules flow+fan_cap=5, kawu+fan_cap=5 (--rules flow --set fan_cap=5), " \
        "not chengdu, kawu (--rules chengdu)" in other, other
    # and a run of the spec's own rules is refused under --rules, with the way to resume it
    own = tmp_path / "own"
    run_cli("experiment", "run", spec, "--hands", 40, "--out", own, "-q", "--workers", 1)
    err = run_cli("experiment", "run", spec, "--rules", "flow", "--hands", 40, "--out", own, "-q", expect=2).output
    assert err.count("\n") == 1 and "under rules battle, kawu (the spec's), not flow, kawu (--rules flow); run it " \
        "without --rules and --set to resume or extend it" in err, err


def test_a_cells_spec_and_a_rule_file(tmp_path):
    spec = tmp_path / "cells.toml"
    spec.write_text(CELLS)
    (tmp_path / "house.toml").write_text('base = "kawu"\nfan_cap = 3\n')
    out = tmp_path / "c"
    res = run_cli("experiment", "run", spec, "--rules", tmp_path / "house.toml", "--hands", 120, "--out", out,
                  "-q", "--workers", 1)
    for cell in ("fewest", "random"):
        rules = _config(out / cell)["rules"]
        assert rules["preset"] == "kawu" and rules["options"]["fan_cap"] == 3
    assert f"(--rules {tmp_path / 'house.toml'}, in place of the spec's battle)" in res.stdout
    # --set alone: the spec's rules, amended
    res = run_cli("experiment", "run", spec, "--set", "fan_cap=2", "--hands", 120, "--out", tmp_path / "s", "-q",
                  "--workers", 1)
    assert "rules: battle+fan_cap=2 (the spec's, with --set fan_cap=2)" in res.stdout, res.stdout


def test_bad_rules_are_one_line(tmp_path):
    spec = tmp_path / "ruled.toml"
    spec.write_text(SPEC)
    for args, needle in ((["--rules", "flwo"], "unknown preset 'flwo'"),
                         (["--set", "fan_cap"], "expected key=value"),
                         (["--set", "fan_cap=99"], "fan_cap"),
                         (["--rules", str(tmp_path / "none.toml")], "does not exist")):
        err = run_cli("experiment", "run", spec, *args, "--out", tmp_path / "x", expect=2).output
        assert err.startswith("Error: ") and err.count("\n") == 1 and needle in err, (args, err)
    # a grid over presets names every cell's rules: there is nothing for --rules to replace (--set works)
    err = run_cli("experiment", "run", "rule-sets", "--rules", "flow", "--out", tmp_path / "x", expect=2).output
    assert err.count("\n") == 1 and "--rules flow: every cell of experiments/rule-sets.toml names its own rules " \
        "(battle, flow, chengdu, kawu, tfmj)" in err, err
    assert not (tmp_path / "x").exists()


def test_compare_under_other_rules_is_refused_naming_both(tmp_path):
    out = tmp_path / "cmp"
    run_cli("compare", "greedy", "efficient", "--rules", "kawu", "--hands", 40, "--out", out, "-q", "--workers", 1)
    err = run_cli("compare", "greedy", "efficient", "--rules", "flow", "--set", "fan_cap=3", "--hands", 40,
                  "--out", out, "-q", expect=2).output
    assert err.count("\n") == 1 and err.endswith(f"{out} holds experiment 'compare' under rules kawu, not "
                                                 "flow+fan_cap=3; use a new --out directory\n"), err
