"""Nothing outside the engine reaches into it (ARCHITECTURE.md: The engine): code outside
``simcore/engine/`` (the package's other layers, the strategies, the experiments, the benchmarks
and the scripts) uses the names ``simcore.engine`` exports (``__all__``) and the public names of
its surface module ``agents``, never a private name (``_x``) or a raw state offset (``O_*``), and
imports no other engine module. The white-box tests of the engine are exempt (``tests/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import simcore.engine

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("simcore", "strategies", "experiments", "benchmarks", "scripts")
SURFACE_MODULES = {"simcore.engine.agents"}


def _files():
    for top in OUTSIDE:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "simcore/engine/" not in path.relative_to(ROOT).as_posix():
                yield path


def _forbidden(name: str) -> bool:
    return name.startswith("_") or name.startswith("O_")


def reaches_in(source: str) -> list[str]:
    """What a module's source uses of the engine beyond its surface, one line each."""
    exported = set(simcore.engine.__all__)
    bad, aliases = [], {}   # alias -> "package" or a surface module
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            mod = node.module
            for a in node.names:
                full = f"{mod}.{a.name}"
                if mod == "simcore" and a.name == "engine":
                    aliases[a.asname or a.name] = "package"
                elif mod == "simcore.engine":
                    if full in SURFACE_MODULES:
                        aliases[a.asname or a.name] = full
                    elif a.name not in exported:
                        bad.append(f"line {node.lineno}: imports {a.name} from simcore.engine, which does not export it")
                elif mod in SURFACE_MODULES:
                    if _forbidden(a.name):
                        bad.append(f"line {node.lineno}: imports {a.name} from {mod}")
                elif mod.startswith("simcore.engine."):
                    bad.append(f"line {node.lineno}: imports from {mod} (use simcore.engine's surface)")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "simcore.engine":
                    aliases[a.asname or "simcore.engine"] = "package"
                elif a.name in SURFACE_MODULES and a.asname:
                    aliases[a.asname] = a.name
                elif a.name.startswith("simcore.engine."):
                    bad.append(f"line {node.lineno}: imports {a.name} (use simcore.engine's surface)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            kind = aliases[node.value.id]
            if _forbidden(node.attr) or (kind == "package" and node.attr not in exported):
                bad.append(f"line {node.lineno}: {node.value.id}.{node.attr} is not on the engine's surface")
    return bad


def test_nothing_outside_the_engine_reaches_into_it():
    found = []
    for path in _files():
        found += [f"{path.relative_to(ROOT)}: {b}" for b in reaches_in(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_check_catches_what_it_should():
    assert reaches_in("from simcore.engine.kernel import play_batch\n")
    assert reaches_in("from simcore import engine as E\nx = E.O_G\n")
    assert reaches_in("import simcore.engine as E\nE._arena_len(a)\n")
    assert reaches_in("from simcore.engine import agents as AG\nAG._v(1)\n")
    assert reaches_in("from simcore.engine import _tab\n")
    assert reaches_in("from simcore.engine import not_exported_name\n")
    assert not reaches_in("from simcore import engine as E\nE.play_on(S, 0)\nE.hand_index(S)\n")
    assert not reaches_in("from simcore.engine import agents as AG\nAG.step_tables()\n")


def test_the_surface_exports_what_it_names():
    for name in simcore.engine.__all__:
        assert hasattr(simcore.engine, name), name
        assert not _forbidden(name), name
