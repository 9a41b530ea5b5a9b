"""numba's cache is keyed by the jitted sources, so an edit to one module never leaves stale
inlined code cached in another."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numba

import simcore  # noqa: F401  (configures the cache)
from simcore.numba_cache import ROOT, jitted_sources, source_key
import pytest


def _copy_tree(tmp_path):
    for package in ("simcore", "strategies"):
        for f in (ROOT / package).rglob("*.py"):
            dest = tmp_path / f.relative_to(ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, dest)
    return tmp_path


def test_the_cache_directory_is_named_by_the_jitted_sources():
    assert numba.config.CACHE_DIR.endswith(source_key(jitted_sources()))
    names = {p.relative_to(ROOT).as_posix() for p in jitted_sources()}
    assert {"simcore/engine/kernel.py", "simcore/engine/sample.py", "simcore/engine/state.py", "simcore/contract/evaluate.py",
            "simcore/contract/rules.py", "simcore/contract/records.py", "simcore/contract/tiles.py",
            "simcore/contract/view.py", "simcore/runs/tally.py", "strategies/core.py", "strategies/play.py"} <= names
    assert "simcore/cli.py" not in names


def test_an_edit_to_jitted_code_changes_the_key_and_other_edits_do_not(tmp_path):
    root = _copy_tree(tmp_path)
    key = source_key(jitted_sources(root), root)
    (root / "simcore" / "cli.py").write_text((root / "simcore" / "cli.py").read_text() + "\n# note\n")
    assert source_key(jitted_sources(root), root) == key
    evaluate = root / "simcore" / "contract" / "evaluate.py"
    evaluate.write_text(evaluate.read_text().replace("return s\n", "return s + 0\n", 1))
    assert source_key(jitted_sources(root), root) != key


def test_the_key_is_the_files_paths_in_the_repo_not_their_bare_names(tmp_path):
    """A jitted module moved to another subpackage (the same name, the same text) is other code
    to numba, whose cache index is per file: the key must change."""
    root = _copy_tree(tmp_path)
    key = source_key(jitted_sources(root), root)
    (root / "simcore" / "runs" / "tally.py").rename(root / "simcore" / "inspection" / "tally.py")
    assert source_key(jitted_sources(root), root) != key
    assert "simcore/inspection/tally.py" in {p.relative_to(root).as_posix() for p in jitted_sources(root)}


def test_a_user_cache_directory_is_respected(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", "import simcore, numba; print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == os.path.join(str(tmp_path), f"sichuan-{source_key(jitted_sources())}")


def test_an_edit_to_the_records_module_starts_a_fresh_cache(tmp_path):
    """The engine inlines the output layout (records.py holds no jitted code of its own)."""
    root = _copy_tree(tmp_path)
    key = source_key(jitted_sources(root), root)
    records = root / "simcore" / "contract" / "records.py"
    records.write_text(records.read_text().replace("N_PAY_FIELDS = 4", "N_PAY_FIELDS = 5", 1))
    assert source_key(jitted_sources(root), root) != key


def _cached(cache_dir, stem: str) -> bool:
    return any(cache_dir.rglob(f"{stem}-*.nbi"))


@pytest.mark.slow
def test_the_warm_up_child_compiles_strategies_and_leaves_the_engine_alone(tmp_path):
    """A first run compiles the engine in the command's process while ``simcore.runs.warmup``'s child
    compiles the strategies: the child must not compile the engine too (it imports it through
    the search player), and reading a seat spec must compile nothing (the parent reads it
    before the child starts)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "SICHUAN_CACHE": str(tmp_path / "tables")}
    read = ("from strategies.registry import parse_seats\n"
            "from simcore.runs.warmup import engine_cached\n"
            "[s.canonical for s in parse_seats('expert,random,random,random')]\n"
            "print(engine_cached())")
    out = subprocess.run([sys.executable, "-c", read], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert not any(tmp_path.rglob("*.nbi")), "reading a seat spec compiled a strategy"
    subprocess.run([sys.executable, "-m", "simcore.runs.warmup", "random+exchange=shortest+void=fewest"], env=env,
                   check=True)
    assert _cached(tmp_path, "play.random_play") and _cached(tmp_path, "exchange.shortest")
    assert not _cached(tmp_path, "kernel.play_batch") and not _cached(tmp_path, "hand.play_on")
    assert any((tmp_path / "tables").glob("suit-tables-*.npy"))


def test_the_engine_is_compiled_for_its_signature_only():
    """``run_batch`` calls the kernel ``batch_kernel`` compiled: no call compiles another."""
    from simcore.engine import kernel as E
    from simcore.runs.batch import run_batch
    from simcore.contract.rules import preset
    from simcore.runs.warmup import engine_cached, warm
    from strategies.registry import parse_seats, seat_functions

    run_batch(preset("battle"), seat_functions(parse_seats("greedy")), 1, 0, 8)
    assert E.play_batch.signatures == [E.SIG_BATCH.args]
    assert engine_cached() and not warm(["greedy"])
