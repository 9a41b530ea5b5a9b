"""Simulation runs: layout and columns, resume, extension, refusal, reproducibility, summaries,
bad input, and that traces and the wins table agree with the run's rows."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import simcore
from simcore.runs import analysis
from simcore.runs import shards as rio
from simcore.cli import main
from simcore.inspection.hand import score
from simcore.inspection.trace import to_jsonl  # noqa: F401  (trace output is JSON-serialisable)
from tests.support.cli import SICHUAN
from tests.support.runs import assert_same_content, tree_digest

MIXED = "greedy,random+void=weakest,efficient+exchange=keep-pairs,defensive"


def simulate(*args, expect=0):
    res = CliRunner().invoke(main, ["simulate", "-q", *map(str, args)])
    assert res.exit_code == expect, res.output + (res.stderr or "")
    return res


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "base"
    simulate("--hands", 6000, "--chunk-hands", 2500, "--seats", MIXED, "--seed", 3, "--out", out, "--workers", 1)
    return out


def test_run_layout_and_manifest(base_run):
    m = rio.read_manifest(base_run)
    assert m["schema_version"] == rio.SCHEMA_VERSION and m["complete"] and m["hands"] == 6000 and m["chunks"] == 3
    cfg = m["config"]
    assert cfg["seed"] == 3 and cfg["chunk_hands"] == 2500 and cfg["mode"] == "hands"
    assert cfg["seats"][0] == "greedy+exchange=shortest+void=fewest"
    assert cfg["seats"][2] == "efficient+exchange=keep-pairs+void=fewest"
    assert set(cfg["rules"]["options"]) == set(simcore.contract.rules.RuleSet().options())
    assert m["package_version"] == simcore.__version__ and "seconds" in m["timings"]
    for name in rio.TABLES:
        files = sorted(os.listdir(base_run / name))
        assert files == [rio.shard_name(c) for c in range(3)], files
        meta = rio.shard_meta(base_run / name / files[1])
        assert meta["run"] == cfg and (meta["first"], meta["count"]) == (2500, 2500)


def test_columns_are_documented_with_their_types(base_run):
    kinds = {"int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "bool": "bool", "float64": "double",
             "string (dict)": "dictionary<values=string, indices=int8, ordered=0>"}
    for name in rio.TABLES:
        schema = pq.read_schema(base_run / name / rio.shard_name(0))
        assert schema.names == [c for c, _, _ in rio.COLUMNS[name]]
        for col, typ, doc in rio.COLUMNS[name]:
            assert doc, col
            assert str(schema.field(col).type) == kinds[typ.replace(", null", "")], (name, col)
    run = analysis.load(base_run)
    assert run.hands["match"].isna().all() and run.seats["hand_in_match"].isna().all()
    assert set(run.seats["void_suit"].astype(str)) <= {"m", "p", "s"}
    assert run.hands["hand"].is_unique and len(run.seats) == 4 * len(run.hands)


def test_every_hand_sums_to_zero_and_payments_add_up(base_run):
    run = analysis.load(base_run)
    assert (run.seats.groupby("hand")["net"].sum() == 0).all()
    paid = run.payments.groupby(["hand", "payer"])["amount"].sum().rename_axis(["hand", "seat"])
    got = run.payments.groupby(["hand", "payee"])["amount"].sum().rename_axis(["hand", "seat"])
    net = got.sub(paid, fill_value=0).reindex(pd.MultiIndex.from_frame(run.seats[["hand", "seat"]]), fill_value=0)
    assert (net.to_numpy() == run.seats["net"].to_numpy()).all()
    reasons = {"win": "net_win", "kong": "net_kong", "flower_pig": "net_flower_pig", "not_ready": "net_not_ready",
               "kong_refund": "net_kong_refund", "kong_discard_liability": "net_kong_discard_liability"}
    parts = sum(run.seats[c] for c in reasons.values())
    assert (parts == run.seats["net"]).all()


def test_summarize_equals_direct_pandas(base_run):
    run = analysis.load(base_run)
    table = analysis.summarize(run).set_index("strategy")
    s = run.seats.assign(strategy=run.seats["strategy"].astype(str))
    for name, g in s.groupby("strategy"):
        per_hand = g.groupby("hand")["net"].mean()
        row = table.loc[name]
        assert row["hands"] == per_hand.size
        assert row["mean_net"] == pytest.approx(per_hand.mean())
        half = 1.959963984540054 * per_hand.std(ddof=1) / np.sqrt(per_hand.size)
        assert row["net_high"] == pytest.approx(per_hand.mean() + half)
        assert row["win_rate"] == pytest.approx(g["won"].mean())
        won = g[g["won"]]
        assert row["self_draw_share"] == pytest.approx(won["win_kind"].astype(str).isin(["self_draw", "kong_replacement"]).mean())
        assert row["mean_fan"] == pytest.approx(won["fan"].mean())
        pigs = (g["flower_pig"] == True).sum()  # noqa: E712
        assert row["pig_rate"] == pytest.approx(pigs / len(g))
        assert row["pig_rate_checked"] == pytest.approx(pigs / g["flower_pig"].notna().sum())
        for col in analysis.NET_REASONS:
            assert row[col] == pytest.approx(g[col].mean())


def test_summarize_cli_text_and_json(base_run):
    res = CliRunner().invoke(main, ["summarize", str(base_run)])
    assert res.exit_code == 0 and "mean net per hand" in res.output and "95% CI" in res.output
    res = CliRunner().invoke(main, ["summarize", str(base_run), "--by", "seat", "--json"])
    assert res.exit_code == 0
    import json

    data = json.loads(res.output)
    assert [r["seat"] for r in data["summary"]] == [0, 1, 2, 3] and data["overview"]["hands"] == 6000


def test_same_content_with_other_workers_and_chunk_sizes(base_run, tmp_path):
    other = tmp_path / "other"
    simulate("--hands", 6000, "--chunk-hands", 1500, "--seats", MIXED, "--seed", 3, "--out", other, "--workers", 2)
    # the chunk size is part of the configuration, but not of the content
    assert_same_content(base_run, other)


def test_extending_a_run_equals_a_direct_run(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    simulate("--hands", 2500, "--chunk-hands", 1000, "--seats", "greedy", "--out", a, "--workers", 1)
    simulate("--hands", 4200, "--chunk-hands", 1000, "--seats", "greedy", "--out", a, "--workers", 1)
    simulate("--hands", 4200, "--chunk-hands", 1000, "--seats", "greedy", "--out", b, "--workers", 1)
    assert rio.read_manifest(a)["hands"] == 4200
    assert_same_content(a, b)


# what differs, with both values (README: Runs and their data, "Resume and extend")
BOTH_VALUES = {"--seats": "seat 0's play is greedy there, efficient now", "--seed": "a different seed (1 there, 9 now)",
               "--chunk-hands": "a different chunk size (1,000 there, 1,200 now)",
               "--set": "a different rule set (fan_cap 4 there, 5 now)",
               "--rules": "a different rule set (preset battle there, flow now; ",
               "--matches": "a different mode (hands there, matches now)"}


@pytest.mark.parametrize("change", [["--seats", "efficient"], ["--seed", "9"], ["--chunk-hands", "1200"],
                                    ["--set", "fan_cap=5"], ["--rules", "flow"], ["--matches", "10"]])
def test_a_changed_configuration_is_refused_and_nothing_is_damaged(tmp_path, change):
    out = tmp_path / "r"
    base = {"--seats": "greedy", "--seed": "1", "--chunk-hands": "1000", "--hands": "2000"}
    simulate(*[x for kv in base.items() for x in kv], "--out", out, "--workers", 1)
    before = tree_digest(out)
    args = dict(base)
    if change[0] == "--matches":
        args.pop("--hands")
    args[change[0]] = change[1]
    res = simulate(*[x for kv in args.items() for x in kv], "--out", out, expect=2)
    assert "Error:" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert BOTH_VALUES[change[0]] in res.stderr, res.stderr
    assert tree_digest(out) == before


@pytest.mark.slow
def test_resume_after_kill_9_equals_an_uninterrupted_run(tmp_path):
    out, ref = tmp_path / "killed", tmp_path / "ref"
    cmd = SICHUAN + ["simulate", "-q", "--hands", "40000", "--chunk-hands", "1000", "--seats", "greedy",
                     "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if len(rio.complete_chunks(out)) >= 3 if out.exists() else False:
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = rio.complete_chunks(out)
    assert 3 <= len(done) < 40, "the run should have been killed mid-way"
    # every visible shard is complete and readable
    for name in rio.TABLES:
        for f in os.listdir(out / name):
            if not f.startswith("."):
                pq.read_table(out / name / f)
    partial = analysis.load(out)
    assert len(partial.hands) == 1000 * len(done)
    subprocess.run(cmd, check=True, capture_output=True)
    assert not [f for name in rio.TABLES for f in os.listdir(out / name) if f.startswith(".")]
    subprocess.run(cmd[:-1] + [str(ref)], check=True, capture_output=True)
    assert_same_content(out, ref)


def test_bad_input_gets_one_line_and_nonzero_exit(tmp_path, base_run):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = [
        (["simulate", "--hands", "0", "--out", str(tmp_path / "a")], "must be positive"),
        (["simulate", "--hands", "-5", "--out", str(tmp_path / "a")], "must be positive"),
        (["simulate", "--hands", "10", "--out", str(blocker / "sub")], "cannot create run directory"),
        (["simulate", "--hands", "10", "--out", str(blocker)], "cannot create run directory"),
        (["simulate", "--hands", "10", "--seats", "nosuch", "--out", str(tmp_path / "b")], "unknown play strategy"),
        (["simulate", "--hands", "10", "--seats", "greedy,greedy", "--out", str(tmp_path / "b")], "four separated by commas"),
        (["simulate", "--out", str(tmp_path / "c")], "exactly one of --hands"),
        (["summarize", str(tmp_path)], "not a run directory"),
        (["summarize", str(tmp_path / "missing")], "does not exist"),
        (["trace", str(tmp_path), "--hand", "1"], "not a run directory"),
        (["trace", str(base_run), "--hand", "999999"], "not in"),
    ]
    for args, needle in cases:
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, (args, res.output)
        assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
    assert not (tmp_path / "b").exists() or not os.listdir(tmp_path / "b")
    assert blocker.read_text() == "x"


def test_summarize_reports_a_corrupt_shard_without_damaging_it(tmp_path):
    out = tmp_path / "r"
    simulate("--hands", 2000, "--chunk-hands", 1000, "--seats", "greedy", "--out", out, "--workers", 1)
    shard = out / "seats" / rio.shard_name(1)
    shard.write_bytes(shard.read_bytes()[:200])
    before = tree_digest(out)
    res = CliRunner().invoke(main, ["summarize", str(out)])
    assert res.exit_code == 2 and "corrupt shard" in res.stderr
    assert tree_digest(out) == before


def test_trace_of_a_run_equals_its_rows(base_run):
    run = analysis.load(base_run)
    res = CliRunner().invoke(main, ["trace", str(base_run), "--hand", "2498-2502"])
    assert res.exit_code == 0, res.output
    import json

    events = [json.loads(x) for x in res.output.splitlines()]
    for g in range(2498, 2503):
        ev = [e for e in events if e["hand"] == g]
        seats = run.seats[run.seats["hand"] == g].sort_values("seat")
        assert ev[-1]["net"] == seats["net"].tolist()
        pays = [(e["payer"], e["payee"], e["amount"], e["reason"]) for e in ev if e["event"] == "payment"]
        rows = run.payments[run.payments["hand"] == g]
        assert pays == list(zip(rows["payer"], rows["payee"], rows["amount"], rows["reason"].astype(str)))
        wins = [(e["seat"], e["tile"], e["kind"], e["fan"], e["base"]) for e in ev if e["event"] == "win"]
        w = run.wins[run.wins["hand"] == g].sort_values("order")
        assert wins == list(zip(w["seat"], w["tile"].astype(str), w["win_kind"].astype(str), w["fan"], w["base"]))
        assert ev[0]["strategies"] == list(run.manifest["config"]["seats"])


def test_match_mode_carries_scores_and_dealers(tmp_path):
    out = tmp_path / "m"
    simulate("--rules", "kawu", "--matches", 30, "--chunk-hands", 80, "--seats", "greedy,efficient,greedy,efficient",
             "--out", out, "--workers", 1)
    run = analysis.load(out)
    assert len(run.hands) == 240 and rio.read_manifest(out)["matches"] == 30
    h = run.hands.sort_values("hand").reset_index(drop=True)
    assert (h["match"] == h["hand"] // 8).all() and (h["hand_in_match"] == h["hand"] % 8).all()
    assert (h.loc[h["hand_in_match"] == 0, "dealer"] == 0).all()
    nxt = h.groupby("match")["next_dealer"].shift(1)
    later = h["hand_in_match"] > 0
    assert (h.loc[later, "dealer"] == nxt[later]).all()
    s = run.seats.sort_values(["seat", "hand"])
    first = s["hand_in_match"] == 0
    assert (s.loc[first, "score_before"] == 100).all()
    expect = s.groupby(["seat", "match"])["score_before"].shift(-1)
    got = s["score_before"] + s["net"]
    mask = expect.notna()
    assert (got[mask] == expect[mask]).all()
    # a hand in the middle of a match replays with the run's dealer and scores
    res = CliRunner().invoke(main, ["trace", str(out), "--hand", "13"])
    import json

    events = [json.loads(x) for x in res.output.splitlines()]
    row = s[s["hand"] == 13].sort_values("seat")
    assert events[0]["scores"] == row["score_before"].tolist() and events[0]["match"] == 1
    assert events[-1]["net"] == row["net"].tolist()


def test_flow_wins_table_agrees_with_seats_and_traces(tmp_path):
    out = tmp_path / "flow"
    simulate("--rules", "flow", "--hands", 600, "--seats", "efficient", "--out", out, "--workers", 1)
    run = analysis.load(out)
    per_seat = run.wins.groupby(["hand", "seat"]).size()
    seats = run.seats.set_index(["hand", "seat"])
    assert (per_seat.reindex(seats.index, fill_value=0) == seats["wins"]).all()
    assert per_seat.max() >= 2, "blood flow should give some seat several wins"
    firsts = run.wins.sort_values("order").groupby(["hand", "seat"]).first()
    won = seats[seats["won"]]
    assert (firsts.loc[won.index, "fan"].to_numpy() == won["fan"].to_numpy()).all()
    assert (firsts.loc[won.index, "base"].to_numpy() == won["base"].to_numpy()).all()
    assert (firsts.loc[won.index, "order"].to_numpy() == won["win_order"].to_numpy()).all()
    paid = run.payments[run.payments["reason"].astype(str).isin(["win", "kong_discard_liability"])]
    assert run.wins["paid"].sum() == paid["amount"].sum()


@pytest.mark.parametrize("rules", ["chengdu", "flow"])
def test_win_patterns_equal_hand_score_on_the_traced_winning_hand(tmp_path, rules):
    """Each wins-table row's pattern columns equal simcore.inspection.hand.score of the traced winning
    hand with the win's context (RULES.md: Fan patterns)."""
    out = tmp_path / "pat"
    simulate("--rules", rules, "--hands", 300, "--seats", "flush", "--out", out, "--workers", 1)
    run = analysis.load(out)
    from simcore.contract.evaluate import PATTERNS
    from simcore.inspection.run_hands import traced_hands_of_run

    checked = 0
    for hand in traced_hands_of_run(out, range(0, 300, 7)):
        rows = run.wins[run.wins["hand"] == hand.index].sort_values("order")
        wins = [e for e in hand.events if e["event"] == "win"]
        assert len(wins) == len(rows)
        for e, (_, r) in zip(wins, rows.iterrows()):
            melds = [m["tile"][0] * (3 if m["kind"] == "pung" else 4) + m["tile"][1] for m in e["melds"]]
            void = next(x for x in hand.events if x["event"] == "void")["suits"][e["seat"]]
            before = hand.events[:hand.events.index(e)]
            own = e["kind"] in ("self_draw", "kong_replacement")
            claimed = any(x["event"] in ("pung", "kong", "win") for x in before)
            draws = [x for x in before if x["event"] == "draw"]
            dealer = hand.events[0]["dealer"]
            heavenly = own and e["seat"] == dealer and not draws
            earthly = (e["kind"] == "self_draw" and e["seat"] != dealer and not claimed
                       and [x["seat"] for x in draws].count(e["seat"]) == 1 and draws[-1]["seat"] == e["seat"]
                       and len(draws) <= 3)
            sc = score("".join(e["tiles"]), void, melds, rules=rules, self_draw=own,
                       kong_replacement=e["kind"] == "kong_replacement", robbing_kong=e["kind"] == "robbing_kong",
                       last_tile=e["tiles_left"] == 0, heavenly=heavenly, earthly=earthly)
            assert sc.fan == r["fan"] and sc.base == r["base"]
            assert {p: int(r[p]) for p in PATTERNS if r[p]} == sc.patterns
            checked += 1
    assert checked > 20


def test_simulate_from_python_returns_dataframes(tmp_path):
    run = simcore.simulate(400, seats="greedy", rules="flow", sets={"fan_cap": 5})
    assert isinstance(run.seats, pd.DataFrame) and len(run.seats) == 1600
    assert run.manifest["config"]["rules"]["options"]["fan_cap"] == 5
    again = simcore.simulate(400, seats="greedy", rules="flow", sets={"fan_cap": 5}, out=tmp_path / "x")
    pd.testing.assert_frame_equal(run.seats, again.seats)
