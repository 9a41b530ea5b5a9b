"""The streamed summaries (shard by shard) equal the pandas implementation they replaced
(tests/support/summary_oracle.py): counts and integer sums exactly, floats within 1e-9, for every
preset, in match mode, by strategy and by seat, from a run directory and from a loaded Run."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.support import summary_oracle as O
from simcore.runs import analysis
from simcore.contract.rules import PRESETS, preset
from simcore.runs.runner import RunConfig, run
from strategies.registry import parse_seats

MIXED = "greedy,random+void=random,efficient+exchange=keep-pairs,greedy"


def _run(tmp_path, rules, mode, n, seats=MIXED, chunk=700):
    cfg = RunConfig(preset(rules), tuple(s.canonical for s in parse_seats(seats)), 3, mode, n, chunk)
    out = tmp_path / f"{rules}-{mode}"
    run(out, cfg, workers=1)
    return out


CASES = [(p, "hands", 2500) for p in PRESETS] + [("flow", "matches", 180), ("kawu", "matches", 120)]


@pytest.mark.parametrize("rules,mode,n", CASES, ids=[f"{p}-{m}" for p, m, _ in CASES])
def test_streamed_summaries_equal_the_pandas_ones(tmp_path, rules, mode, n, monkeypatch):
    """From the tallies stored in the shards' footers, from a scan of the shards' columns (a run
    written without them), and from a loaded Run: the same numbers as the pandas oracle."""
    out = _run(tmp_path, rules, mode, n)
    whole = O.load_whole(out)
    loaded = analysis.load(out)
    for by in ("strategy", "seat"):
        for source, name in ((out, "stored"), (out, "scanned"), (loaded, "Run")):
            with monkeypatch.context() as m:
                if name == "scanned":
                    m.setattr(analysis, "_stored_partial", lambda *a: None)
                t = analysis.totals(source, by)
            O.assert_frames_close(t.summary(), O.summarize(whole, by), f"{name} summary by {by}")
            O.assert_frames_close(t.patterns(), O.patterns(whole, by), f"{name} patterns by {by}")
            O.assert_close(t.overview(), O.run_overview(whole), f"{name} overview")


def test_stored_tallies_equal_scanned_ones_exactly(tmp_path, monkeypatch):
    """Bit for bit: the footers' tallies and a scan of the columns give identical totals."""
    out = _run(tmp_path, "flow", "hands", 3000)
    stored = analysis.totals(out).summary()
    monkeypatch.setattr(analysis, "_stored_partial", lambda *a: None)
    scanned = analysis.totals(out).summary()
    pd.testing.assert_frame_equal(stored, scanned, check_exact=True)


def test_one_thread_and_many_give_the_same_totals(tmp_path):
    out = _run(tmp_path, "battle", "hands", 3000, chunk=400)
    one = analysis.totals(out, threads=1).summary()
    many = analysis.totals(out, threads=3).summary()
    O.assert_frames_close(many, one, "threads")
