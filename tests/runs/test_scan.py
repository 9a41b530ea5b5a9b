"""``simcore.runs.scan``: a run read chunk by chunk sees complete chunks only, in order, with the
columns asked for; a corrupt shard is one line naming the file and the command that repairs the
run."""

from __future__ import annotations

import pytest

from simcore.runs import scan
from simcore.runs import shards as rio
from tests.support.cli import run_cli


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("scan") / "run"
    run_cli("simulate", "-q", "--rules", "kawu", "--set", "fan_cap=4", "--seats", "greedy", "--hands", 900,
            "--chunk-hands", 300, "--seed", 2, "--out", out, "--workers", 1)
    return out


def test_chunks_are_read_in_order_with_the_columns_asked_for(run):
    seen = []
    out = list(scan.scan(run, {"seats": ["hand", "net"], "hands": None}, lambda c, t: seen.append(c) or
                         (t["seats"].column_names, t["hands"].num_rows, int(t["seats"]["net"].to_numpy().sum()))))
    assert sorted(seen) == scan.chunks(run) == [0, 1, 2]
    assert [o[0] for o in out] == [["hand", "net"]] * 3 and [o[1] for o in out] == [300] * 3
    assert [o[2] for o in out] == [0, 0, 0]    # every hand sums to zero


def test_a_chunk_missing_a_table_is_not_read(run, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "payments" / rio.shard_name(1)).unlink()
    assert scan.chunks(copy) == [0, 2]


def test_a_corrupt_shard_names_the_file_and_the_repair(run, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    bad = copy / "wins" / rio.shard_name(2)
    bad.write_bytes(bad.read_bytes()[:100])
    with pytest.raises(scan.CorruptShardError) as info:
        scan.check_footers(copy)
    msg = str(info.value)
    assert str(bad) in msg and "\n" not in msg
    assert "sichuan simulate --rules kawu --set fan_cap=4" in msg and "--chunk-hands 300" in msg and "--seed 2" in msg


def test_the_resume_command_replays_the_configuration(run):
    cmd = scan.resume_command(run, rio.read_manifest(run))
    assert cmd.startswith("sichuan simulate --rules kawu --set fan_cap=4")
    assert "--hands 900" in cmd and f"--out {run}" in cmd
