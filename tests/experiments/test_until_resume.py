"""Runs that stop at a precision resume like every run (issue 44, items 1-3): an interrupt in the
second stage is finished by the same command from the plan kept in experiment.json, with the
same numbers as a run never interrupted; the plan and its forecast are printed before the stage
(also with --quiet and --json); CPU per wall is the CPU the run's processes used; memory does
not grow with the walls."""

import json
import math
import re
import subprocess
import sys
import textwrap
import time

import pytest

import experiments
import simcore.runs.runner as runner
from experiments.execute import cpu_seconds, read_manifest, run_experiment
from experiments.spec import parse_spec
from simcore.runs.runner import RunInterrupted
from tests.support.cli import run_cli
from tests.support.experiments import assert_close

SPEC = {"name": "res", "kind": "duplicate", "hands": 400, "field": "efficient",
        "arms": {"A": "greedy", "B": "efficient"}, "baseline": "B"}
WIDTH = 0.2       # greedy against efficient: about 1,100 walls, so a pilot of 400 and 4 more chunks of 200
CHUNK = 200


def _spec():
    return parse_spec(dict(SPEC), source="res")


def _run(out, **kw):
    return experiments.run(_spec(), out, workers=1, until_width=WIDTH, chunk_hands=CHUNK, **kw)


def _numbers(rep: dict) -> dict:
    """A report less what timings and directories change."""
    rep = {k: v for k, v in rep.items() if k not in ("directory", "command", "until")}
    rep["rows"] = [{k: v for k, v in r.items() if not k.startswith("cpu_")} for r in rep["rows"]]
    return rep


def _interrupt_after(monkeypatch, chunks: int) -> None:
    monkeypatch.setenv("SICHUAN_INTERRUPT_AFTER_CHUNKS", str(chunks))
    monkeypatch.setattr(runner, "_CHUNKS_WRITTEN", [0])


def test_an_interrupt_in_the_second_stage_is_resumed_from_the_plan(tmp_path, monkeypatch):
    straight = _run(tmp_path / "a")
    walls = straight["until"]["walls"]
    assert walls >= 400 + 2 * CHUNK + 1 and walls == straight["walls"] == straight["until"]["planned_walls"]

    out = tmp_path / "b"
    _interrupt_after(monkeypatch, 3)      # the pilot's two chunks, then one of the second stage
    with pytest.raises(RunInterrupted):
        _run(out)
    m = read_manifest(out)
    assert not m["complete"] and m["hands"] == walls and m["until_plan"]["planned"] == walls
    shard = out / "A" / "rot-0" / "seats" / "part-000000.parquet"
    assert shard.is_file()
    pilot_inode = shard.stat().st_ino

    # the report agrees that it is incomplete, and says how far it got and what finishes it
    res = run_cli("experiment", "report", out, expect=2)
    assert res.output.count("\n") == 1 and "is incomplete (until width 0.2" in res.output, res.output
    assert f"; 600 of {walls:,} walls played): rerun `sichuan experiment run res --hands 400 --seed 0 " \
           f"--until-width 0.2 --out {out}` to finish it" in res.output, res.output

    monkeypatch.delenv("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    lines = []
    resumed = _run(out, notice=lines.append)
    assert _numbers(resumed) == _numbers(straight)
    assert resumed["until"]["reached"] == straight["until"]["reached"]
    assert shard.stat().st_ino == pilot_inode          # the pilot was not played again
    assert lines[0].startswith("resuming the second stage planned from a pilot of 400 walls: "
                               f"planned {walls:,} walls for width 0.2; 600 played, the other {walls - 600:,} "
                               "take about "), lines
    assert "is incomplete" not in run_cli("experiment", "report", out).output


def test_compare_resumes_after_an_interrupt_in_its_second_stage(tmp_path, monkeypatch):
    out = tmp_path / "c"
    args = ("compare", "greedy", "efficient", "--hands", 1000, "--until-width", 0.08, "--out", out, "--workers", 1)
    _interrupt_after(monkeypatch, 2)      # the pilot's chunk, then the stage's first of two
    res = run_cli(*args, expect=130)
    assert "interrupted: " in res.stderr and "run the same command again to resume" in res.stderr
    assert "already holds" not in res.output
    assert run_cli("experiment", "report", out, expect=2).output.startswith(f"Error: {out} is incomplete")
    monkeypatch.delenv("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    plain = run_cli(*args[:5], "--out", out, "--workers", 1, expect=2).output     # --until-width left out
    assert plain.count("\n") == 1 and "by --until-width 0.08 from a pilot of 1,000: give --until-width 0.08 and " \
                                        "--hands 1000 to resume or extend it" in plain, plain
    rep = json.loads(run_cli(*args, "--json", "-q").stdout)
    assert rep["walls"] == rep["until"]["planned_walls"] > 5000
    assert rep["until"]["pilot_walls"] == 1000


def test_an_interrupted_comparison_without_out_says_there_is_nothing_to_resume(monkeypatch):
    _interrupt_after(monkeypatch, 0)
    res = run_cli("compare", "greedy", "efficient", "--hands", 200, "--until-width", 0.1, "--workers", 1, expect=130)
    assert "temporary directory, now removed: give --out DIR" in res.stderr, res.stderr


def test_a_directory_from_before_plans_were_kept_resumes(tmp_path, monkeypatch):
    """As an earlier version left an interrupt in the second stage: the pilot complete, the
    experiment extended to a round of the stage and stopped there, no plan kept, no CPU measured.
    The same command finishes what it holds, plans from the pilot's walls, and ends where a run
    never interrupted ends."""
    out = tmp_path / "old"
    run_experiment(_spec(), out, hands=400, workers=1, chunk_hands=300)   # its own chunk size, as 100,000 was
    _interrupt_after(monkeypatch, 1)      # 400 to 700 walls: chunk 1 (300-599) of two
    with pytest.raises(RunInterrupted):
        run_experiment(_spec(), out, hands=700, workers=1)
    monkeypatch.delenv("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    m = read_manifest(out)
    del m["timings"]["cpu_seconds"]
    (out / "experiment.json").write_text(json.dumps(m))
    rep = _run(out)
    assert {c["chunk_hands"] for c in read_manifest(out)["runs"].values()} == {300}   # kept, not CHUNK
    straight = _run(tmp_path / "new")
    # the same walls played, summed in other chunks: equal up to rounding
    assert_close(_numbers(rep), _numbers(straight))
    assert rep["until"]["planned_walls"] == straight["until"]["planned_walls"]
    assert rep["rows"][0]["cpu_measured"] is False and straight["rows"][0]["cpu_measured"] is True
    assert "elapsed seconds x cores" in experiments.report.format_text(rep)


def test_the_plan_and_its_forecast_are_printed_with_quiet_and_json(tmp_path):
    res = run_cli("compare", "greedy", "efficient", "--hands", 300, "--until-width", 0.3, "--out", tmp_path / "q",
                  "--json", "-q", "--workers", 1)
    lines = res.stderr.splitlines()
    assert len(lines) == 1, lines
    m = re.fullmatch(r"pilot: 300 walls, widest interval [\d.]+ \(A\); planned ([\d,]+) walls for width 0\.3; "
                     r"the second stage, ([\d,]+) walls, takes about .+ at the pilot's [\d,]+ walls/s "
                     r"\(\d+\.\d\d ms of CPU a wall\)", lines[0])
    assert m, lines[0]
    u = json.loads(res.stdout)["until"]
    assert int(m[1].replace(",", "")) == u["planned_walls"] and int(m[2].replace(",", "")) == u["planned_walls"] - 300
    assert u["forecast_seconds"] > 0 and u["rate"]["walls_per_second"] > 0 and u["rate"]["cpu_per_wall"] > 0
    assert u["forecast_seconds"] == pytest.approx((u["planned_walls"] - 300) / u["rate"]["walls_per_second"], abs=0.1)


def test_max_minutes_caps_the_second_stage_at_the_pilots_rate(tmp_path):
    res = run_cli("compare", "greedy", "efficient", "--hands", 300, "--until-width", 0.01, "--max-minutes", 0.002,
                  "--json", "-q", "--workers", 1)
    u = json.loads(res.stdout)["until"]
    assert u["capped_by"] == "max_minutes" and u["capped"] and u["max_minutes"] == 0.002
    assert u["walls"] == u["planned_walls"] == 300 + math.floor(0.002 * 60 * u["rate"]["walls_per_second"])
    assert "(capped by --max-minutes 0.002)" in res.stderr
    for args in (("compare", "greedy", "efficient", "--hands", 100, "--max-minutes", 1),
                 ("experiment", "run", "void", "--max-minutes", 1, "--out", tmp_path / "v")):
        out = run_cli(*args, expect=2).output
        assert out.startswith("Error: --max-minutes budgets the second stage") and out.count("\n") == 1, out
    assert not (tmp_path / "v").exists()


def test_cpu_per_wall_is_the_cpu_used_not_elapsed_seconds_times_cores(tmp_path, monkeypatch):
    import simcore.runs.batch as batch

    real = batch.run_shadowed

    def descheduled(*args, **kw):   # as on a busy machine: time passes, this process uses no CPU
        time.sleep(1.0)
        return real(*args, **kw)

    monkeypatch.setattr(batch, "run_shadowed", descheduled)
    out = tmp_path / "cpu"
    rep = experiments.run(_spec(), out, workers=1, chunk_hands=CHUNK)     # 400 walls: two chunks
    t = read_manifest(out)["timings"]
    assert t["seconds"] >= 2.0 and 0 < t["cpu_seconds"] < t["seconds"] - 1.5
    row = rep["rows"][0]
    assert row["cpu_measured"] and row["cpu_per_wall_luck"] == pytest.approx(t["cpu_seconds"] / 400)
    assert "(CPU time of its processes)" in experiments.report.format_text(rep)


def test_the_cpu_of_child_processes_counts():
    before = cpu_seconds()
    subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\n"
                                          "while time.process_time() - t < 0.3: pass"], check=True)
    assert cpu_seconds() - before >= 0.25


PEAK = textwrap.dedent("""
    import resource, sys
    import experiments
    from experiments.spec import parse_spec
    spec = parse_spec({"name": "mem", "kind": "duplicate", "hands": 100, "field": "efficient",
                       "arms": {"A": "greedy", "B": "efficient"}, "baseline": "B"}, source="mem")
    experiments.run(spec, sys.argv[1], hands=int(sys.argv[2]), workers=1, estimator="plain",
                    chunk_hands=int(sys.argv[3]))
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


def _peak_kb(out, walls: int, chunk: int) -> int:
    res = subprocess.run([sys.executable, "-c", PEAK, str(out), str(walls), str(chunk)], capture_output=True,
                         text=True, check=True)
    return int(res.stdout.split()[-1])


def test_memory_does_not_grow_with_the_walls(tmp_path):
    """A comparison of ten times the walls peaks where the smaller one does: the runs are played,
    written and read back chunk by chunk (here of 500 walls; 8 MB of play a chunk at most), and
    nothing of a wall is kept after its chunk. (With one chunk for all the walls, as runs had
    before, the larger one peaks about 70 MB higher.)"""
    small = _peak_kb(tmp_path / "s", 1_000, 500)
    big = _peak_kb(tmp_path / "b", 10_000, 500)
    assert big - small < 25_000, (small, big)


def test_a_cells_spec_until_its_pig_rates_resumes_after_an_interrupt(tmp_path, monkeypatch):
    from tests.experiments.test_until import PIGS

    spec = tmp_path / "pigs.toml"
    spec.write_text(PIGS)
    straight = json.loads(run_cli("experiment", "run", spec, "--out", tmp_path / "a", "--json", "-q",
                                  "--workers", 1).stdout)
    out = tmp_path / "b"
    _interrupt_after(monkeypatch, 3)      # the pilot's two cells (a chunk each), then the first cell's second stage
    run_cli("experiment", "run", spec, "--out", out, "-q", "--workers", 1, expect=130)
    res = run_cli("experiment", "report", out, expect=2)
    assert "is incomplete (until pig rates within 25%" in res.output and "--hands 300" in res.output, res.output
    monkeypatch.delenv("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    rep = json.loads(run_cli("experiment", "run", spec, "--out", out, "--json", "-q", "--workers", 1).stdout)
    assert rep["until"] == {**straight["until"], "rate": rep["until"]["rate"],
                            "forecast_seconds": rep["until"]["forecast_seconds"]}
    assert rep["cells"] == straight["cells"]
