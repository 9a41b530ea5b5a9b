"""The learned players (``strategies.learned``, ``strategies.features``, ``sichuan learn``): the features
a seat computes at the table are those a dataset's kept view gives, a model trained end to end from a
searching seat's dataset seats and plays legally, and bad model files are one line."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.contract import view as vw
from simcore.contract.records import S_NET
from simcore.contract.rules import preset
from simcore.contract.tables import load_tables
from simcore.engine import pose
from simcore.runs.batch import run_batch
from strategies.features import C0, N_FEATURES, view_features
from strategies.registry import StrategyError, parse_seats, seat_functions
from tests.support.cli import invoke, run_cli
from tests.support.stopped_hands import stopped_points, view_in

SEARCH = "search[rollouts=2,max_rollouts=2],expert,expert,expert"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A model trained end to end: a searching seat's dataset, then sichuan learn."""
    d = tmp_path_factory.mktemp("learned")
    run_cli("dataset", "--seats", SEARCH, "--record", "0", "--hands", 60, "--seed", 3, "--tables", 20,
            "--out", d / "ds", "-q")
    res = run_cli("learn", d / "ds", "--out", d / "m.npz", "--max-iter", 20, "--max-shanten", 8, "-q")
    assert "trees on" in res.output and "gain" in res.output
    return d / "m.npz"


def test_the_same_training_writes_the_same_bytes(tiny_model):
    """Training again with the same command on the same datasets writes the same file, byte for
    byte (no time in it, nor the progress switch), so a round of expert iteration's dataset, which
    records the digest of the models it plays, resumes after ``make models`` trained them again."""
    first = tiny_model.read_bytes()
    run_cli("learn", tiny_model.parent / "ds", "--out", tiny_model, "--max-iter", 20, "--max-shanten", 8)
    assert tiny_model.read_bytes() == first


def test_a_given_margin_is_the_models_and_a_lower_one_changes_more(tiny_model, tmp_path):
    """``sichuan learn --margin M`` writes M (negative too: play a candidate predicted a little
    worse than expert's answer) in place of the validation hands' choice, the same trees, and the
    test hands' metrics with it: a margin below every choice changes expert's answer at least as
    often, and a learned seat playing it answers otherwise at some decision."""
    from strategies.models import P_MARGIN, load

    low = tmp_path / "low.npz"
    run_cli("learn", tiny_model.parent / "ds", "--out", low, "--max-iter", 20, "--max-shanten", 8, "--margin", -0.5, "-q")
    chosen, given = load(tiny_model), load(low)
    assert given.header["margin"] == -0.5 and given.header.get("margin_given") is True
    assert "margin_given" not in chosen.header and chosen.header["margin"] >= 0.0
    assert given.header["metrics"]["changed_share"] >= chosen.header["metrics"]["changed_share"]
    bad = invoke("learn", tiny_model.parent / "ds", "--out", tmp_path / "nan.npz", "--margin", "nan", "-q")
    assert bad.exit_code == 1 and "finite" in bad.output and not (tmp_path / "nan.npz").exists()
    same = np.ones(len(given.packed), bool)
    same[P_MARGIN] = False
    np.testing.assert_array_equal(given.packed[same], chosen.packed[same])   # the same trees
    nets = [run_batch(preset("battle"), seat_functions(parse_seats(f"learned[model={m}],expert,expert,expert")),
                      5, 0, 300).seat[:, :, S_NET] for m in (tiny_model, low)]
    assert not np.array_equal(*nets)


def test_judging_a_model_counts_its_changes_and_the_searchs_from_the_rows(tiny_model):
    """``sichuan learn DATASET --judge MODEL``: per decision, the model's pick (its highest
    prediction, walked row by row here) changes expert's answer where it exceeds the margin, and
    its judged gain is that row's target; the search's leaving expert's answer is read from the
    dataset's actions. The totals agree with a count made here; a dataset given twice counts its
    seat-hands and decisions twice and its shares and gains once; a model of the other blood is
    refused in one line and a stray --out as a usage error."""
    import json

    import pyarrow.parquet as pq

    from experiments.learn import decision_rows
    from strategies.features import scored
    from strategies.models import SHIPPED, load, predict

    ds = tiny_model.parent / "ds"
    rep = json.loads(run_cli("learn", ds, "--judge", tiny_model, "--json", "-q").output)
    m = load(tiny_model)
    x, y, hands, ids, _ = decision_rows(ds)
    near = scored(x, m.header["max_shanten"])
    best = {}
    for i in range(len(x)):
        if near[i]:
            p = predict(m.packed, x[i])
            if ids[i] not in best or p > best[ids[i]][0]:
                best[ids[i]] = (p, y[i])
    changes = [v for p, v in best.values() if p > m.header["margin"]]
    everything = rep["questions"]["all"]
    assert everything["consulted"] == len(best) and rep["decisions"] == len(np.unique(ids))
    assert everything["model_changes"] == pytest.approx(len(changes) / len(best))
    assert rep["seat_hands"] == len(np.unique(hands))
    assert everything["gain_per_seat_hand"] == pytest.approx(sum(changes) / rep["seat_hands"])
    assert sum(rep["questions"][q]["consulted"] for q in ("turn", "claim", "rob")) == len(best)
    left = []
    for part in sorted(ds.glob("part-*.parquet")):
        t = pq.read_table(part).to_pydict()
        left += [a != c[0] for q, a, c in zip(t["question"], t["action"], t["candidates"])
                 if c is not None and len(c) >= 2 and q in ("turn", "claim", "rob")]
    assert len(left) == rep["decisions"]   # decision i is the dataset's i-th judged decision of play
    assert everything["search_left_expert"] == pytest.approx(np.mean([left[i] for i in best]))
    assert "judged gain of its changes" in run_cli("learn", ds, "--judge", tiny_model, "-q").output

    twice = json.loads(run_cli("learn", ds, ds, "--judge", tiny_model, "--json", "-q").output)
    assert twice["seat_hands"] == 2 * rep["seat_hands"] and twice["decisions"] == 2 * rep["decisions"]
    for q, r in rep["questions"].items():
        assert twice["questions"][q]["consulted"] == 2 * r["consulted"]
        for k in ("model_changes", "search_left_expert", "gain_per_seat_hand"):
            assert twice["questions"][q][k] == pytest.approx(r[k])
    at_never = json.loads(run_cli("learn", ds, "--judge", tiny_model, "--margin", 1000, "--json", "-q").output)
    assert at_never["questions"]["all"]["model_changes"] == 0.0 and at_never["margin"] == 1000

    other = invoke("learn", ds, "--judge", SHIPPED / "flow.npz", "-q")
    assert other.exit_code != 0 and "blood" in other.output and len(other.output.strip().splitlines()) == 1
    stray = invoke("learn", ds, "--judge", tiny_model, "--out", tiny_model.parent / "x.npz")
    assert stray.exit_code == 2 and "--judge" in stray.output


def test_features_at_the_table_do_not_depend_on_what_the_scratch_holds(tiny_model):
    """At every question of a learned seat's hand, the features from its view as it stands (its
    scratch as its play left it) equal those from the view with the scratch cleared, as a dataset
    keeps it: the features a model trains on are those the seat computes when it plays."""
    tab = load_tables()
    players = seat_functions(parse_seats(f"learned[model={tiny_model}],expert,expert,expert"))
    checked = 0
    for g in (1, 6):
        for _, S in stopped_points(preset("flow" if g == 6 else "battle"), players, 4, g):
            if pose(S, 0) not in (vw.Q_TURN, vw.Q_CLAIM, vw.Q_ROB):
                continue
            v = view_in(S, 0).copy()
            q, tile = np.int64(v[vw.V_QUESTION]), np.int64(v[vw.V_TILE])
            if q == vw.Q_TURN:   # the held tiles as discards, and a win where there is one
                answers = [t for t in range(27) if v[vw.V_HAND + t] > 0] + ([vw.A_WIN] if v[vw.V_CAN_WIN] else [])
            else:
                answers = [vw.C_PASS] + [c for c, ok in ((vw.C_WIN, vw.V_CAN_WIN), (vw.C_PUNG, vw.V_CAN_PUNG),
                                                         (vw.C_KONG, vw.V_CAN_KONG)) if v[ok]]
            answers = np.array(answers, np.int64)
            at_table = view_features(tab, v.copy(), answers, answers[0])
            cleared = v.copy()
            cleared[vw.V_SCRATCH:vw.V_SCRATCH + vw.N_SCRATCH] = 0
            from_dataset = view_features(tab, cleared, answers, answers[0])
            assert at_table.shape == (len(answers), N_FEATURES)
            np.testing.assert_array_equal(at_table, from_dataset)
            checked += 1
    assert checked > 10


def test_a_trained_model_seats_and_plays_legally_in_both_bloods(tiny_model):
    changed = 0
    for rules in ("battle", "flow"):   # check mode: an illegal answer or a write to the view would raise
        fns = seat_functions(parse_seats(f"learned[model={tiny_model},margin=0],expert,expert,expert"))
        res = run_batch(preset(rules), fns, 2, 0, 200, check=True)
        ref = run_batch(preset(rules), seat_functions(parse_seats("expert")), 2, 0, 200)
        changed += int((res.seat[:, 0, S_NET] != ref.seat[:, 0, S_NET]).sum())
    assert changed > 0   # with margin 0 the model leaves expert's answer somewhere
    import json

    from strategies import models as M

    with np.load(tiny_model) as z:   # the same model consulted nowhere (max_shanten -1) is expert
        header, arrays = json.loads(z["header"].tobytes()), {k: z[k] for k in M.ARRAYS}
    gated = M.save(tiny_model.parent / "gated.npz", dict(header, max_shanten=-1), arrays)
    for rules in ("battle", "flow"):
        fns = seat_functions(parse_seats(f"learned[model={gated},margin=0],expert,expert,expert"))
        res = run_batch(preset(rules), fns, 2, 0, 200)
        ref = run_batch(preset(rules), seat_functions(parse_seats("expert")), 2, 0, 200)
        assert (res.seat[:, :, S_NET] == ref.seat[:, :, S_NET]).all()
    out = run_cli("simulate", "--hands", 300, "--seats", f"learned[model={tiny_model}]", "--out",
                  tiny_model.parent / "run", "-q")
    assert out.exit_code == 0


def test_bad_model_parameters_are_one_line(tmp_path):
    with pytest.raises(StrategyError, match="does not exist"):
        parse_seats(f"learned[model={tmp_path / 'none.npz'}]")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    res = invoke("simulate", "--hands", 10, "--seats", f"learned[model={bad}]", "--out", tmp_path / "r")
    assert res.exit_code == 2 and "cannot be read" in res.output and len(res.output.strip().splitlines()) == 1


def test_bare_learned_plays_the_shipped_model_of_the_tables_rules():
    from strategies.models import SHIPPED_FOR, load, models_of, shipped_path

    shipped = models_of("")
    for p, m in zip(SHIPPED_FOR, shipped):   # each shipped file loads, for its own preset
        assert m is not None and m.path == str(shipped_path(p)) and load(shipped_path(p), preset=p).digest == m.digest
    for decision in ("exchange", "void"):    # and so do the exchange's and the void's
        for p, m in zip(SHIPPED_FOR, models_of("", decision)):
            assert m is not None and m.path == str(shipped_path(p, decision)) and m.header["decision"] == decision
            assert load(shipped_path(p, decision), preset=p, decision=decision).digest == m.digest
    fns = seat_functions(parse_seats("learned"))   # no rules: the seat carries both models
    for rules in ("battle", "flow"):
        res = run_batch(preset(rules), fns, 2, 0, 200, check=True)
        ref = run_batch(preset(rules), seat_functions(parse_seats("expert")), 2, 0, 200)
        assert (res.seat[:, :, S_NET] != ref.seat[:, :, S_NET]).any()   # it is not expert


def test_the_discards_a_seat_scores_are_the_rows_it_was_trained_on():
    """``features.scored`` (the rows ``sichuan learn`` trains and is judged on) and the seat's own
    gate (``learned.ranked_discards``, given expert's answer's shanten) keep the same discards: at
    every turn of hands in both bloods, every legal discard but expert's is ranked (keep 14) exactly
    when its feature row is scored."""
    from simcore.contract.tiles import N_RANKS
    from strategies.core import prepare
    from strategies.expert import expert
    from strategies.features import scored
    from strategies.learned import _own_shanten, ranked_discards

    tab = load_tables()
    players = seat_functions(parse_seats("learned"))
    checked = 0
    for g in (2, 5):
        for _, S in stopped_points(preset("flow" if g == 5 else "battle"), players, 4, g):
            if pose(S, 0) != vw.Q_TURN:
                continue
            v = view_in(S, 0).copy()
            if v[vw.V_LOCKED]:
                continue
            v[vw.V_SCRATCH:vw.V_SCRATCH + vw.N_SCRATCH] = 0
            v[vw.V_PARAMS:vw.V_PARAMS + vw.N_PARAMS] = np.asarray(seat_functions(parse_seats("expert")).setup)[:vw.N_PARAMS]
            own = np.int64(expert(np.int64(vw.Q_TURN), v.copy(), tab))
            void, must = v[vw.V_VOID + v[vw.V_ME]], v[vw.V_MUST_VOID]
            legal = [t for t in range(27) if v[vw.V_HAND + t] and t != own and not (must and t // N_RANKS != void)]
            if not legal:
                continue
            rows = view_features(tab, v.copy(), np.array([own, *legal], np.int64), own)
            want = {t for t, keep in zip(legal, scored(rows[1:], 8)) if keep}
            w = v.copy()
            st = prepare(tab, w, np.int64(0))
            got = ranked_discards(tab, w, st, own, np.int64(14), _own_shanten(tab, w, st, own))
            assert {t for t in range(27) if (got >> t) & 1} == want
            checked += 1
    assert checked > 10


DEAL_SEARCH = ("expert+exchange=search[rollouts=2,max_rollouts=2]+void=search[rollouts=2,max_rollouts=2,void_close=10],"
               "expert,expert,expert")


@pytest.fixture(scope="module")
def deal_models(tmp_path_factory):
    """An exchange and a void model trained end to end: a dataset whose seat searched its
    exchange and void, then sichuan learn --decision exchange / void."""
    d = tmp_path_factory.mktemp("deal")
    run_cli("dataset", "--seats", DEAL_SEARCH, "--record", "0", "--hands", 80, "--seed", 3, "--tables", 20,
            "--out", d / "ds", "-q")
    out = {}
    for decision in ("exchange", "void"):
        res = run_cli("learn", d / "ds", "--decision", decision, "--out", d / f"{decision}.npz", "--max-iter", 10, "-q")
        assert "trees on" in res.output
        out[decision] = d / f"{decision}.npz"
    return out


def test_learned_exchange_and_void_answer_as_their_training_rows_predict(deal_models):
    """At every exchange and void question of hands in both bloods, the jitted policy's answer is
    the candidate whose training row (``deal_features``, as ``sichuan learn`` computes it from a
    kept view) the model scores best above the margin, else the expert policy's: the features a
    model trains on are those the seat computes when it answers."""
    from strategies import exchange as ex
    from strategies import void as vo
    from strategies.deal_features import exchange_features, void_features
    from strategies.exchange import isolated_three
    from strategies.learned import learned_exchange, learned_void
    import json

    from strategies import models as M

    tab = load_tables()
    eager = {}
    for k, path in deal_models.items():   # the trees as trained, shifted up: every candidate is worth a try
        with np.load(path) as z:
            header, arrays = json.loads(z["header"].tobytes()), {a: z[a] for a in M.ARRAYS}
        eager[k] = M.save(path.parent / f"eager-{k}.npz", dict(header, baseline=header["baseline"] + 50.0), arrays)
    spec = (f"expert+exchange=learned[model={eager['exchange']},margin=0]"
            f"+void=learned[model={eager['void']},margin=0]")
    players = seat_functions(parse_seats(f"{spec},expert,expert,expert"))
    models = {k: M.load(p).packed for k, p in eager.items()}
    seen = {vw.Q_EXCHANGE: 0, vw.Q_VOID: 0}
    changed = 0
    for g in range(8):
        for _, S in stopped_points(preset("flow" if g % 2 else "battle"), players, 4, g):
            q = pose(S, 0)
            if q not in seen:
                continue
            v = view_in(S, 0).copy()
            if q == vw.Q_EXCHANGE:
                own = ex.plans(np.int64(q), v.copy(), tab)
                suit = vw.unpack3(own)[0] // 9
                cands = [own] + [isolated_three(v, np.int64(s)) for s in range(3)
                                 if s != suit and sum(v[vw.V_HAND + 9 * s:vw.V_HAND + 9 * s + 9]) >= 3]
                rows = exchange_features(tab, v.copy(), np.array(cands, np.int64), own)
                got = learned_exchange(np.int64(q), v, tab)
                model = models["exchange"]
            else:
                own = vo.plans(np.int64(q), v.copy(), tab)
                cands = [own] + [s for s in range(3) if s != own]
                rows = void_features(tab, v.copy(), np.array(cands, np.int64), own)
                got = learned_void(np.int64(q), v, tab)
                model = models["void"]
            assert (v[vw.V_SCRATCH:vw.V_SCRATCH + vw.N_SCRATCH] == 0).all()   # left as the play expects it
            p = [M.predict(model, r) for r in rows[1:]]
            want = cands[1 + int(np.argmax(p))] if p and max(p) > 0 else own
            assert got == want
            changed += got != own
            seen[q] += 1
    assert seen[vw.Q_EXCHANGE] >= 8 and seen[vw.Q_VOID] >= 8 and changed >= 4, (seen, changed)


def test_learned_exchange_and_void_seat_and_are_refused_for_the_wrong_question(deal_models, tiny_model):
    for rules in ("battle", "flow"):   # check mode: an illegal pick would raise
        fns = seat_functions(parse_seats(f"expert+exchange=learned[model={deal_models['exchange']},margin=0]"
                                         f"+void=learned[model={deal_models['void']},margin=0],expert,expert,expert"))
        run_batch(preset(rules), fns, 2, 0, 100, check=True)
    res = invoke("simulate", "--hands", 10, "--seats", f"expert+void=learned[model={deal_models['exchange']}]",
                 "--out", tiny_model.parent / "wrong")
    assert res.exit_code == 2 and "answers the exchange question, not the void one" in res.output
    res = invoke("simulate", "--hands", 10, "--seats", f"learned[model={deal_models['void']}]",
                 "--out", tiny_model.parent / "wrong2")
    assert res.exit_code == 2 and "not the play one" in res.output
    # a margin no prediction reaches leaves expert's exchange and void: expert's hands exactly
    fns = seat_functions(parse_seats(f"expert+exchange=learned[model={deal_models['exchange']},margin=1000]"
                                     f"+void=learned[model={deal_models['void']},margin=1000]"))
    res = run_batch(preset("battle"), fns, 2, 0, 100)
    ref = run_batch(preset("battle"), seat_functions(parse_seats("expert")), 2, 0, 100)
    assert (res.seat[:, :, S_NET] == ref.seat[:, :, S_NET]).all()


def _waits_after(tab, v, t, take, kind, discards):
    """(worth, kinds, live copies) of the best-valued waits of seat's hand once a set of t is
    declared, built on a copy of the view the plain way (tiles out, the set listed), over
    ``discards`` (None: the tiles as they are)."""
    from strategies.expert import P_PUNG_ODDS, P_SUIT_ODDS, SCR_VALUE, SCR_WAITS, _suit_weights, _wait_worth
    from strategies.value import wait_values

    w = v.copy()
    me = w[vw.V_ME]
    w[vw.V_HAND + t] -= take
    k = w[vw.V_N_MELDS + me]
    pung = [i for i in range(k) if w[vw.V_MELD_KIND + me * 4 + i] == vw.M_PUNG and w[vw.V_MELD_TILE + me * 4 + i] == t]
    if kind == vw.M_KONG_ADDED:
        w[vw.V_MELD_KIND + me * 4 + pung[0]] = kind
    else:
        w[vw.V_MELD_KIND + me * 4 + k], w[vw.V_MELD_TILE + me * 4 + k] = kind, t
        w[vw.V_N_MELDS + me] = k + 1
    odds = _suit_weights(w, vw.param_float(w, P_SUIT_ODDS), vw.param_float(w, P_PUNG_ODDS))[0]
    best = (-1.0, 0, 0)   # the first of equal worths, as the features take it
    for d in (discards if discards is not None else [-1]):
        mask, live = wait_values(tab, w, np.int64(d), SCR_VALUE, SCR_WAITS)
        if mask and _wait_worth(w, mask, odds) > best[0]:
            best = (_wait_worth(w, mask, odds), bin(mask).count("1"), live)
    return best if best[0] >= 0 else (0.0, 0, 0)


def test_a_declared_sets_waits_are_those_of_the_hand_after_it():
    """A pung or kong that leaves the hand ready is valued by the waits it leaves (features v2):
    they equal the waits of the hand built with the set declared (a pung's: after the discard whose
    waits are worth most), and computing them leaves the view as it was outside the scratch."""
    from strategies.features import CANDIDATE_NAMES, C0

    col = {n: C0 + i for i, n in enumerate(CANDIDATE_NAMES)}
    tab = load_tables()
    players = seat_functions(parse_seats("expert"))
    seen = {"pung": 0, "kong": 0}
    for g in range(12):
        for _, S in stopped_points(preset("flow"), players, 4, g):
            for s in range(4):
                q, v = pose(S, s), view_in(S, s).copy()
                if q == vw.Q_CLAIM and v[vw.V_CAN_PUNG]:
                    t, answers, kind, take = v[vw.V_TILE], [vw.C_PASS, vw.C_PUNG], vw.M_PUNG, 2
                elif q == vw.Q_TURN and v[vw.V_KONG_MASK] and not v[vw.V_LOCKED]:
                    t = int(np.log2(v[vw.V_KONG_MASK] & -v[vw.V_KONG_MASK]))
                    answers = [next(u for u in range(27) if v[vw.V_HAND + u]), vw.A_KONG + t]
                    concealed = v[vw.V_HAND + t] == 4
                    kind, take = (vw.M_KONG_CONCEALED, 4) if concealed else (vw.M_KONG_ADDED, 1)
                else:
                    continue
                before = v.copy()
                row = view_features(tab, v, np.array(answers, np.int64), np.int64(answers[0]))[1]
                outside = np.r_[0:vw.V_SCRATCH, vw.V_SCRATCH + vw.N_SCRATCH:vw.VIEW_LEN]
                np.testing.assert_array_equal(v[outside], before[outside])
                if row[col["shanten_after"]] != 0:
                    continue
                void = v[vw.V_VOID + v[vw.V_ME]]
                held = [u for u in range(27) if v[vw.V_HAND + u] - (take if u == t else 0) > 0]
                if kind == vw.M_PUNG and any(u // 9 == void for u in held):
                    held = [u for u in held if u // 9 == void]
                worth, kinds, live = _waits_after(tab, before, t, take, kind, held if kind == vw.M_PUNG else None)
                assert row[col["wait_worth"]] == pytest.approx(worth)
                assert (row[col["wait_kinds"]], row[col["wait_live"]]) == (kinds, live)
                seen["pung" if kind == vw.M_PUNG else "kong"] += worth > 0
    assert seen["pung"] >= 5 and seen["kong"] >= 1, seen


def test_an_expert_iteration_dataset_is_rebased_on_experts_answer(tmp_path):
    """A dataset of search[policy=learned] (an expert iteration round) judges its candidates against
    learned's answer; ``sichuan learn`` re-bases each decision on expert's answer, as a learned
    seat's features and targets are relative to it: every candidate but expert's is a row, its
    target its value less expert's answer's, and where learned left expert's answer its answer is
    a row like any other."""
    import json

    import pyarrow.parquet as pq

    from experiments.learn import _expert_params, _rebased_seats, decision_rows
    from simcore.contract.actions import answer_of
    from strategies.expert import expert

    d = tmp_path / "ei"
    run_cli("dataset", "--rules", "flow", "--seats", "search[rollouts=2,max_rollouts=2,policy=learned],expert,expert,expert",
            "--record", "0", "--hands", 40, "--seed", 3, "--tables", 20, "--out", d, "-q")
    manifest = json.loads((d / "dataset.json").read_text())
    assert _rebased_seats(manifest) == {0}
    x, y, _, ids, _ = decision_rows(d)
    tab, params = load_tables(), _expert_params()
    want, moved = [], 0
    for part in sorted(d.glob("part-*.parquet")):
        t = pq.read_table(part).to_pydict()
        for q, cands, vals, raw in zip(t["question"], t["candidates"], t["candidate_values"], t["view"]):
            if cands is None or raw is None or len(cands) < 2 or q not in ("turn", "claim", "rob"):
                continue
            v = np.frombuffer(raw, "<i8").copy()
            v[vw.V_PARAMS:vw.V_PARAMS + 3 * vw.N_PARAMS] = params
            v[vw.V_SCRATCH:vw.V_SCRATCH + vw.N_SCRATCH] = 0
            answers = [answer_of(v[vw.V_QUESTION], np.int64(a), v[vw.V_TILE]) for a in cands]
            own = expert(np.int64(v[vw.V_QUESTION]), v, tab)
            if own not in answers:
                continue
            k = answers.index(own)
            moved += k != 0
            want += [vals[i] - vals[k] for i in range(len(cands)) if i != k]
    np.testing.assert_allclose(y, np.array(want), rtol=1e-6)
    assert moved > 0 and (x[:, C0] == 0).all()   # learned left expert somewhere; expert's answer is never a row
