"""Loading what you need (tables, columns, pushed-down filters, pandas nullable types) and SQL
over the shards (DuckDB), checked against pandas."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from click.testing import CliRunner

from simcore.runs import analysis
from simcore.runs import shards as rio
from simcore.cli import main
from simcore.contract.rules import preset
from simcore.runs.runner import RunConfig, run
from strategies.registry import parse_seats

SEATS = "greedy,random+void=random,efficient,greedy"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("api") / "run"
    cfg = RunConfig(preset("battle"), tuple(s.canonical for s in parse_seats(SEATS)), 2, "matches", 250, 400)
    run(out, cfg, workers=1)
    return out


def test_nullable_columns_arrive_as_pandas_nullable_types(run_dir):
    r = analysis.load(run_dir)
    assert str(r.seats["match"].dtype) == "Int32" and str(r.seats["hand_in_match"].dtype) == "Int16"
    assert str(r.seats["win_order"].dtype) == "Int16" and str(r.seats["fan"].dtype) == "Int16"
    assert str(r.seats["base"].dtype) == "Int32"
    assert str(r.seats["flower_pig"].dtype) == "boolean" and str(r.seats["ready"].dtype) == "boolean"
    assert str(r.wins["from_seat"].dtype) == "Int8" and str(r.hands["match"].dtype) == "Int32"
    assert r.seats["fan"].isna().any() and r.seats["flower_pig"].isna().any()
    assert str(r.seats["net"].dtype) == "int32" and str(r.hands["dealer"].dtype) == "int8"  # not nullable: plain


def test_load_reads_only_the_tables_columns_and_rows_asked_for(run_dir):
    whole = analysis.load(run_dir)
    part = analysis.load(run_dir, tables=["seats"], columns={"seats": ["hand", "seat", "net"]},
                         filter=(pc.field("seat") == 0) & (pc.field("hand") < 700))
    assert list(part.seats.columns) == ["hand", "seat", "net"]
    want = whole.seats[(whole.seats["seat"] == 0) & (whole.seats["hand"] < 700)][["hand", "seat", "net"]]
    pd.testing.assert_frame_equal(part.seats.reset_index(drop=True), want.reset_index(drop=True))
    assert part.hands.empty and part.wins.empty and part.payments.empty
    per_table = analysis.load(run_dir, tables=("hands", "wins"), filter={"wins": pc.field("fan") >= 2})
    assert (per_table.wins["fan"] >= 2).all() and len(per_table.hands) == len(whole.hands)
    with pytest.raises(ValueError, match="unknown table"):
        analysis.load(run_dir, tables=["nope"])


def test_sql_answers_equal_pandas_answers(run_dir):
    whole = analysis.load(run_dir)
    con = analysis.sql(run_dir)
    got = con.sql("SELECT strategy, avg(flower_pig::int) AS pig, count(*) AS n, sum(net) AS net "
                  "FROM seats GROUP BY ALL ORDER BY strategy").df()
    s = whole.seats.assign(strategy=whole.seats["strategy"].astype(str))
    want = s.groupby("strategy").agg(pig=("flower_pig", lambda x: x.dropna().astype(int).mean()),
                                     n=("net", "size"), net=("net", "sum")).reset_index()
    assert list(got["strategy"]) == list(want["strategy"])
    np.testing.assert_allclose(got["pig"], want["pig"], rtol=1e-12)
    assert list(got["n"]) == list(want["n"]) and list(got["net"]) == list(want["net"])
    reasons = con.sql("SELECT reason, sum(amount)::BIGINT AS amount FROM payments GROUP BY ALL ORDER BY reason").df()
    w = whole.payments.assign(reason=whole.payments["reason"].astype(str)).groupby("reason")["amount"].sum()
    assert dict(zip(reasons["reason"], reasons["amount"])) == {k: int(v) for k, v in w.items()}
    assert con.execute("SELECT count(*) FROM wins").fetchone()[0] == len(whole.wins)


def test_sql_sees_complete_chunks_only(tmp_path):
    out = tmp_path / "run"
    run(out, RunConfig(preset("battle"), ("greedy+exchange=shortest+void=fewest",) * 4, 0, "hands", 1000, 250), workers=1)
    os.remove(out / "wins" / rio.shard_name(2))                       # chunk 2 lost a shard
    (out / "hands" / ".part-000009.parquet.123.tmp").write_bytes(b"half")  # a half-written one
    con = analysis.sql(out)
    assert con.execute("SELECT count(*) FROM hands").fetchone()[0] == 750
    assert con.execute("SELECT count(*) FROM seats WHERE hand BETWEEN 500 AND 749").fetchone()[0] == 0


def test_sichuan_sql_prints_tables_csv_and_json_and_one_line_errors(run_dir):
    q = "SELECT seat, count(*) AS n FROM seats GROUP BY seat ORDER BY seat"
    res = CliRunner().invoke(main, ["sql", str(run_dir), q])
    assert res.exit_code == 0 and "seat" in res.output and "2000" in res.output
    res = CliRunner().invoke(main, ["sql", str(run_dir), q, "--csv"])
    assert res.exit_code == 0 and res.output.splitlines()[0] == "seat,n" and len(res.output.splitlines()) == 5
    res = CliRunner().invoke(main, ["sql", str(run_dir), q, "--json"])
    assert res.exit_code == 0 and json.loads(res.output) == [{"seat": s, "n": 2000} for s in range(4)]
    bad = CliRunner().invoke(main, ["sql", str(run_dir), "SELECT nonsense FROM seats"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "nonsense" in bad.output
    missing = CliRunner().invoke(main, ["sql", str(run_dir / "nope"), q])
    assert missing.exit_code == 2 and "does not exist" in missing.output
