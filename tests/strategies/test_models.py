"""Model files (``strategies.models``): a tree ensemble exported from scikit-learn predicts in the
kernel what scikit-learn predicts, the file round-trips, and every kind of bad file is one line."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from strategies import models as M


@pytest.fixture(scope="module")
def fitted():
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(3)
    x = rng.normal(size=(3000, 6))
    x[:, 4] = rng.integers(0, 5, size=3000)     # a feature with few values, as counts are
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] * (x[:, 4] > 2) + 0.1 * rng.normal(size=3000)
    est = HistGradientBoostingRegressor(max_iter=42, max_leaf_nodes=15, random_state=0).fit(x, y)  # 42: walked 4 at a time and 2 alone
    return est, x


def _write(tmp_path, est, **over):
    baseline, arrays = M.from_sklearn(est)
    header = {"kind": "gbdt", "n_features": 6, "feature_version": 1, "preset": "battle", "baseline": baseline}
    header.update(over)
    return M.save(tmp_path / "m.npz", header, arrays)


def test_the_kernel_predicts_what_sklearn_predicts(tmp_path, fitted):
    est, x = fitted
    model = M.load(_write(tmp_path, est), "battle", 1)
    ours = np.array([M.predict(model.packed, row) for row in x[:500]])
    assert np.allclose(ours, est.predict(x[:500]), atol=1e-9)
    assert model.n_features == 6 and len(model.digest) == 24


def test_bad_model_files_are_one_line(tmp_path, fitted):
    est, _ = fitted
    path = _write(tmp_path, est)
    with pytest.raises(M.ModelError, match="does not exist"):
        M.load(tmp_path / "nope.npz")
    with pytest.raises(M.ModelError, match="trained for 'battle', not 'flow'"):
        M.load(path, "flow")
    with pytest.raises(M.ModelError, match="features of version 1"):
        M.load(path, "battle", 2)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(path.read_bytes()[:200])
    with pytest.raises(M.ModelError, match="cannot be read"):
        M.load(cut)
    other = tmp_path / "other.npz"
    np.savez(other, header=np.frombuffer(b'{"format": "x"}', np.uint8), feature=[0], threshold=[0.0], left=[1],
             right=[1], value=[0.0], roots=[0])
    with pytest.raises(M.ModelError, match="not a sichuan-model file"):
        M.load(other)
    baseline, arrays = M.from_sklearn(est)
    arrays["feature"] = arrays["feature"].copy()
    arrays["feature"][0] = 9
    with pytest.raises(M.ModelError, match="outside 0..5"):
        M.save(tmp_path / "bad.npz", {"kind": "gbdt", "n_features": 6, "baseline": baseline}, arrays)
    with pytest.raises(M.ModelError) as exc:
        M.load(cut)
    assert "\n" not in str(exc.value)
    assert zipfile.is_zipfile(path)   # readable without the training library: plain npz


def test_check_mode_finds_a_model_written_to(tmp_path, fitted):
    est, _ = fitted
    path = str(_write(tmp_path, est))
    _, models = M.model_set(path)
    assert models[0] is models[1] and M.check_unwritten() is None
    models[0].packed[5] += 1.0
    try:
        assert "was written to" in M.check_unwritten()
    finally:
        models[0].packed[5] -= 1.0
    assert M.check_unwritten() is None


def test_a_model_files_header_prints_from_the_command_line(capsys):
    import json

    assert M.main([str(M.shipped_path("battle"))]) == 0
    head = json.loads(capsys.readouterr().out)
    assert head["preset"] == "battle" and head["format_version"] == M.FORMAT_VERSION and "gain_ci95" in head["metrics"]
    assert M.main(["/no/such.npz"]) == 2 and capsys.readouterr().err.count("\n") == 1
