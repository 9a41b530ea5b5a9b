"""A first run says what it is doing while the engine compiles (what, why, about how long), once,
and not with --quiet (``simcore.runs.warmup``)."""

from __future__ import annotations

import simcore.runs.warmup as warmup
from tests.support.cli import run_cli


def test_the_compiling_line_says_what_why_and_how_long():
    line = warmup.compiling_line(2)
    assert line.startswith("compiling the engine") and "first run after installing" in line
    assert f"about {warmup.COLD_MINUTES} minutes on 2 idle cores" in line and "later runs start" in line


def test_a_cold_simulate_says_it_compiles_and_when_it_is_done(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "engine_cached", lambda: False)   # as on a fresh machine (the work is cached here)
    res = run_cli("simulate", "--hands", 200, "--seats", "greedy", "--out", tmp_path / "a")
    lines = [x for x in res.stderr.splitlines() if x.startswith("compil")]
    assert len(lines) == 2 and lines[0] == warmup.compiling_line(__import__("os").cpu_count() or 1)
    assert lines[1].startswith("compiled in ")
    quiet = run_cli("simulate", "--hands", 200, "--seats", "greedy", "--out", tmp_path / "b", "-q")
    assert "compil" not in quiet.stderr


def test_a_warm_run_says_nothing_of_compiling(tmp_path):
    res = run_cli("simulate", "--hands", 200, "--seats", "greedy", "--out", tmp_path / "a")
    assert "compil" not in res.stderr
