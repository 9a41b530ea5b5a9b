"""Seat names people can read (issue 35, item 4): outputs print the shortest spec that names a
seat; the canonical spec stays in run.json, the Parquet metadata and with --full-names; the
seats table holds each seat's parts."""

import json

import pyarrow.parquet as pq
import pytest

from simcore.runs import analysis
from simcore.runs import shards as rio
from strategies.names import POLICY_COLUMNS, policy_parts, short_name, short_names
from strategies.registry import parse_seat
from tests.support.cli import invoke, run_cli

SPECS = ["expert", "expert[flush_weight=3]", "expert+void=fewest", "efficient", "efficient+exchange=random",
         "greedy+void=expert[void_cost=7]", "expert+exchange=shortest+void=fewest", "search",
         "search[policy=efficient]", "random+exchange=keep-pairs+void=weakest", "flush+exchange=expert[void_cost=4]"]
SHORT = ["expert", "expert[flush_weight=3.0]", "expert+void=fewest", "efficient", "efficient+exchange=random",
         "greedy+void=expert[void_cost=7]", "expert+exchange=shortest+void=fewest", "search",
         "search[policy=efficient]", "random+exchange=keep-pairs+void=weakest", "flush+exchange=expert[void_cost=4]"]


@pytest.mark.parametrize("spec,short", list(zip(SPECS, SHORT)))
def test_the_short_name_is_the_shortest_spec_that_parses_to_the_same_seat(spec, short):
    try:
        canonical = parse_seat(spec).canonical
    except ValueError:   # a spec of this list a built-in does not take (a parameter renamed)
        pytest.fail(f"{spec} is not a seat spec here")
    assert short_name(canonical) == short
    assert parse_seat(short).canonical == canonical
    assert len(short) <= len(canonical)


def test_the_parts_are_names_with_their_non_default_parameters():
    assert policy_parts(parse_seat("expert").canonical) == ("expert", "expert", "expert")
    assert policy_parts(parse_seat("efficient").canonical) == ("efficient", "shortest", "fewest")
    assert policy_parts(parse_seat("greedy+void=expert[void_cost=7]").canonical) == \
        ("greedy", "shortest", "expert[void_cost=7]")


def test_user_files_are_named_by_file_unless_two_share_a_name(tmp_path):
    a, b = tmp_path / "a" / "mine.py", tmp_path / "b" / "mine.py"   # names from the recorded text alone
    own = parse_seat("expert").canonical.split("+", 1)[1]   # a user play's own policies are expert's
    ca, cb = (f"{x}:lowest+{own}" for x in (a, b))
    assert short_name(ca) == "mine.py:lowest"
    names = short_names([ca, cb, parse_seat("expert").canonical])
    assert names[ca] == f"{a}:lowest" and names[cb] == f"{b}:lowest"   # by their recorded paths
    assert names[parse_seat("expert").canonical] == "expert"
    assert short_names([ca, cb], full=True) == {ca: ca, cb: cb}


def test_outputs_print_short_names_and_the_run_keeps_the_canonical_ones(tmp_path):
    seats = "expert,expert+void=fewest,efficient,expert"
    out = run_cli("simulate", "--hands", 400, "--seats", seats, "--out", tmp_path / "r").stdout
    canonical = [s.canonical for s in (parse_seat(x) for x in seats.split(","))]
    assert "strategy expert+void=fewest\n" in out and "strategy efficient\n" in out and "pace=" not in out
    assert json.loads((tmp_path / "r" / "run.json").read_text())["config"]["seats"] == canonical
    meta = pq.read_table(tmp_path / "r" / "seats" / rio.shard_name(0)).column("strategy").unique().to_pylist()
    assert sorted(meta) == sorted(set(canonical))
    full = run_cli("summarize", tmp_path / "r", "--full-names").output
    assert f"strategy {canonical[1]}\n" in full
    by_void = run_cli("summarize", tmp_path / "r", "--by", "void_policy").output
    assert "void_policy fewest\n" in by_void and "void_policy expert\n" in by_void
    assert "seats: 0 expert, 1 expert+void=fewest, 2 efficient, 3 expert" in by_void
    # the seats table holds the parts, dictionary-encoded
    table = pq.read_table(tmp_path / "r" / "seats" / rio.shard_name(0), columns=list(POLICY_COLUMNS))
    assert all(str(table.schema.field(c).type).startswith("dictionary") for c in POLICY_COLUMNS)
    df = analysis.load(tmp_path / "r", tables=["seats"]).seats
    assert [tuple(r) for r in df[list(POLICY_COLUMNS)].astype(str).head(4).itertuples(index=False)] == \
        [("expert", "expert", "expert"), ("expert", "expert", "fewest"), ("efficient", "shortest", "fewest"),
         ("expert", "expert", "expert")]
    assert df["luck"].isna().all()


def test_a_comparison_report_prints_short_names(tmp_path):
    out = tmp_path / "cmp"
    short = run_cli("compare", "expert+void=fewest", "expert", "--hands", 40, "-q", "--workers", 1, "--out", out).stdout
    assert "field: expert at the other three seats" in short
    assert "seat specs: A = expert+void=fewest; B = expert" in short
    full = run_cli("experiment", "report", out, "--full-names").stdout
    assert f"B = {parse_seat('expert').canonical}" in full
    assert json.loads(invoke("experiment", "report", out, "--json").stdout)["field"] == parse_seat("expert").canonical
