"""A model file is part of a run's identity (issue 45, section 1): a run records every model file
its seats play (``model_files``, with their paths as given: ``model_paths``), a resume or a trace
after one changed is refused naming it (a trace is allowed with --allow-changed-strategy, with a
warning), relative model paths trace from any directory, a model of the other blood is refused
where the rules are known, and a run written before any of this resumes as it did."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from simcore.contract.rules import preset
from simcore.runs import shards as rio
from strategies import models as M
from strategies.features import N_FEATURES
from strategies.registry import StrategyError, parse_seats, seat_functions
from tests.support.cli import invoke

SHIPPED_BATTLE = M.shipped_path("battle")


def _simulate(out, seats, hands=20, *more):
    return invoke("simulate", "-q", "--hands", hands, "--chunk-hands", 10, "--seats", seats, "--out", out,
                  "--workers", 1, *more)


def _rewrite(path, margin=0.25):
    """The model file saved again with another margin: the same trees, other bytes and play."""
    with np.load(path, allow_pickle=False) as z:
        header = json.loads(z["header"].tobytes().decode())
        arrays = {k: z[k] for k in M.ARRAYS}
    M.save(path, dict(header, margin=margin), arrays)


def _files(run_dir):
    return sorted((p.relative_to(run_dir).as_posix(), p.read_bytes()) for p in run_dir.rglob("*")
                  if p.is_file() and not p.name.startswith("."))


@pytest.fixture()
def model(tmp_path):
    path = tmp_path / "home" / "m.npz"
    path.parent.mkdir()
    shutil.copy(SHIPPED_BATTLE, path)
    return path


def test_a_changed_model_refuses_resume_and_trace_naming_it(model, tmp_path, monkeypatch):
    monkeypatch.chdir(model.parent)
    out = tmp_path / "run"
    seats = "learned[model=m.npz],expert,expert,expert"
    assert _simulate(out, seats).exit_code == 0
    manifest = rio.read_manifest(out)
    assert manifest["model_files"] == {str(model): M.file_digest(model)}
    assert manifest["model_paths"] == {"m.npz": str(model)}
    here = invoke("trace", out, "--hand", 3)
    assert here.exit_code == 0, here.output

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)   # a relative model path traces from any directory, as the run played it
    there = invoke("trace", out, "--hand", 3)
    assert there.exit_code == 0, there.output
    assert there.output == here.output
    # the same file by another path is the same seat: the run extends, keeping its seat text
    assert _simulate(out, f"learned[model={model}],expert,expert,expert", 30).exit_code == 0
    assert rio.read_manifest(out)["config"]["seats"][0].startswith("learned[")
    assert "model=m.npz" in rio.read_manifest(out)["config"]["seats"][0]

    _rewrite(model)
    before = _files(out)
    res = _simulate(out, f"learned[model={model}],expert,expert,expert", 40)
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1, res.output
    assert f"model file {model} changed since the run" in res.stderr
    assert _files(out) == before   # the results are left as they were
    res = invoke("trace", out, "--hand", 3)
    assert res.exit_code == 2 and str(model) in res.stderr and "--allow-changed-strategy" in res.stderr
    res = invoke("trace", out, "--hand", 3, "--allow-changed-strategy")
    assert res.exit_code == 0, res.output
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and str(model) in warnings[0] and "may differ" in warnings[0]

    model.unlink()   # gone: a trace cannot play it, flag or not
    res = invoke("trace", out, "--hand", 3, "--allow-changed-strategy")
    assert res.exit_code == 2 and f"model file {model} no longer exists" in res.stderr


def test_a_run_written_before_model_files_resumes_as_it_did(model, tmp_path):
    out = tmp_path / "run"
    seats = f"learned[model={model}],expert,expert,expert"
    assert _simulate(out, seats).exit_code == 0
    path = out / rio.MANIFEST
    manifest = json.loads(path.read_text())
    del manifest["model_files"], manifest["model_paths"]
    path.write_text(json.dumps(manifest))
    _rewrite(model)   # such a run did not record its model: nothing to compare
    assert invoke("trace", out, "--hand", 3).exit_code == 0
    res = _simulate(out, seats, 30)
    assert res.exit_code == 0, res.output
    assert rio.read_manifest(out)["model_files"] == {str(model): M.file_digest(model)}   # recorded from now on


def test_bare_learned_records_the_shipped_model_of_the_runs_blood(tmp_path):
    out = tmp_path / "run"
    assert _simulate(out, "learned,expert,expert,expert", 10, "--rules", "flow").exit_code == 0
    flow = M.shipped_path("flow").resolve()
    assert rio.read_manifest(out)["model_files"] == {str(flow): M.file_digest(flow)}
    out = tmp_path / "plain"
    assert _simulate(out, "expert", 10).exit_code == 0
    assert rio.read_manifest(out)["model_files"] == {} and rio.read_manifest(out)["model_paths"] == {}


def test_a_model_of_the_other_blood_is_refused_where_the_rules_are_known(tmp_path):
    seats = f"learned[model={SHIPPED_BATTLE}]"
    res = _simulate(tmp_path / "run", seats, 10, "--rules", "flow")
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1, res.output
    assert str(SHIPPED_BATTLE) in res.stderr and "blood flow" in res.stderr and "seat 0" in res.stderr
    assert not (tmp_path / "run").exists()   # refused before any directory is made
    res = invoke("trace", "--rules", "flow", "--seats", seats, "--hand", 0)
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and "blood flow" in res.stderr

    specs = parse_seats(seats)
    seat_functions(specs)   # no rules: nothing to check against
    seat_functions(specs, preset("chengdu"))   # a blood battle preset plays a battle model
    with pytest.raises(StrategyError, match="trained for 'battle' .blood battle.; this table plays blood flow"):
        seat_functions(specs, preset("flow"))


@pytest.mark.parametrize("change, says", [({"feature_version": 99}, "features of version 99"),
                                          ({"n_features": N_FEATURES + 8}, f"reads {N_FEATURES + 8} features")])
def test_a_model_of_other_features_is_one_line(model, tmp_path, change, says):
    """A file whose trees read other features than learned computes (another version, or more or
    fewer of them) is refused when the seat is parsed, not played on the wrong row."""
    with np.load(model, allow_pickle=False) as z:
        header = json.loads(z["header"].tobytes().decode())
        arrays = {k: z[k] for k in M.ARRAYS}
    M.save(model, dict(header, **change), arrays)
    with pytest.raises(StrategyError, match=says):
        parse_seats(f"learned[model={model}]")
    res = _simulate(tmp_path / "run", f"learned[model={model}]", 10)
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1 and says in res.stderr


def test_a_dataset_refuses_to_extend_after_a_model_it_plays_changed(model, tmp_path):
    """A dataset records the model files its seats play (a learned seat's, and a search's whose
    rollout policy is learned: the shipped one of the rules' blood); extending it after one changed
    is refused in one line naming the file, and its rows are left as they were."""
    from strategies.registry import model_file_records

    assert model_file_records(parse_seats("search[policy=learned],expert,expert,expert"), preset("battle")) == \
        {str(SHIPPED_BATTLE.resolve()): M.file_digest(SHIPPED_BATTLE)}
    assert model_file_records(parse_seats("search,expert,expert,expert"), preset("battle")) == {}
    out = tmp_path / "ds"
    seats = f"learned[model={model}],expert,expert,expert"
    args = ("dataset", "-q", "--seats", seats, "--record", "0", "--chunk-hands", 10, "--out", out)
    assert invoke(*args, "--hands", 20).exit_code == 0
    assert json.loads((out / "dataset.json").read_text())["model_files"] == {str(model): M.file_digest(model)}
    assert invoke(*args, "--hands", 30).exit_code == 0   # unchanged: it extends
    _rewrite(model)
    before = _files(out)
    res = invoke(*args, "--hands", 40)
    assert res.exit_code != 0 and len(res.stderr.strip().splitlines()) == 1, res.output
    assert f"model file {model} changed since the run" in res.stderr and "cannot be resumed" in res.stderr
    assert _files(out) == before
