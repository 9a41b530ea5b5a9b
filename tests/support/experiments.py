"""Small runs of every shipped experiment (the session fixture ``small_experiments`` in
conftest.py) and a tolerant comparison of reports."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

# hands per shipped experiment: tiny, but every cell and arm plays (cells sized in the spec scale)
SMALL = {"exchange": 300, "exchange-efficient": 300, "exchange-learned": 300, "void": 300, "void-efficient": 300,
         "void-learned": 300, "flower-pigs": 800,
         "battle-vs-flow": 400, "rule-sets": 400}
SEED = 5



def make_small_experiments(root: Path) -> Path:
    """``root`` holding every shipped experiment (exchange/, void/, ..., rule-sets/) run at SMALL sizes."""
    for name, hands in SMALL.items():
        run_cli("experiment", "run", name, "--hands", hands, "--seed", SEED, "--out", root / name, "-q", "--workers", 1)
    return root


def assert_refused(tmp_path, name: str, text: str, needle: str) -> str:
    """``sichuan experiment run`` of the spec ``text`` (written as ``name.toml``) exits 2 with one
    line ``Error: ...`` naming the spec file and holding ``needle``, and writes nothing."""
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    out = run_cli("experiment", "run", path, "--out", tmp_path / "out", expect=2).output
    assert out.startswith("Error: ") and out.count("\n") == 1, out
    assert needle in out and str(path) in out, out
    assert not (tmp_path / "out").exists()
    return out


def assert_close(got, want, where=""):
    """Equal, floats to 1e-9 relative; dicts and lists item by item (``where`` names the item)."""
    if isinstance(want, dict):
        assert set(got) == set(want), f"{where}: {sorted(set(got) ^ set(want))}"
        for k in want:
            assert_close(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(want, bool):
        assert got is not None and abs(got - want) <= 1e-9 * max(abs(want), 1e-12), f"{where}: {got} != {want}"
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"
