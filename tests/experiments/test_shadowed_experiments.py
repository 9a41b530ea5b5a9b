"""Duplicate experiments play an arm only where its answers differ from the field's (issue 36,
item 2): the run directories hold exactly what playing every rotation table in full writes
(--full-tables), the report is the same, and it says on how many walls each arm differed."""

import json
from dataclasses import replace

import pyarrow.parquet as pq

from experiments.report import format_text
from simcore.runs import shards as rio
from tests.support.cli import run_cli

SPEC = """
name = "shadow"
kind = "duplicate"
hands = 300
seed = 2
rules = "battle"
field = "expert"
baseline = "field"

[arms]
field = "expert"
void = "expert+void=fewest"
exchange = "expert+exchange=shortest"
play = "efficient+exchange=expert+void=expert"
flow = { seat = "expert+void=fewest", rules = "flow" }
"""


def _tables(run_dir):
    return {t: pq.read_table(run_dir / t / rio.shard_name(c)).to_pylist()
            for t in rio.TABLES for c in range(len(list((run_dir / t).glob("part-*.parquet"))))}


def test_a_shadowed_experiment_writes_what_full_tables_write(tmp_path):
    spec = tmp_path / "shadow.toml"
    spec.write_text(SPEC)
    args = ["experiment", "run", spec, "--hands", 300, "--json", "-q", "--workers", 1]
    shadowed = json.loads(run_cli(*args, "--out", tmp_path / "s").stdout)
    full = json.loads(run_cli(*args, "--out", tmp_path / "f", "--full-tables").stdout)
    manifest = json.loads((tmp_path / "s" / "experiment.json").read_text())
    for reldir in manifest["runs"]:
        assert _tables(tmp_path / "s" / reldir) == _tables(tmp_path / "f" / reldir), reldir
    for a, b in zip(shadowed["rows"], full["rows"]):
        assert a["diff"] == b["diff"] and a["sd_diff"] == b["sd_diff"], a["arm"]
    differed = {r["arm"]: r["walls_differed"] for r in shadowed["rows"]}
    assert differed["field"] == 0 and all(0 < differed[a] <= 300 for a in ("void", "exchange", "play", "flow"))
    assert {r["arm"]: r["walls_differed"] for r in full["rows"]}["void"] is None   # played in full: not known
    text = run_cli("experiment", "report", tmp_path / "s").stdout
    assert "walls differed" in text and f"{differed['void']:,} (" in text


def test_an_arm_that_rarely_changes_play_is_flagged():
    row = {"arm": "A", "rules": "battle", "seat": "expert[x=1]", "baseline": False, "reference": False,
           "score": 0.0, "score_low": 0.0, "score_high": 0.0, "diff": 0.0, "diff_low": 0.0, "diff_high": 0.0,
           "unpaired_half_width": 0.1, "variance_removed": 0.9, "walls_needed": 10, "hands_needed": 50,
           "walls_differed": 13, "walls_differed_share": 13 / 60000}
    base = dict(row, arm="B", seat="expert", baseline=True, reference=True, walls_differed=0,
                walls_differed_share=0.0)
    rep = {"kind": "duplicate", "name": "sweep", "walls": 60000, "arms": 2, "hands_per_arm": 240000,
           "hands_played": 300000, "seed": 0, "field": "expert", "baseline": "B", "width": 0.1, "rows": [row, base],
           "definitions": [], "command": "sichuan ..."}
    text = format_text(rep)
    assert "warning: arm A answered differently from the field on 13 of 60,000 walls (0.02%): this parameter " \
           "rarely changes play" in text
    assert "arm B answered" not in text


def test_an_illegal_answer_in_a_shadowed_arm_is_one_line(tmp_path):
    from tests.support.bots import write_bots

    bots = write_bots(tmp_path, "shadow_exp_bots")
    res = run_cli("compare", f"{bots}:cheater", "greedy", "--hands", 50, "--out", tmp_path / "x", "-q", expect=2)
    assert res.output.startswith("Error: arm A: strategy ") and "illegal answer" in res.output
    assert res.output.count("\n") == 1


def test_walls_differed_survive_an_interrupted_group(tmp_path, monkeypatch):
    """Counts are saved per chunk: a group stopped after some chunks resumes with them."""
    import experiments.execute as X
    from simcore.runs import runner

    spec = tmp_path / "shadow.toml"
    spec.write_text(SPEC)
    real = runner._write
    calls = {"n": 0}

    def stop_after_some(*a, **k):
        calls["n"] += 1
        if calls["n"] == 6:       # the second chunk of the first arm's group (five tables a chunk)
            raise KeyboardInterrupt
        return real(*a, **k)

    real_plan = X.plan

    def small_chunks(*a, **k):   # 100-wall chunks, so a group has three
        runs, layout = real_plan(*a, **k)
        return [replace(p, config=replace(p.config, chunk_hands=100)) for p in runs], layout

    monkeypatch.setattr(X, "plan", small_chunks)
    monkeypatch.setattr(runner, "_write", stop_after_some)
    out = tmp_path / "i"
    res = run_cli("experiment", "run", spec, "--out", out, "-q", "--workers", 1, expect=130)
    assert "interrupted" in res.output
    monkeypatch.setattr(runner, "_write", real)
    rep = json.loads(run_cli("experiment", "run", spec, "--out", out, "-q", "--workers", 1, "--json").stdout)
    assert all(r["walls_differed"] is not None for r in rep["rows"]), [r["walls_differed"] for r in rep["rows"]]
    assert X.read_manifest(out)["layout"]["void"]["differed"].keys() == {"0", "1", "2"}
