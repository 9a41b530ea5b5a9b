"""The strategy ladder (experiments/ladder.py, `sichuan ladder`): scores, paired differences and
per-play statistics against a computation done here directly from ``run_batch``'s outputs, the
exact discard counts against a replay of every hand, thread independence, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from experiments import ladder as L
from simcore.contract import records as rec
from simcore.runs.analysis import mean_ci
from simcore.runs.batch import run_batch
from simcore.runs.value_model import shipped
from simcore.contract.rules import preset
from strategies.registry import parse_seats, seat_functions

WALLS, SEED = 300, 7
PLAYS, FIELDS, PRESETS = ["greedy", "efficient"], ["greedy", "mixed"], ["battle", "flow"]


@pytest.fixture(scope="module")
def rep():
    return L.run_ladder(L.make_config(PLAYS, FIELDS, PRESETS, WALLS, SEED, threads=2))


def _nets(rules, seats: list[str], corrected: bool = False) -> np.ndarray:
    # the ladder's defaults: seat draw order, luck measured with the shipped model
    res = run_batch(rules, seat_functions(parse_seats(",".join(seats))), SEED, 0, WALLS, draw_order="seat",
                    value_weights=shipped(rules)[0])
    nets = res.seat[:, :, rec.S_NET].astype(np.int64)
    return (nets - res.luck if corrected else nets), res


def _direct_scores(rules, corrected: bool = True) -> dict:
    """Per field and play, the per-wall scores computed straight from run_batch tables, of the
    luck-corrected nets (the ladder's default estimator) or the plain ones."""
    out = {"greedy": {}, "mixed": {}}

    def nets_of(seats):
        return _nets(rules, seats, corrected)[0]

    base = nets_of(["greedy"] * 4)
    for play in PLAYS:
        uniform, mixed = [], []
        for r in range(4):
            seats = ["greedy"] * 4
            seats[r] = play
            uniform.append(nets_of(seats)[:, r] - base[:, r])
            seats = [None] * 4
            seats[r] = play
            for i, opp in enumerate(L.MIXED_SEATS, 1):
                seats[(r + i) % 4] = opp
            mixed.append(nets_of(seats)[:, r])
        out["greedy"][play] = np.mean(uniform, axis=0)
        out["mixed"][play] = np.mean(mixed, axis=0)
    return out


@pytest.mark.parametrize("name", PRESETS)
def test_scores_and_differences_equal_a_direct_computation(rep, name):
    direct = _direct_scores(preset(name))
    plain = _direct_scores(preset(name), corrected=False)
    res = rep["results"][name]
    for field in FIELDS:
        for play in PLAYS:
            s = direct[field][play]
            assert np.allclose(rep["_scores"][name][field][play], s, rtol=0, atol=1e-9)
            m, lo, hi = mean_ci(s)
            got = res["scores"][field][play]
            if field == "greedy" and play == "greedy":
                continue
            assert (got["mean"], got["low"], got["high"]) == pytest.approx((m, lo, hi), rel=1e-12, abs=1e-12)
            p = got["plain"]
            assert (p["mean"], p["low"], p["high"]) == pytest.approx(mean_ci(plain[field][play]), rel=1e-12, abs=1e-12)
            assert got["variance_factor"] == pytest.approx(plain[field][play].var() / s.var())
        a, b = PLAYS
        d = res["diffs"][field][a][b]
        assert (d["mean"], d["low"], d["high"]) == pytest.approx(mean_ci(direct[field][a] - direct[field][b]),
                                                                 rel=1e-12, abs=1e-12)
        d2 = res["diffs"][field][b][a]
        assert d2["mean"] == pytest.approx(-d["mean"], abs=1e-12)


def test_a_play_equal_to_the_field_scores_zero(rep):
    for name in PRESETS:
        c = rep["results"][name]["scores"]["greedy"]["greedy"]
        assert c == {"mean": 0.0, "low": 0.0, "high": 0.0, "field": True, "walls_differed": 0,
                     "plain": {"mean": 0.0, "low": 0.0, "high": 0.0}, "variance_factor": None}
        # a play against a uniform field is played where it answers differently (the scores above
        # equal full tables'); against the mixed field every table is played in full
        assert 0 < rep["results"][name]["scores"]["greedy"]["efficient"]["walls_differed"] <= WALLS
        assert rep["results"][name]["scores"]["mixed"]["efficient"]["walls_differed"] is None
        assert not np.any(rep["_scores"][name]["greedy"]["greedy"])
        assert rep["results"][name]["scores"]["mixed"]["greedy"]["field"] is False
        # the paired difference against the field's own play is the other play's score
        d = rep["results"][name]["diffs"]["greedy"]["efficient"]["greedy"]
        s = rep["results"][name]["scores"]["greedy"]["efficient"]
        assert d == {k: s[k] for k in ("mean", "low", "high")}


def test_tables_are_shared_not_replayed(rep):
    # per preset: the greedy baseline, efficient's 4 rotations, and 4 mixed rotations per play
    assert [rep["results"][p]["tables"] for p in PRESETS] == [13, 13]
    assert rep["hands"] == 2 * 13 * WALLS


def test_per_play_statistics_equal_a_direct_count(rep):
    rules = preset("battle")
    c = dict.fromkeys(("wins", "self", "base", "dealt", "exhausted", "seat_hands"), 0)
    for r in range(4):
        seats = ["greedy"] * 4
        seats[r] = "efficient"
        _, res = _nets(rules, seats)
        c["wins"] += int(res.seat[:, r, rec.S_WINS].sum())
        c["exhausted"] += int((res.hand[:, rec.H_END_REASON] == rec.END_WALL_EXHAUSTED).sum())
        c["seat_hands"] += WALLS
        for i in range(WALLS):
            rows = res.win[i, :res.hand[i, rec.H_N_WINS]]
            mine = rows[rows[:, rec.W_SEAT] == r]
            c["self"] += int(np.isin(mine[:, rec.W_KIND], [rec.WIN_SELF_DRAW, rec.WIN_KONG_REPLACEMENT]).sum())
            c["base"] += int(mine[:, rec.W_BASE].sum())
            dealt = {(int(w[rec.W_TURN]), int(w[rec.W_FROM])) for w in rows
                     if w[rec.W_KIND] == rec.WIN_DISCARD and w[rec.W_FROM] == r}
            c["dealt"] += len(dealt)
    st = rep["results"]["battle"]["stats"]["by_field"]["greedy"]["efficient"]
    assert (st["wins"], st["self_drawn"], st["base_sum"], st["dealt_in"], st["exhausted"], st["seat_hands"]) == (
        c["wins"], c["self"], c["base"], c["dealt"], c["exhausted"], c["seat_hands"])
    assert st["wins_per_hand"] == pytest.approx(c["wins"] / c["seat_hands"])
    assert st["deal_in_rate"] == pytest.approx(c["dealt"] / st["discards"])
    pooled = rep["results"]["battle"]["stats"]["pooled"]["efficient"]
    by = rep["results"]["battle"]["stats"]["by_field"]
    for k in L.STATS:
        assert pooled[k] == sum(by[f]["efficient"][k] for f in FIELDS)


@pytest.mark.parametrize("name", ["battle", "flow", "chengdu"])
def test_discard_counts_equal_a_replay_of_every_hand(name):
    """Where the counts alone are certain they equal the event log's; the ladder's table (counts,
    replays where they are not) equals the log on every seat and hand."""
    rules = preset(name)
    for spec in ("greedy", "expert,greedy,random,efficient"):
        players = seat_functions(parse_seats(spec))
        res = run_batch(rules, players, SEED, 0, WALLS)
        log = L.replay_counts(rules, players, SEED, np.arange(WALLS))
        assert np.array_equal(log["net"], res.seat[:, :, rec.S_NET])
        counted, replay = L.table_of(res, rules, [0, 1, 2, 3])
        assert np.array_equal(counted.dealt_in, log["dealt_in"])
        certain = np.ones(WALLS, bool)
        certain[replay] = False
        assert np.array_equal(counted.discards[certain], log["discards"][certain])
        plan = L.TablePlan(tuple(parse_seats(spec)), [L.Use("f", "p", s) for s in range(4)])
        table = L.play_table(rules, plan, WALLS, SEED)
        assert np.array_equal(table.discards, log["discards"])
        assert table.replayed == len(replay) and (name == "flow") == (len(replay) > WALLS // 2)


def _results(rep: dict) -> str:
    keep = {k: v for k, v in rep.items() if k not in ("seconds", "hands_per_second") and not k.startswith("_")}
    return json.dumps(keep, sort_keys=True)


def test_thread_count_does_not_change_results(rep):
    one = L.run_ladder(L.make_config(PLAYS, FIELDS, PRESETS, WALLS, SEED, threads=1))
    assert _results(one) == _results(rep)
    for name in PRESETS:
        for f in FIELDS:
            for p in PLAYS:
                assert np.array_equal(one["_scores"][name][f][p], rep["_scores"][name][f][p])


def test_reports_show_the_matrix_and_the_focus(rep):
    text = L.format_text(rep)
    cell = L.cell_text(rep["results"]["battle"]["scores"]["mixed"]["efficient"])
    assert cell in text and "0 (field)" in text
    assert rep["focus"] == ["greedy"]  # expert is not a play here: the first play
    assert "greedy minus each other play" in text
    md = L.format_markdown(rep)
    assert md.startswith("# The strategy ladder") and "| play | greedy | mixed |" in md and rep["command"] in md


# -- the command line -----------------------------------------------------------------------


def _cli(*args, expect=0):
    from simcore.cli import main

    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == expect, (res.output, res.exception)
    return res


def test_json_parses_and_markdown_is_written(tmp_path):
    out = tmp_path / "ladder" ".md"
    res = _cli("ladder", "--plays", "greedy,expert[flush_weight=3]", "--fields", "greedy", "--presets", "kawu",
               "--walls", 40, "--seed", 2, "--focus", "expert[flush_weight=3]", "--json", "-q", "--out", out)
    rep = json.loads(res.stdout)
    assert rep["kind"] == "ladder" and rep["walls"] == 40 and rep["presets"] == ["kawu"]
    assert rep["plays"] == ["greedy", "expert[flush_weight=3]"] and rep["focus"] == ["expert[flush_weight=3]"]
    assert "flush_weight=3" in rep["canonical"]["expert[flush_weight=3]"]
    cell = rep["results"]["kawu"]["scores"]["greedy"]
    assert cell["greedy"]["field"] and cell["expert[flush_weight=3]"]["low"] is not None
    assert rep["command"].startswith("sichuan ladder --plays")
    assert out.read_text().startswith("# The strategy ladder")


def test_defaults_match_the_module():
    from experiments.cli import ladder

    opts = {p.name: p.default for p in ladder.params}
    assert opts["plays"].split(",") == list(L.DEFAULT_PLAYS)
    assert opts["fields"].split(",") == list(L.DEFAULT_FIELDS)
    assert opts["presets"].split(",") == list(L.DEFAULT_PRESETS)
    assert (opts["walls"], opts["seed"]) == (L.DEFAULT_WALLS, L.DEFAULT_SEED)


@pytest.mark.parametrize("args, needle", [
    (["--plays", "greedy,nope"], "unknown play strategy 'nope'"),
    (["--plays", "greedy,mixed"], "unknown play strategy 'mixed'"),
    (["--fields", "efficent"], "did you mean 'efficient'"),
    (["--presets", "battel"], "unknown preset 'battel'"),
    (["--walls", 0], "walls must be an integer >= 1"),
    (["--walls", -5], "walls must be an integer >= 1"),
    (["--threads", 0], "threads must be an integer >= 1"),
    (["--plays", "greedy,greedy+void=fewest"], "is the same as 'greedy'"),
    (["--focus", "flush", "--plays", "greedy,efficient"], "focus 'flush' is not one of the plays"),
    (["--plays", "expert[flush_weight=99]"], "flush_weight"),
    (["--plays", "greedy,"], "empty item"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    out = _cli("ladder", *args, "-q", expect=2).output
    assert out.startswith("Error: ") and out.count("\n") == 1, out
    assert needle in out, out
