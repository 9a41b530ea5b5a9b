"""``sichuan dataset``: every decision of the recorded seats, the answers and nets of the hands
`sichuan simulate` plays, written chunk by chunk, resumable, and a searching seat's judgements."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

from simcore.contract.actions import N_ACTIONS
from simcore.contract.records import S_NET
from simcore.contract.rules import resolve
from simcore.contract.tiles import N_KINDS
from simcore.contract.view import CONTRACT_VERSION
from simcore.engine import agents as AG
from simcore.env import Tables
from simcore.env.dataset import load, masks, observations, part_path
from simcore.runs.batch import run_batch
from strategies.registry import parse_seats, seat_functions
from tests.support.cli import invoke, run_cli

SEATS = "expert,greedy,expert,efficient"


def _env_decisions(rules, seats, record, hands, seed):
    """(hand, seat, step, action) of every decision the env asks the recorded seats, each answered by its own spec."""
    specs = [s.canonical for s in parse_seats(seats)]
    T = Tables(7, rules, specs, agents=record)
    T.reset(seed, first=0, stride=7, last=hands - 1)
    out = []
    while (T.status != AG.OVER).any():
        acts = np.zeros(T.n, np.int64)
        for i in np.flatnonzero(T.status != AG.OVER):
            s = T.pending_seat(i)
            acts[i] = T.builtin(specs[s])[i]
            out.append((T.hand_index(i), s, int(T.E[i, AG.E_STEP + s]), int(acts[i])))
        T.step(acts)
    return sorted(out)


def test_a_dataset_holds_every_decision_with_the_simulated_nets(tmp_path):
    out = tmp_path / "ds"
    res = run_cli("dataset", "--rules", "flow", "--seats", SEATS, "--record", "0,1,3", "--hands", 120, "--seed", 4,
                  "--out", out, "--chunk-hands", 50, "--tables", 16)
    assert "decisions/s" in res.output
    m = json.loads((out / "dataset.json").read_text())
    assert (m["contract_version"], m["observation_version"]) == (CONTRACT_VERSION, AG.OBS_VERSION)
    assert m["complete"] and m["chunks"] == 3 and set(m["columns"]) >= {"hand", "seat", "step", "question", "obs",
                                                                          "mask", "action", "net"}
    df = load(out)
    assert sorted(df.hand.unique()) == list(range(120)) and set(df.seat) == {0, 1, 3}
    rows = sorted(zip(df.hand, df.seat, df.step, df.action))
    assert rows == _env_decisions("flow", SEATS, (0, 1, 3), 120, 4)
    ref = run_batch(resolve("flow"), seat_functions(parse_seats(SEATS)), 4, 0, 120)
    assert (df.net.to_numpy() == ref.seat[df.hand.to_numpy(), df.seat.to_numpy(), S_NET]).all()
    m = masks(df)
    assert m.shape == (len(df), N_ACTIONS) and (m[np.arange(len(df)), df.action] == 1).all()
    assert (m.sum(1) >= 2).all()
    obs = observations(df)
    assert obs.shape == (len(df), AG.OBS_LEN) and obs.dtype == np.float32
    # the rows' observations and masks are the env's, decision for decision
    specs = [s.canonical for s in parse_seats(SEATS)]
    T = Tables(1, "flow", specs, agents=(0, 1, 3))
    T.reset(4, first=0, stride=1, last=0)
    row_of = {(int(r.seat), int(r.step)): k for k, r in df[df.hand == 0].iterrows()}
    while T.status[0] != AG.OVER:
        s = T.pending_seat(0)
        k = row_of.pop((s, int(T.E[0, AG.E_STEP + s])))
        assert np.array_equal(T.obs[0], obs[k]) and np.array_equal(T.masks[0], m[k])
        T.step([T.builtin(specs[s])[0]])
    assert not row_of
    assert set(df.question.astype(str)) == {"exchange", "void", "turn", "claim"} | ({"rob"} & set(df.question.astype(str)))
    assert df.candidates.isna().all()   # no seat searches


def test_a_dataset_resumes_extends_and_refuses_changes(tmp_path):
    out = tmp_path / "ds"
    args = ["dataset", "--seats", "expert", "--record", "all", "--seed", 2, "--out", out, "--chunk-hands", 30, "-q"]
    run_cli(*args, "--hands", 90)
    before = pq.read_table(part_path(out, 1))
    part_path(out, 1).unlink()                                           # a lost chunk
    part_path(out, 2).write_bytes(part_path(out, 2).read_bytes()[:500])  # a truncated one
    run_cli(*args, "--hands", 90)
    assert pq.read_table(part_path(out, 1)).equals(before)
    assert pq.read_table(part_path(out, 2)).num_rows > 0
    run_cli(*args, "--hands", 100)                                        # a larger --hands extends
    assert sorted(load(out).hand.unique()) == list(range(100))
    res = invoke(*args[:4], "0", *args[5:], "--hands", 100)
    assert res.exit_code != 0 and "another record ([0, 1, 2, 3] there, [0] now)" in res.output
    assert res.output.count("\n") == 1
    res = invoke(*args[:6], 3, *args[7:], "--hands", 100)                 # another seed, another rule set
    assert res.exit_code == 2 and "another seed (2 there, 3 now)" in res.output, res.output
    res = invoke(*args, "--rules", "kawu", "--hands", 100)
    assert res.exit_code == 2 and "another rule set (preset battle there, kawu now; " in res.output, res.output
    res = invoke(*args, "--hands", 50)
    assert res.exit_code != 0 and "may only grow" in res.output
    res = invoke("dataset", "--record", "0,7", "--hands", 5, "--out", tmp_path / "x")
    assert res.exit_code != 0 and "--record" in res.output
    manifest = json.loads((out / "dataset.json").read_text())              # written at an older view layout
    (out / "dataset.json").write_text(json.dumps(dict(manifest, contract_version=CONTRACT_VERSION - 1)))
    res = invoke(*args, "--hands", 120)
    assert res.exit_code == 2 and f"views at contract version {CONTRACT_VERSION - 1}" in res.output, res.output
    assert res.output.count("\n") == 1 and sorted(load(out).hand.unique()) == list(range(100))
    assert json.loads((out / "dataset.json").read_text())["contract_version"] == CONTRACT_VERSION - 1
    # written at an older observation version (version 1: the first 1,052 slots): it reads, each row
    # as wide as it was written, and does not extend
    (out / "dataset.json").write_text(json.dumps(dict(manifest, observation_version=AG.OBS_VERSION - 1)))
    res = invoke(*args, "--hands", 120)
    assert res.exit_code == 2 and f"observations at version {AG.OBS_VERSION - 1}" in res.output, res.output
    df = load(out)
    narrow = df.assign(obs=[bytes(b)[:2 * 1052] for b in df.obs])
    x, wide = observations(narrow), observations(df)
    assert x.shape == (len(df), 1052) and np.array_equal(x, wide[:, :1052])


def test_a_searching_seat_records_its_candidates_and_their_values(tmp_path):
    out = tmp_path / "ds"
    run_cli("dataset", "--seats", "search[rollouts=2,max_rollouts=4],expert,expert,expert", "--record", "0",
            "--hands", 6, "--out", out, "-q")
    df = load(out)
    judged = df[df.candidates.notna()]
    assert len(judged) > 10
    for _, r in judged.iterrows():
        assert len(r.candidates) == len(r.candidate_values) >= 2
        assert np.isfinite(r.candidate_values).all()
        if r.question != "exchange":
            assert r.action in set(r.candidates)   # the search answers with one it judged


def test_a_searching_seat_s_rows_keep_its_view_where_it_judged(tmp_path):
    """The view column holds the seat's view as the engine posed the question, on the rows whose
    candidates were judged: the question, the legal options and the seat's tiles are the table's."""
    from simcore.contract import view as vw
    from simcore.env.dataset import views

    out = tmp_path / "ds"
    run_cli("dataset", "--seats", "search[rollouts=2,max_rollouts=2],greedy,greedy,greedy", "--record", "0",
            "--hands", 3, "--out", out, "--tables", 3)
    df = load(out)
    judged = df[df.candidates.notna()]
    v = views(df)
    assert len(judged) and v.shape == (len(judged), vw.VIEW_LEN)
    names = {"exchange": vw.Q_EXCHANGE, "void": vw.Q_VOID, "turn": vw.Q_TURN, "claim": vw.Q_CLAIM, "rob": vw.Q_ROB}
    assert (v[:, vw.V_QUESTION] == [names[q] for q in judged.question]).all()
    assert (v[:, vw.V_ME] == 0).all() and (v[:, vw.V_HAND:vw.V_HAND + N_KINDS].sum(1) > 0).all()
    assert df.view.isna().sum() == len(df) - len(judged)


def test_a_search_near_ready_judges_only_hands_that_near_ready(tmp_path):
    """``search[near=N]`` searches a play question only when its hand, its void suit's tiles set
    aside, is at most N tiles from ready (counted here by the engine's exact evaluator, tested
    against the ``mahjong`` package and a brute-force oracle): with near=0 every judged turn and claim is ready or one
    discard from it; with near=1 some are one farther, none more."""
    from simcore.contract import view as vw
    from simcore.contract.tiles import N_RANKS
    from simcore.env.dataset import views
    from simcore.contract.evaluate import shanten_exact
    from simcore.contract.tables import load_tables

    def shantens(near):
        out = tmp_path / f"near{near}"
        run_cli("dataset", "--rules", "flow", "--seats", f"search[rollouts=2,max_rollouts=2,near={near}],expert,expert,expert",
                "--record", "0", "--hands", 16, "--out", out, "-q")
        df = load(out)
        judged = df[df.candidates.notna()]
        assert set(judged.question) <= {"turn", "claim", "rob"}   # its exchange and void are expert's
        v = views(df)
        got = []
        for row in v:
            void = int(row[vw.V_VOID])   # seat 0 is recorded: its own void
            hand = row[vw.V_HAND:vw.V_HAND + N_KINDS].copy()
            hand[void * N_RANKS:(void + 1) * N_RANKS] = 0
            got.append(shanten_exact(load_tables(), hand, void, int(row[vw.V_N_MELDS]), np.zeros(N_KINDS, np.int64)))
        return np.array(got)

    near0, near1 = shantens(0), shantens(1)
    assert len(near0) > 20 and near0.max() <= 0
    assert (near1 == 1).sum() > 5 and near1.max() <= 1
