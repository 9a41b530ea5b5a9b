"""Small runs of every shipped experiment, made once per test session (shared by
test_experiments.py and test_notebooks.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

# hands per shipped experiment: tiny, but every cell and arm plays (cells sized in the spec scale)
SMALL = {"exchange": 300, "exchange-efficient": 300, "void": 300, "void-efficient": 300, "flower-pigs": 800,
         "battle-vs-flow": 400, "rule-sets": 400}
SEED = 5

_made: dict[str, Path] = {}


def run_cli(*args, expect=0):
    from simcore.cli import main

    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == expect, (res.output, res.exception)
    return res


def small_experiments(tmp_path_factory) -> Path:
    """A directory holding every shipped experiment (exchange/, void/, ..., rule-sets/) run at SMALL sizes."""
    if "root" not in _made:
        root = tmp_path_factory.mktemp("experiments")
        for name, hands in SMALL.items():
            run_cli("experiment", "run", name, "--hands", hands, "--seed", SEED, "--out", root / name, "-q", "--workers", 1)
        _made["root"] = root
    return _made["root"]


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
