"""Runs written by earlier schemas still load, summarize, query, resume and extend (issues 17
and 35): the columns added since read as those runs played them (``shards.LATER_COLUMNS``: zeros,
the seats' parts derived from ``strategy``, a null luck), and a run extended now matches a run
played whole now, hand for hand. A run or dataset recorded before a built-in strategy declared
a parameter reads it at its default, and extends.

tests/data/v1-run was written by the code of commit ee29620 (schema version 1):

    sichuan simulate --rules kawu --hands 2000 --chunk-hands 1000 --seats greedy --seed 3 --out v1-run

tests/data/v2-run by the code of commit 8a60ca9 (schema version 2, before the policy columns):

    sichuan simulate --rules flow --hands 2000 --chunk-hands 1000 --seed 3 \
        --seats "expert,expert+void=fewest,efficient,expert" --out v2-run
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from simcore.contract.view import CONTRACT_VERSION
from simcore.runs import analysis
from simcore.runs import shards as rio
from strategies.names import POLICY_COLUMNS

V1 = Path(__file__).resolve().parents[1] / "data" / "v1-run"
V2 = V1.parent / "v2-run"
V2_PARTS = [("expert", "expert", "expert"), ("expert", "expert", "fewest"), ("efficient", "shortest", "fewest"),
            ("expert", "expert", "expert")]   # each seat's play, exchange_policy, void_policy
SICHUAN = [sys.executable, "-m", "simcore.cli"]
ARGS = ["simulate", "--rules", "kawu", "--chunk-hands", "1000", "--seats", "greedy", "--seed", "3", "-q"]


def test_the_fixture_is_a_version_1_run():
    assert json.loads((V1 / "run.json").read_text())["schema_version"] == 1
    assert "net_kong_transfer" not in pq.read_schema(V1 / "seats" / "part-000000.parquet").names
    assert json.loads((V2 / "run.json").read_text())["schema_version"] == 2
    assert "play" not in pq.read_schema(V2 / "seats" / "part-000000.parquet").names
    assert rio.SCHEMA_VERSION == 3


def _parts(df):
    return [tuple(r) for r in df[list(POLICY_COLUMNS)].astype(str).itertuples(index=False)]


def test_a_version_2_run_loads_its_policy_columns_derived_and_luck_null():
    run = analysis.load(V2, tables=["seats"])
    assert _parts(run.seats[run.seats["hand"] == 5]) == V2_PARTS
    assert _parts(run.seats) == V2_PARTS * 2000
    assert run.seats["luck"].isna().all()
    names = [c for c, _, _ in rio.COLUMNS["seats"]]
    assert list(run.seats.columns) == names
    # a column list and a filter on a derived column read as a new run's would
    sub = analysis.load(V2, tables=["seats"], columns={"seats": ["hand", "void_policy", "net"]},
                        filter=pc.field("void_policy") == "fewest")
    assert list(sub.seats.columns) == ["hand", "void_policy", "net"] and len(sub.seats) == 4000
    assert set(sub.seats["void_policy"].astype(str)) == {"fewest"}


def test_a_version_2_run_summarizes_and_answers_sql_by_its_parts():
    for by in POLICY_COLUMNS:
        streamed = analysis.summarize(V2, by=by)
        loaded = analysis.summarize(analysis.load(V2), by=by)   # one chunk: moments merged in another order
        pd.testing.assert_frame_equal(streamed, loaded, rtol=1e-12)
        assert sorted(streamed[by]) == sorted({p[POLICY_COLUMNS.index(by)] for p in V2_PARTS})
    # the void policies' seat-hands: fewest is seats 1 and 2, expert seats 0 and 3
    s = analysis.summarize(V2, by="void_policy").set_index("void_policy")
    assert s.loc["fewest", "seat_hands"] == s.loc["expert", "seat_hands"] == 4000
    pytest.importorskip("duckdb")
    con = analysis.sql(V2)
    rows = con.execute("SELECT seat, play, exchange_policy, void_policy, count(luck) FROM seats "
                       "GROUP BY ALL ORDER BY seat").fetchall()
    assert rows == [(s, *V2_PARTS[s], 0) for s in range(4)]
    assert [c for c in con.sql("SELECT * FROM seats LIMIT 0").columns] == [c for c, _, _ in rio.COLUMNS["seats"]]


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
    # run.json records the strategies' view layout now; the old run had none (version 1) and still resumed
    assert "contract_version" not in json.loads((V1 / "run.json").read_text())
    assert json.loads((new / "run.json").read_text())["contract_version"] == CONTRACT_VERSION
    # an old run given a rule the old code never had is another rule set, refused in one line
    res = subprocess.run(SICHUAN + ARGS + ["--hands", "3000", "--set", "fan_kong_discard=1", "--out", str(old)],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "fan_kong_discard" in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_version_2_run_extends_with_its_parts_written_as_they_were_derived(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(V2, old)
    args = ["simulate", "--rules", "flow", "--chunk-hands", "1000", "--seed", "3", "-q",
            "--seats", "expert,expert+void=fewest,efficient,expert", "--hands", "3000", "--out", str(old)]
    subprocess.run(SICHUAN + args, check=True, capture_output=True)
    assert "play" in pq.read_schema(old / "seats" / rio.shard_name(2)).names
    assert "play" not in pq.read_schema(old / "seats" / rio.shard_name(0)).names
    run = analysis.load(old, tables=["seats"])
    assert _parts(run.seats) == V2_PARTS * 3000
    pd.testing.assert_frame_equal(analysis.summarize(old, by="play"), analysis.summarize(run, by="play"), rtol=1e-12)
    pytest.importorskip("duckdb")
    assert analysis.sql(old).execute("SELECT count(DISTINCT (play, void_policy)) FROM seats").fetchone()[0] == 3


SEARCHING = "search[rollouts=2,max_rollouts=2],expert,expert,expert"


def _drop_near(path: Path, key: str) -> None:
    """Rewrite a manifest's seats as they were recorded before ``search`` declared ``near``."""
    m = json.loads(path.read_text())
    seats = m["config"][key]
    assert any(",near=8]" in s for s in seats)
    m["config"][key] = [s.replace(",near=8]", "]") for s in seats]
    path.write_text(json.dumps(m))


def test_a_run_recorded_before_a_parameter_was_declared_extends_as_played_whole(tmp_path):
    """A built-in's parameter declared since a run was written reads at its default (which plays
    as the run did): the run extends, and matches one played whole now; another value is refused."""
    from tests.support.cli import run_cli

    old, whole = tmp_path / "old", tmp_path / "whole"
    run_cli("simulate", "--seats", SEARCHING, "--hands", 4, "--chunk-hands", 2, "--out", old, "-q")
    _drop_near(old / "run.json", "seats")
    run_cli("simulate", "--seats", SEARCHING, "--hands", 8, "--chunk-hands", 2, "--out", old, "-q")
    run_cli("simulate", "--seats", SEARCHING, "--hands", 8, "--chunk-hands", 2, "--out", whole, "-q")
    a, b = (analysis.load(d, tables=["seats"]).seats.sort_values(["hand", "seat"]).reset_index(drop=True)
            for d in (old, whole))
    pd.testing.assert_frame_equal(a[["hand", "seat", "net"]], b[["hand", "seat", "net"]])
    res = run_cli("simulate", "--seats", SEARCHING.replace("]", ",near=0]", 1), "--hands", 10, "--chunk-hands", 2,
                  "--out", old, "-q", expect=2)
    assert res.output.startswith("Error: ") and "play is search with near=8 there, near=0 now" in res.output, res.output


def test_a_dataset_recorded_before_a_parameter_was_declared_extends(tmp_path):
    from simcore.env.dataset import load
    from tests.support.cli import run_cli

    out = tmp_path / "ds"
    args = ("dataset", "--seats", SEARCHING, "--record", "0", "--out", out, "--chunk-hands", 2, "-q")
    run_cli(*args, "--hands", 4)
    _drop_near(out / "dataset.json", "seats")
    run_cli(*args, "--hands", 6)
    assert sorted(load(out).hand.unique()) == list(range(6))
    res = run_cli("dataset", "--seats", SEARCHING.replace("]", ",near=0]", 1), "--record", "0", "--out", out,
                  "--chunk-hands", 2, "--hands", 8, "-q", expect=2)
    assert res.output.startswith("Error: ") and "another seats" in res.output
