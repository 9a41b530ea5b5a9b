"""What a user meets at the command line: reports that say what they count, Ctrl-C that stops at
once and resumes exactly, messages that name the fix, and help whose lists are complete."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from simcore.runs import shards as rio
from simcore.contract import rules as R
from simcore.contract.rules import RuleError
from tests.support.cli import SICHUAN, invoke



def one_line_error(res, code: int = 2) -> str:
    assert res.exit_code == code, (res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    return lines[0]


# -- 4. reports that say what they count ---------------------------------------------------------

def test_summarize_says_which_wins_each_figure_counts(tmp_path):
    out = tmp_path / "flow"
    res = invoke("simulate", "-q", "--rules", "flow", "--seats", "greedy", "--hands", 400, "--out", out,
                 "--workers", 1)
    assert res.exit_code == 0, res.output
    text = invoke("summarize", out).stdout
    line = next(x for x in text.splitlines() if "win rate" in x)
    assert line.strip().startswith("first wins:")
    assert "self-draw share" in line and "kong replacements included" in line
    assert "first-win mean base" in line
    pattern_head = next(x for x in text.splitlines() if "patterns" in x)
    assert "all wins" in pattern_head
    pattern_row = text.splitlines()[text.splitlines().index(pattern_head) + 1]
    assert "all-win mean base" in pattern_row
    # the two means are of different wins, so they are never printed under one name
    assert set(re.findall(r"(\S+) mean base", text)) == {"first-win", "all-win"}


def _cells_report(rate, lo, hi) -> dict:
    pigs = {"pigs": 510, "rate": rate, "rate_low": lo, "rate_high": hi, "rate_checked": rate,
            "rate_checked_low": lo, "rate_checked_high": hi, "pig_net": -30.0, "pig_net_low": -31.0,
            "pig_net_high": -29.0, "cost_per_seat_hand": rate * 16, "cost_low": lo * 16, "cost_high": hi * 16}
    matches = {"kind": "matches", "hands_per_match": 8, "matches": 5000, "sd": 20.0, "sd_low": 19.0, "sd_high": 21.0,
               "q01": -50.0, "q05": -30.0, "q50": 0.0, "q95": 30.0, "q99": 50.0,
               "loss_rate": rate, "loss_low": lo, "loss_high": hi}
    reasons = {"points_per_hand": 10.0,
               "reasons": {"win": {"share": rate, "share_low": lo, "share_high": hi, "payments": 3}}}
    cell = {"cell": "c", "seats": ["greedy"] * 4, "hands": 5000, "pigs": pigs, "matches": matches, "reasons": reasons}
    return {"kind": "cells", "name": "x", "seed": 0, "hands_played": 5000, "show": ["pigs", "matches", "reasons"],
            "loss_threshold": 50, "cells": [cell], "definitions": {}, "command": "sichuan experiment run x"}


@pytest.mark.parametrize("rate, lo, hi", [(0.102, 0.1005, 0.1035), (1.02e-4, 1.015e-4, 1.025e-4),
                                          (0.5, 0.4999, 0.5001), (3e-3, 1e-3, 9e-3)])
def test_cells_report_shows_the_interval_of_every_rate(rate, lo, hi):
    from experiments.report import format_text

    text = format_text(_cells_report(rate, lo, hi))
    bounds = re.findall(r"\[([^\],]+), ([^\]]+)\]", text)
    assert len(bounds) >= 6
    for a, b in bounds:  # every interval's bounds print differently, rates and the rest alike
        assert a != b, text


def test_compare_names_hands_needed_and_hands_played(tmp_path):
    out = tmp_path / "cmp"
    res = invoke("compare", "greedy", "efficient", "--hands", 150, "--out", out, "-q", "--workers", 1)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    header = next(x for x in lines if x.startswith("arm "))
    assert "hands for width 0.1" in header and "hands played" in header
    assert not re.search(r"\bhands\s*$", header.split("hands for width")[0])  # no bare "hands" column
    # A's four rotations and the all-B table (B's four rotations are one run): 5 tables of 150 walls
    assert "750 hands played" in lines[0]
    rep = json.loads(invoke("experiment", "report", out, "--json").stdout)
    assert rep["hands_played"] == 750 and rep["tables"] == 5
    a = next(r for r in rep["rows"] if r["arm"] == "A")
    assert a["hands_needed"] == a["walls_needed"] * 5   # counted as the hands played are
    row = next(x for x in lines if x.startswith("A "))
    assert row.split()[-4:-2] == [f"{a['hands_needed']:,}", "750"]   # then the walls differed


# -- 4. Ctrl-C ---------------------------------------------------------------------------------

def _interrupt(cmd, out: Path, started) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``cmd`` in its own process group, send it SIGINT as a terminal's Ctrl-C does once
    ``started()``, and return the finished process and the seconds it took to exit."""
    # a terminal's program starts with SIGINT at its default, whatever this process was given
    # (a background job of a non-interactive shell inherits it ignored)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 300
        while not started() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        t0 = time.time()
        os.killpg(proc.pid, signal.SIGINT)
        so, se = proc.communicate(timeout=120)
        took = time.time() - t0
        assert not _group_alive(proc.pid, 10), "a worker process was left behind"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, so, se), took


def _group_alive(pgid: int, seconds: float) -> bool:
    """Whether a process of the group is still there after ``seconds`` (an exited helper may be
    a zombie for a moment, until it is reaped)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.slow
@pytest.mark.parametrize("workers, delay", [(1, 3.0), (2, 3.0), (2, 0.0)])
def test_ctrl_c_stops_without_finishing_the_chunks_in_play(tmp_path, workers, delay):
    """Chunks of about 45 s each (expert, checked, on 2 cores): Ctrl-C a few seconds into the play
    (or while the workers start) stops at once, with one line and a non-zero status, and leaves
    no chunk."""
    out = tmp_path / "r"
    per = 400_000 // workers
    cmd = SICHUAN + ["simulate", "-q", "--check", "--seats", "expert", "--hands", str(per * workers),
                     "--chunk-hands", str(per), "--workers", str(workers), "--out", str(out)]
    t_manifest = []

    def started():
        if not t_manifest and (out / rio.MANIFEST).exists():
            t_manifest.append(time.time())
        return bool(t_manifest) and time.time() - t_manifest[0] >= delay

    res, took = _interrupt(cmd, out, started)
    assert res.returncode != 0
    assert res.stderr.strip().splitlines() == [
        f"interrupted: 0 of {workers} chunks complete; run the same command again to resume"]
    assert took < 15, f"took {took:.1f} s to stop"
    assert not rio.complete_chunks(out)


@pytest.mark.slow
def test_ctrl_c_stops_an_experiment_as_it_stops_a_run(tmp_path):
    """``sichuan compare`` (an experiment) interrupted: the run's one line, exit status 130."""
    out = tmp_path / "cmp"
    cmd = SICHUAN + ["compare", "expert", "efficient", "--hands", "400000", "--workers", "1", "--out", str(out), "-q"]
    res, took = _interrupt(cmd, out, lambda: any(out.rglob("run.json")))
    assert res.returncode == 130, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "run the same command again" in lines[0]
    assert took < 15


@pytest.mark.slow
def test_ctrl_c_then_resume_gives_the_same_run_and_reports_this_sessions_hands(tmp_path):
    out, ref = tmp_path / "r", tmp_path / "ref"
    args = ["simulate", "--seats", "expert", "--hands", "40000", "--chunk-hands", "400", "--workers", "1"]
    res, _ = _interrupt(SICHUAN + args + ["-q", "--out", str(out)], out,
                        lambda: out.exists() and len(rio.complete_chunks(out)) >= 2)
    done = rio.complete_chunks(out)
    assert res.returncode != 0 and 2 <= len(done) < 100
    assert res.stderr.strip().splitlines() == [
        f"interrupted: {len(done)} of 100 chunks complete; run the same command again to resume"]
    again = subprocess.run(SICHUAN + args + ["--out", str(out)], capture_output=True, text=True, check=True)
    first = again.stdout.splitlines()[0]
    played = 40_000 - 400 * len(done)
    m = re.fullmatch(rf"wrote {re.escape(str(out))}: {played:,} hands in ([\d.]+) s \(([\d,]+) hands/s\); "
                     r"the run holds 40,000", first)
    assert m, first
    assert float(m.group(2).replace(",", "")) == pytest.approx(played / float(m.group(1)), rel=0.1)
    subprocess.run(SICHUAN + args + ["-q", "--out", str(ref)], check=True, capture_output=True)
    for name in rio.TABLES:  # the same chunks, so shard by shard
        for c in range(100):
            a, b = (pq.read_table(d / name / rio.shard_name(c)) for d in (out, ref))
            assert a.equals(b, check_metadata=True), (name, c)
    assert invoke("summarize", out).stdout == invoke("summarize", ref).stdout.replace(str(ref), str(out))


# -- 5. messages for the usual mistakes ----------------------------------------------------------

def _rule_file(tmp_path, text: str) -> str:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text, key, extra", [
    ('exchange = "false"\n', "option exchange", "TOML booleans are written without quotes: exchange = false"),
    ('kong_refund = "True"\n', "option kong_refund", "TOML booleans are written without quotes: kong_refund = true"),
    ('fan_cap = "5"\n', "option fan_cap", "TOML numbers are written without quotes: fan_cap = 5"),
    ("fan_cap = 12\n", "option fan_cap", "expected an integer from 1 to 8"),
    ("fan_capp = 5\n", "unknown option 'fan_capp'", "did you mean 'fan_cap'?"),
    ('base = "kawo"\n', "base: unknown preset 'kawo'", "did you mean 'kawu'?"),
])
def test_a_rule_file_error_names_the_file_and_the_key(tmp_path, text, key, extra):
    path = _rule_file(tmp_path, text)
    with pytest.raises(RuleError) as info:
        R.resolve(path)
    msg = str(info.value)
    assert msg.startswith(f"rule file {path!r}: {key}") and extra in msg and "\n" not in msg
    line = one_line_error(invoke("rules", path))
    assert path in line and key in line and extra in line


@pytest.mark.parametrize("args, hint", [
    (["rules", "kawo"], "did you mean 'kawu'?"),
    (["rules", "--rules", "chengu"], "did you mean 'chengdu'?"),
    (["rules", "--set", "fan_capp=5"], "did you mean 'fan_cap'?"),
    (["rules", "--set", "kong_refnd=false"], "did you mean 'kong_refund'?"),
    (["rules", "--set", "variant=flwo"], "did you mean 'flow'?"),
    (["trace", "--hand", "0", "--seats", "efficent"], "did you mean 'efficient'?"),
    (["trace", "--hand", "0", "--seats", "efficient+exchange=shortst"], "did you mean 'shortest'?"),
    (["trace", "--hand", "0", "--seats", "efficient+void=fewst"], "did you mean 'fewest'?"),
    (["trace", "--hand", "0", "--seats", "efficient+vod=fewest"], "did you mean 'void'?"),
    (["trace", "--hand", "0", "--seats", "expert[pase=1.5]"], "did you mean 'pace'?"),
    (["trace", "--hand", "0", "--seats", "expert[flush_wieght=3]"], "did you mean 'flush_weight'?"),
])
def test_unknown_names_suggest_the_closest(args, hint):
    assert hint in one_line_error(invoke(*args))


def test_no_suggestion_for_a_name_like_none():
    line = one_line_error(invoke("rules", "--set", "zzz=1"))
    assert "did you mean" not in line and "unknown option 'zzz'" in line


# -- lists in --help come from the tables they list --------------------------------------------

@pytest.mark.parametrize("command", [[], ["rules"], ["simulate"], ["trace"], ["compare"], ["experiment", "run"],
                                     ["ladder"], ["analyze"]])
def test_every_help_that_lists_presets_lists_them_all(command):
    text = " ".join(invoke(*command, "--help").output.split())
    if "preset" not in text.lower() or "kawu" not in text:
        return  # the command names no presets at all
    missing = [p for p in R.PRESETS if p not in text]
    assert not missing, f"sichuan {' '.join(command)} --help omits {missing}"


def test_experiment_help_lists_every_shipped_experiment():
    from experiments.spec import SHIPPED

    text = invoke("experiment", "--help").output
    assert all(name in text for name in SHIPPED), [n for n in SHIPPED if n not in text]


def test_every_commands_default_seed_is_zero():
    """A seed left out is 0 everywhere (an experiment's is its spec's), so a figure reproduces
    from the command alone."""
    import click

    from simcore.cli import main

    ctx = click.Context(main)
    found = {}

    def walk(group, prefix):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if isinstance(cmd, click.Group):
                walk(cmd, prefix + [name])
            for p in cmd.params:
                if p.name == "seed":
                    found[" ".join(prefix + [name])] = p.default

    walk(main, [])
    assert {"simulate", "trace", "analyze", "compare", "ladder", "experiment run"} <= set(found)
    assert all(v in (0, None) for v in found.values()), found
    help_text = " ".join(invoke("trace", "--help").output.split()) + " ".join(invoke("analyze", "--help").output.split())
    assert help_text.count("[default: 0]") >= 2


# -- numbers that read as what they are --------------------------------------------------------

@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("numbers") / "run"
    res = invoke("simulate", "-q", "--hands", 2000, "--seats", "greedy,efficient,random,defensive", "--out", out,
                 "--workers", 1)
    assert res.exit_code == 0, res.output
    return out


def test_summaries_print_integers_as_integers_and_rates_with_their_counts(small_run):
    text = invoke("summarize", small_run, "--by", "seat").output
    assert "seat 0\n" in text and "hands 2,000 " in text and "seat 0.0" not in text and "2,000.0" not in text
    assert re.search(r"flower pig \S+ \(\d+ of 2,000\) \[", text), text


def test_summarize_by_dealer_sums_to_zero_per_hand(small_run):
    from simcore.runs import analysis

    df = analysis.summarize(small_run, by="dealer").set_index("dealer")
    assert list(df.index) == ["dealer", "others"] and list(df["seat_hands"]) == [2000, 6000]
    assert abs(df.loc["dealer", "mean_net"] + 3 * df.loc["others", "mean_net"]) < 1e-9
    text = invoke("summarize", small_run, "--by", "dealer").output
    assert "dealer (seats that dealt the hand)" in text and "others (the three seats that did not deal)" in text


def test_sql_sums_print_as_integers(small_run):
    out = invoke("sql", small_run, "SELECT seat, sum(net) AS s, count(*) AS n FROM seats GROUP BY ALL ORDER BY seat",
                 "--json").output
    rows = json.loads(out)
    assert all(isinstance(r["s"], int) and isinstance(r["n"], int) for r in rows) and sum(r["s"] for r in rows) == 0


def test_a_mean_of_few_values_prints_its_count_not_an_interval():
    from simcore.cli import mean_text, number, rate_text

    assert mean_text(-194.0, -194.0, -194.0, 2) == "-194.000 (n = 2: too few for a 95% interval)"
    assert "[95% CI" in mean_text(0.5, 0.1, 0.9, 30)
    assert number(0.0000456) == "4.56e-05" and number(0.0) == "0" and number(0.0123) == "0.0123"
    assert rate_text(5, 2_000_000, 1.1e-6, 5.9e-6) == "2.50e-06 (5 of 2,000,000) [1.10e-06, 5.90e-06]"
