"""An interrupted experiment says how much of the whole experiment it keeps (issue 44, item 10: not
"1 of 1 chunks complete", the count of whichever run was in play)."""

import simcore.runs.runner as runner
from tests.support.cli import run_cli


def test_an_interrupt_counts_the_whole_experiment(tmp_path, monkeypatch):
    out = tmp_path / "c"
    args = ("compare", "greedy", "efficient", "--hands", 12000, "--out", out, "--workers", 1)
    monkeypatch.setenv("SICHUAN_INTERRUPT_AFTER_CHUNKS", "1")    # the first of three chunks of 5,000 walls
    monkeypatch.setattr(runner, "_CHUNKS_WRITTEN", [0])
    res = run_cli(*args, expect=130)
    line = res.stderr.strip().splitlines()[-1]
    # A's four rotations and the field's table, played together: the first chunk of each is kept
    assert line == ("interrupted: 25,000 of the experiment's 60,000 hands (5 runs) are in complete chunks and kept; "
                    "run the same command again to resume"), res.stderr
    monkeypatch.delenv("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    again = run_cli(*args, "-q")
    assert "12,000 walls" in again.stdout
