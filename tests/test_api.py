"""The package's public API: the functions at the top stay functions whatever is imported, the
modules user code imported before the layers were folders still import, and re-exports are lazy."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import simcore

PUBLIC = ("simulate", "replay", "analyze", "load", "sql")


def test_no_submodule_shares_a_name_with_a_public_function():
    """Importing a submodule binds its name on its package: one named like a function of the API
    would replace that function (``simcore.analyze`` was once a module, and worked once)."""
    names = {m.name.rsplit(".", 1)[-1] for m in pkgutil.walk_packages(simcore.__path__, "simcore.")}
    assert not names & set(PUBLIC), sorted(names & set(PUBLIC))


def test_analyze_works_every_time_it_is_called():
    import simcore.cli  # noqa: F401  (every CLI path imports the reviewer)
    import simcore.inspection.review  # noqa: F401

    for _ in range(2):
        df = simcore.analyze(hand=3, seat=0, seed=7, decision=0, rollouts=4, seats="greedy")
        assert callable(simcore.analyze) and len(df) > 0


def test_load_and_sql_are_the_run_layers_functions():
    from simcore.runs import analysis

    assert simcore.load is analysis.load and simcore.sql is analysis.sql
    assert set(PUBLIC) <= set(simcore.__all__) and set(PUBLIC) <= set(dir(simcore))


def test_moved_modules_import_by_their_old_names_as_the_same_objects():
    for old, new in simcore.MOVED.items():
        a, b = importlib.import_module(old), importlib.import_module(new)
        assert a is b and a.__name__ == new and a.__spec__.name == new
    from simcore import analysis, hand, view  # noqa: F401  (the README's forms)
    from simcore.view import V_HAND  # noqa: F401  (a user strategy's)

    assert hand.shanten("123m456p789s1155m", "s") == 3


def test_importing_the_package_imports_no_layer():
    """Every worker process imports ``simcore``: the API's imports wait until they are used."""
    code = ("import sys, simcore; print(sorted(m for m in sys.modules if m.startswith('simcore.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["simcore.numba_cache", "simcore.version"]
