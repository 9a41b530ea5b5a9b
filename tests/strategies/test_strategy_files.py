"""A user strategy file is hashed with the files it depends on (those of its folder it imports,
followed through their imports), not with every file beside it: a new file it does not import
changes nothing; a changed dependency refuses resume and extend and a replay, naming the file;
``--allow-changed-strategy`` replays anyway with one warning line."""

from __future__ import annotations

import json
import textwrap

import pytest

from simcore.runs import shards as rio
from strategies.registry import legacy_file_hash, parse_seat, user_dependencies, user_file_hash
from tests.support.cli import invoke

HELPER = textwrap.dedent('''
    import numba as nb
    from strategies.play import greedy

    @nb.njit(cache=True)
    def pick(q, view, tab):
        return greedy(q, view, tab)
''')
STRAT = textwrap.dedent('''
    import numba as nb
    from strategies.api import STRATEGY_SIG
    from helper import pick

    @nb.njit(STRATEGY_SIG, cache=True)
    def play(q, view, tab):
        return pick(q, view, tab)
''')


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    d = tmp_path / f"mystrats_{tmp_path.name}"   # a module name of its own per test (loaded once per process)
    d.mkdir()
    (d / "helper.py").write_text(HELPER)
    (d / "strat.py").write_text(STRAT)
    monkeypatch.setattr("strategies.registry._USER_CACHE", {})
    return d


def _simulate(folder, out, hands=200):
    return invoke("simulate", "-q", "--hands", hands, "--chunk-hands", 100, "--seats",
                  f"{folder}/strat.py:play,greedy,greedy,greedy", "--out", out, "--workers", 1)


def test_a_strategy_depends_on_what_it_imports_from_its_folder(folder):
    (folder / "plain.py").write_text("X = 1\n")
    assert user_dependencies(folder / "strat.py") == [folder / "helper.py", folder / "strat.py"]
    before = user_file_hash(folder / "strat.py")
    (folder / "plain.py").write_text("X = 2\n")
    assert user_file_hash(folder / "strat.py") == before
    (folder / "helper.py").write_text(HELPER + "\n# edited\n")
    assert user_file_hash(folder / "strat.py") != before


def test_a_strategy_that_imports_by_name_depends_on_its_whole_folder(folder):
    (folder / "plain.py").write_text("X = 1\n")
    (folder / "dyn.py").write_text("import importlib\nmod = importlib.import_module('helper')\n")
    assert user_dependencies(folder / "dyn.py") == sorted(folder.glob("*.py"))


def test_a_new_file_beside_the_strategy_locks_nothing(folder, tmp_path):
    out = tmp_path / "run"
    assert _simulate(folder, out).exit_code == 0
    manifest = rio.read_manifest(out)
    deps = manifest["strategy_deps"][str((folder / "strat.py").resolve())]
    assert sorted(deps) == [str(folder / "helper.py"), str(folder / "strat.py")]
    (folder / "plain.py").write_text("X = 1\n")
    res = invoke("trace", out, "--hand", 5, "--format", "text")
    assert res.exit_code == 0, res.output
    assert _simulate(folder, out, hands=300).exit_code == 0   # extends


def test_a_changed_import_refuses_resume_and_replay_naming_it(folder, tmp_path):
    out = tmp_path / "run"
    assert _simulate(folder, out).exit_code == 0
    (folder / "helper.py").write_text(HELPER + "\n# edited\n")
    res = _simulate(folder, out, hands=300)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "helper.py" in res.stderr, res.stderr
    res = invoke("trace", out, "--hand", 5, "--format", "text")
    assert res.exit_code == 2 and "helper.py" in res.stderr and "--allow-changed-strategy" in res.stderr
    res = invoke("trace", out, "--hand", 5, "--format", "text", "--allow-changed-strategy")
    assert res.exit_code == 0
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "helper.py" in warnings[0] and "may differ" in warnings[0]


def test_a_run_written_before_records_one_hash_of_the_folder_as_it_did(folder, tmp_path):
    out = tmp_path / "run"
    assert _simulate(folder, out).exit_code == 0
    path = out / rio.MANIFEST
    manifest = json.loads(path.read_text())
    strat = str((folder / "strat.py").resolve())
    del manifest["strategy_deps"]
    manifest["strategy_files"] = {strat: legacy_file_hash(folder / "strat.py")}
    path.write_text(json.dumps(manifest))
    assert invoke("trace", out, "--hand", 5, "--format", "text").exit_code == 0
    (folder / "plain.py").write_text("X = 1\n")   # such a run counted every file beside it
    res = invoke("trace", out, "--hand", 5, "--format", "text")
    assert res.exit_code == 2 and "or a .py file beside it changed" in res.stderr


def test_a_resume_compares_what_the_seats_play_not_how_they_are_written(folder, tmp_path, monkeypatch):
    """The same file by a relative path, with ./, by its absolute path or from another
    directory is the same seat: the run resumes and keeps writing the text it recorded."""
    from simcore.runs import analysis

    monkeypatch.chdir(folder.parent)
    out = tmp_path / "run"
    rel = f"{folder.name}/strat.py:play"

    def simulate(seat0, hands, workers=1):
        return invoke("simulate", "-q", "--hands", hands, "--chunk-hands", 100, "--seats",
                      f"{seat0},greedy,greedy,greedy", "--out", out, "--workers", workers)

    assert simulate(rel, 200).exit_code == 0
    assert simulate(f"./{rel}", 300).exit_code == 0
    assert simulate(f"{folder}/strat.py:play", 400).exit_code == 0
    elsewhere = folder.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert simulate(f"../{rel}", 500).exit_code == 0                           # from another directory
    res = simulate(f"../{rel}", 700, workers=2)                                # worker processes too
    assert res.exit_code == 0, res.stderr
    names = set(analysis.load(out, tables=["seats"]).seats["strategy"].astype(str))
    own = parse_seat("expert").canonical.split("+", 1)[1]   # a user play's omitted policies are expert's
    assert names == {f"{rel}+{own}", "greedy+exchange=shortest+void=fewest"}
    assert rio.read_manifest(out)["config"]["seats"][0] == f"{rel}+{own}"


def test_a_resume_with_other_seats_names_the_seat_the_part_and_both_values(folder, tmp_path):
    out = tmp_path / "run"
    assert _simulate(folder, out).exit_code == 0
    res = invoke("simulate", "-q", "--hands", 300, "--chunk-hands", 100, "--seats",
                 f"{folder}/strat.py:play+void=weakest,greedy,greedy,greedy", "--out", out, "--workers", 1)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert "seat 0's void is void=expert[" in res.stderr and "there, void=weakest now" in res.stderr, res.stderr
