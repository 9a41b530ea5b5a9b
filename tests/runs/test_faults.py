"""Faults at scale: a disk that fills mid-run, and corrupt shards in any of a run's tables. Each
gives one line and exit status 2, leaves nothing half-written visible, and the same command run
again completes the run with the content of an uninterrupted one."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simcore.runs import shards as rio
from simcore.cli import main
from simcore.runs.scan import chunks

ARGS = ["--hands", "4000", "--chunk-hands", "400", "--seats", "greedy", "--workers", "1", "-q"]


def simulate(out, *extra):
    return CliRunner().invoke(main, ["simulate", *ARGS, *extra, "--out", str(out)])


def content(run_dir: Path) -> dict:
    """Every table's rows, as values, per chunk."""
    return {name: [pq.read_table(run_dir / name / rio.shard_name(c)).to_pylist() for c in chunks(run_dir)]
            for name in rio.TABLES}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("faults") / "ref"
    assert simulate(out).exit_code == 0
    return content(out)


def _visible_files_are_complete(run_dir: Path) -> None:
    for name in rio.TABLES:
        for f in os.listdir(run_dir / name):
            if not f.startswith("."):
                pq.read_table(run_dir / name / f)  # readable
    assert not [f for name in rio.TABLES for f in os.listdir(run_dir / name) if f.startswith(".")]


def test_a_full_disk_mid_run_is_one_line_and_the_rerun_completes(tmp_path, monkeypatch, reference):
    real = pq.write_table

    def full_at_chunk_7(table, where, **kw):
        if "part-000007" in str(where) and "payments" in str(where):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, where, **kw)

    out = tmp_path / "run"
    monkeypatch.setattr(rio.pq, "write_table", full_at_chunk_7)
    res = simulate(out)
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert len(line.splitlines()) == 1
    assert f"no space left on device writing chunk 7 of {out}" in line and "7 of 10 chunks are complete" in line
    assert "run the same command again to resume" in line
    assert sorted(chunks(out)) == list(range(7))
    _visible_files_are_complete(out)
    monkeypatch.setattr(rio.pq, "write_table", real)
    assert simulate(out).exit_code == 0
    assert content(out) == reference


def _can_mount_tmpfs(path: Path) -> bool:
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_a_real_full_disk(tmp_path, reference):
    """The same on a small tmpfs, where the tests run as root (a real ENOSPC from the kernel)."""
    disk = tmp_path / "disk"
    if not _can_mount_tmpfs(disk):
        pytest.skip("needs root and tmpfs to make a small disk")
    try:
        out = disk / "run"
        res = simulate(out)
        assert res.exit_code == 2 and "no space left on device writing" in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        _visible_files_are_complete(out)
        done = chunks(out)
        assert 0 < len(done) < 10
        moved = tmp_path / "moved"
        shutil.copytree(out, moved)  # "free space": the run moves to a bigger disk and resumes there
        assert simulate(moved).exit_code == 0
        assert content(moved) == reference
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], capture_output=True)  # lazy: an open handle must not leak the mount


@pytest.mark.parametrize("table", rio.TABLES)
def test_a_corrupt_shard_in_any_table_is_played_again_on_resume(tmp_path, table, reference):
    out = tmp_path / "run"
    assert simulate(out).exit_code == 0
    shard = out / table / rio.shard_name(3)
    shard.write_bytes(shard.read_bytes()[: len(shard.read_bytes()) // 2])  # truncated
    res = CliRunner().invoke(main, ["summarize", str(out)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert f"corrupt shard {shard}" in res.stderr
    assert "sichuan simulate" in res.stderr and f"--out {out}" in res.stderr  # how to repair it
    assert simulate(out).exit_code == 0  # the resume finds it and plays chunk 3 again
    assert content(out) == reference


def test_the_suggested_command_resumes_the_run(tmp_path, reference):
    out = tmp_path / "run"
    assert simulate(out).exit_code == 0
    shard = out / "wins" / rio.shard_name(5)
    shard.write_bytes(b"PAR1 not really")
    res = CliRunner().invoke(main, ["summarize", str(out)])
    command = res.stderr.split("resume the run to play its chunk again: ", 1)[1].strip()
    args = command.split()[2:]  # after "sichuan simulate"
    assert args[args.index("--hands") + 1] == "4000" and args[args.index("--seed") + 1] == "0"
    again = CliRunner().invoke(main, ["simulate", *[a.strip("'") for a in args], "--workers", "1", "-q"])
    assert again.exit_code == 0, again.output
    assert content(out) == reference
    assert hashlib.sha256(shard.read_bytes()).hexdigest()  # rewritten
