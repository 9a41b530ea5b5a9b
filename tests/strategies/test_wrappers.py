"""User strategies that wrap a built-in, and the names of user parts (issue 44, points 4 and 5): a
wrapper declared with one call has the built-in's parameters with their defaults and keeps its own
slots; a part prints with its non-default parameters only, user files included; a user play's
omitted policies are expert's."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pyarrow.parquet as pq
import pytest

from simcore.contract.view import N_PARAMS, WRAPPED_PARAMS
from simcore.runs import analysis
from simcore.runs import shards as rio
from strategies import names as N
from strategies.expert import expert
from strategies.params import Param, ParamError, declared, declared_slots, parameters, wrapped_of, wraps
from strategies.registry import KINDS, parse_seat, setup_of, seat_functions
from tests.support.cli import invoke, run_cli

WRAPPER = "strategies/example_wrapper.py"
PATIENT = f"{WRAPPER}:patient"
EXPERT_POLICIES = parse_seat("expert").canonical.split("+", 1)[1]   # exchange=expert[...]+void=expert[...]

OWN_PARAMS = textwrap.dedent('''
    import numba as nb
    from strategies.api import C_PASS, C_WIN, Q_CLAIM, Q_ROB, STRATEGY_SIG, V_CAN_WIN, Param, param_int, parameters
    from strategies.expert import expert

    @parameters(Param.int("ways", 2, 0, 9, "how many ways"), Param.float("lean", 0.5, 0.0, 1.0, "how far to lean"))
    @nb.njit(STRATEGY_SIG, cache=True)
    def leaner(q, view, tab):
        """Plays as expert; its parameters do nothing."""
        return expert(q, view, tab) + 0 * param_int(view, 0)
''')


def test_every_built_in_leaves_a_wrapper_room_for_its_own_parameters():
    for kind, table in KINDS.items():
        for name, fn in table.items():   # a built-in that is itself a wrapper (learned) is not wrapped
            assert len(declared(fn)) <= WRAPPED_PARAMS or wrapped_of(fn) is not None, (kind, name)
    assert N_PARAMS - WRAPPED_PARAMS >= 16
    from simcore.contract.view import N_SCRATCH
    from strategies.expert import SCRATCH_USED

    assert SCRATCH_USED < N_SCRATCH   # a wrapper of expert has scratch slots of its own


def test_a_wrapper_has_the_built_ins_parameters_then_its_own():
    import strategies.example_wrapper as W

    names = [p.name for p in declared(W.patient)]
    assert names == [p.name for p in declared(expert)] + ["wait_tiles"]
    assert declared_slots(W.patient) == tuple(range(len(declared(expert)))) + (WRAPPED_PARAMS,)
    assert wrapped_of(W.patient) is expert and wrapped_of(expert) is None
    seat = parse_seat(f"{PATIENT}[wait_tiles=30,flush_weight=3]")
    players = seat_functions([seat] * 4)
    setup = setup_of([seat] * 4, players.fns)
    group = setup[:N_PARAMS]   # seat 0's play group
    assert group[WRAPPED_PARAMS] == 30                                   # its own, where own_param_int reads
    assert group[1] == np.float64(3.0).view(np.int64)                    # expert's flush_weight, where expert reads
    assert group[len(declared(expert)):WRAPPED_PARAMS].tolist() == [0] * (WRAPPED_PARAMS - len(declared(expert)))


def test_wraps_refuses_in_one_line():
    own = Param.int("x", 1, 0, 2, "x")
    with pytest.raises(ParamError, match="already a parameter of expert"):
        wraps(expert, Param.float("pace", 1.0, 0.0, 2.0, "again"))
    with pytest.raises(ParamError, match="at most 16 parameters of its own"):
        wraps(expert, *(Param.int(f"p{i}", 0, 0, 1, "p") for i in range(17)))
    with pytest.raises(ParamError, match="not a strategy that declares its parameters"):
        wraps(lambda q, v, t: 0, own)

    def inner(q, v, t):
        return 0

    parameters(*(Param.int(f"p{i}", 0, 0, 1, "p") for i in range(20)))(inner)
    with pytest.raises(ParamError, match="only a built-in can be wrapped"):
        wraps(inner, own)
    with pytest.raises(ParamError, match="at most 32 parameters"):
        parameters(*(Param.int(f"p{i}", 0, 0, 1, "p") for i in range(33)))


def test_a_wrapper_at_its_defaults_plays_as_the_built_in_and_its_own_parameter_reaches_it(tmp_path):
    def nets(seats, out):
        run_cli("simulate", "-q", "--hands", 120, "--seats", seats, "--out", tmp_path / out, "--workers", 1)
        s = analysis.load(tmp_path / out, tables=["seats"]).seats
        return s[["hand", "seat", "net", "void_suit"]].astype(str).values.tolist()

    base = nets("expert", "e")
    assert nets(PATIENT, "p") == base                          # expert's parameters, expert's policies
    assert nets(f"{PATIENT}[wait_tiles=40]", "w") != base      # its own parameter changes its play
    assert nets(f"{PATIENT}[flush_weight=0]", "f") == nets("expert[flush_weight=0]", "ef")


def test_names_print_non_default_parameters_only_user_files_included(tmp_path):
    assert N.short_name(parse_seat(PATIENT).canonical) == "example_wrapper.py:patient"
    assert N.short_name(parse_seat(f"{PATIENT}[wait_tiles=30]").canonical) == "example_wrapper.py:patient[wait_tiles=30]"
    both = parse_seat(f"{PATIENT}[wait_tiles=30,flush_weight=3]").canonical
    assert N.short_name(both) == "example_wrapper.py:patient[flush_weight=3.0,wait_tiles=30]"
    assert parse_seat(f"{PATIENT}[flush_weight=3.0,wait_tiles=30]").canonical == both   # it parses back
    (tmp_path / "lean.py").write_text(OWN_PARAMS)
    leaner = f"{tmp_path}/lean.py:leaner"
    assert N.short_name(parse_seat(leaner).canonical) == "lean.py:leaner"
    assert N.short_name(parse_seat(f"{leaner}[lean=0.25]").canonical) == "lean.py:leaner[lean=0.25]"
    assert N.policy_parts(parse_seat(f"greedy+void={tmp_path}/lean.py:leaner[ways=3]").canonical) == \
        ("greedy", "shortest", "lean.py:leaner[ways=3]")


def test_a_runs_names_shorten_from_its_record_in_a_process_that_never_loaded_the_file(tmp_path, monkeypatch):
    out = tmp_path / "run"
    seats = f"{PATIENT},{PATIENT}[wait_tiles=30],expert,{PATIENT}[pace=2]"
    run_cli("simulate", "-q", "--hands", 40, "--seats", seats, "--out", out, "--workers", 1)
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["config"]["seats"][0] == parse_seat(PATIENT).canonical   # the full form, every parameter
    assert set(manifest["strategy_defaults"]) == {PATIENT}
    assert manifest["strategy_defaults"][PATIENT]["wait_tiles"] == "0"
    plays = pq.read_table(out / "seats" / rio.shard_name(0), columns=["play"]).column("play").to_pylist()[:4]
    assert plays == ["example_wrapper.py:patient", "example_wrapper.py:patient[wait_tiles=30]", "expert",
                     "example_wrapper.py:patient[pace=2.0]"]
    monkeypatch.setattr(N, "_USER_DEFAULTS", {})      # as a new process: the file never loaded
    text = run_cli("summarize", out, "--by", "play").output
    assert "play example_wrapper.py:patient[wait_tiles=30]\n" in text and "play example_wrapper.py:patient\n" in text
    assert "flush_weight" not in text
    monkeypatch.setattr(N, "_USER_DEFAULTS", {})
    sql = run_cli("sql", out, "SELECT DISTINCT play FROM seats ORDER BY play").output
    assert "example_wrapper.py:patient[pace=2.0]" in sql and "flush_weight" not in sql


def test_a_user_part_whose_defaults_are_unknown_keeps_its_parameters(monkeypatch):
    monkeypatch.setattr(N, "_USER_DEFAULTS", {})
    text = "old/lean.py:leaner[ways=2,lean=0.5]+exchange=shortest+void=fewest"
    assert N.short_name(text) == "lean.py:leaner[ways=2,lean=0.5]+exchange=shortest+void=fewest"
    N.learn_recorded({"old/lean.py:leaner": {"ways": "2", "lean": "0.5"}})
    assert N.short_name(text) == "lean.py:leaner+exchange=shortest+void=fewest"


def test_a_user_play_gets_experts_policies_and_built_ins_keep_theirs(tmp_path):
    (tmp_path / "lean.py").write_text(OWN_PARAMS)
    leaner = f"{tmp_path}/lean.py:leaner"
    assert parse_seat(leaner).canonical.split("+", 1)[1] == EXPERT_POLICIES
    for play in ("greedy", "efficient", "flush", "defensive", "random"):
        assert parse_seat(play).canonical == f"{play}+exchange=shortest+void=fewest"
    assert N.short_name(parse_seat(leaner).canonical) == "lean.py:leaner"
    # a run written before keeps what it recorded, and prints it
    assert N.short_name(f"{leaner}[ways=2,lean=0.5]+exchange=shortest+void=fewest") == \
        "lean.py:leaner+exchange=shortest+void=fewest"
    assert parse_seat(f"{leaner}+exchange=shortest+void=fewest").canonical == \
        f"{leaner}[ways=2,lean=0.5]+exchange=shortest+void=fewest"


def test_a_spec_as_written_before_names_the_old_policies_of_user_plays():
    new = f"old/lean.py:leaner[ways=2]+{EXPERT_POLICIES}"
    assert N.as_written_before(new) == "old/lean.py:leaner[ways=2]+exchange=shortest+void=fewest"
    mixed = f"old/lean.py:leaner+exchange=random+void={EXPERT_POLICIES.split('+')[1].split('=', 1)[1]}"
    assert N.as_written_before(mixed) == "old/lean.py:leaner+exchange=random+void=fewest"
    assert N.as_written_before(parse_seat("expert").canonical) == parse_seat("expert").canonical


def test_resuming_a_run_written_with_the_old_default_says_how(tmp_path):
    (tmp_path / "lean.py").write_text(OWN_PARAMS)
    leaner = f"{tmp_path}/lean.py:leaner"
    out = tmp_path / "run"
    run_cli("simulate", "-q", "--hands", 20, "--seats", f"{leaner}+exchange=shortest+void=fewest,greedy,greedy,greedy",
            "--out", out, "--workers", 1)
    res = invoke("simulate", "-q", "--hands", 40, "--seats", f"{leaner},greedy,greedy,greedy", "--out", out,
                 "--workers", 1)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert "add +exchange=shortest+void=fewest to its spec to resume it" in res.stderr
    run_cli("simulate", "-q", "--hands", 40, "--seats", f"{leaner}+exchange=shortest+void=fewest,greedy,greedy,greedy",
            "--out", out, "--workers", 1)


def test_sichuan_strategies_lists_a_files_strategies():
    text = run_cli("strategies", WRAPPER).output
    assert "patient" in text and "wraps play expert" in text
    assert "[wait_tiles=0 (int 0..55)" in text and "flush_weight" not in text
    assert "exchange=expert, void=expert" in text
    assert "sichuan strategies path/to/file.py" in run_cli("strategies").output
    for bad in ("nosuch.py", "README.md"):
        res = invoke("strategies", bad)
        assert res.exit_code != 0 and res.stderr.count("\n") == 1, res.stderr


def test_an_experiment_written_with_the_old_default_says_how_to_resume(tmp_path):
    (tmp_path / "lean.py").write_text(OWN_PARAMS)
    leaner = f"{tmp_path}/lean.py:leaner"
    out = tmp_path / "cmp"
    run_cli("compare", f"{leaner}+exchange=shortest+void=fewest", "greedy", "--hands", 8, "-q", "--workers", 1,
            "--out", out)
    res = invoke("compare", leaner, "greedy", "--hands", 16, "-q", "--workers", 1, "--out", out)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "add +exchange=shortest+void=fewest to those seat specs to resume it" in res.stderr
