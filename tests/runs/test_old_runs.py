"""Runs written by the previous schema (version 1, before the tfmj options) still load,
summarize, query, resume and extend (issue 17): the columns added since (``io.ADDED_COLUMNS``)
read as zeros, which is what those runs played, and a run extended now matches a run played
whole now, hand for hand.

tests/data/v1-run was written by the code of commit ee29620 (schema version 1):

    sichuan simulate --rules kawu --hands 2000 --chunk-hands 1000 --seats greedy --seed 3 --out v1-run
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from simcore.runs import analysis
from simcore.runs import shards as rio

V1 = Path(__file__).resolve().parents[1] / "data" / "v1-run"
SICHUAN = [sys.executable, "-m", "simcore.cli"]
ARGS = ["simulate", "--rules", "kawu", "--chunk-hands", "1000", "--seats", "greedy", "--seed", "3", "-q"]


def test_the_fixture_is_a_version_1_run():
    assert json.loads((V1 / "run.json").read_text())["schema_version"] == 1
    assert "net_kong_transfer" not in pq.read_schema(V1 / "seats" / "part-000000.parquet").names
    assert rio.SCHEMA_VERSION == 2


def test_an_old_run_loads_with_the_added_columns_as_zeros():
    run = analysis.load(V1)
    assert len(run.hands) == 2000
    for table, cols in rio.ADDED_COLUMNS.items():
        df = getattr(run, table)
        for c in cols:
            assert c in df.columns and (df[c] == 0).all(), (table, c)
    sub = analysis.load(V1, tables=["wins"], columns={"wins": ["hand", "self_draw", "base"]},
                        filter=pc.field("hand") < 500)
    assert list(sub.wins.columns) == ["hand", "self_draw", "base"] and (sub.wins["self_draw"] == 0).all()
    assert len(sub.wins) and (sub.wins["hand"] < 500).all()


def test_an_old_run_summarizes_as_its_loaded_tables_do():
    """The stored (version 1) tallies, brought to the new layout, give the summary the tables give."""
    streamed = analysis.summarize(V1)
    loaded = analysis.summarize(analysis.load(V1))
    assert streamed.to_dict() == loaded.to_dict()
    assert (streamed["net_kong_transfer"] == 0).all() if "net_kong_transfer" in streamed else True


def test_an_old_run_answers_sql():
    pytest.importorskip("duckdb")
    con = analysis.sql(V1)
    assert con.execute("SELECT count(*), sum(net_kong_transfer) FROM seats").fetchone() == (8000, 0)
    assert con.execute("SELECT sum(kong_discard) + sum(self_draw) FROM wins").fetchone()[0] == 0


@pytest.mark.slow
def test_an_old_run_extends_and_matches_a_run_played_whole_now(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(V1, old)
    subprocess.run(SICHUAN + ARGS + ["--hands", "3000", "--out", str(old)], check=True, capture_output=True)
    new = tmp_path / "new"
    subprocess.run(SICHUAN + ARGS + ["--hands", "3000", "--out", str(new)], check=True, capture_output=True)
    for table in rio.TABLES:
        for c in range(3):
            a = pq.read_table(old / table / rio.shard_name(c))
            b = pq.read_table(new / table / rio.shard_name(c))
            shared = [n for n in b.column_names if n in a.column_names]
            assert a.select(shared).to_pylist() == b.select(shared).to_pylist(), (table, c)
    assert analysis.summarize(old).to_dict() == analysis.summarize(new).to_dict()
    # an old run given a rule the old code never had is another rule set, refused in one line
    res = subprocess.run(SICHUAN + ARGS + ["--hands", "3000", "--set", "fan_kong_discard=1", "--out", str(old)],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "fan_kong_discard" in res.stderr and len(res.stderr.strip().splitlines()) == 1
