"""The tree is the architecture (ARCHITECTURE.md: Layers): every import of the project's code,
at module level or inside a function, goes down the layer order by folder (the tools,
``benchmarks/`` and ``scripts/``, on top: nothing below imports them), and no chain of imports
anywhere in the tree, tests included, comes back to where it started."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simcore", "strategies", "experiments", "benchmarks", "scripts")   # the layered folders
# every folder of Python in the tree: the layers, and what checks or reads them from outside
TREE = PACKAGES + ("tests", "notebooks", "examples")

# Layer of a module by the folder it is in, bottom to top. ``simcore.numba_cache`` and
# ``simcore.version`` import nothing of ours and are the package's set-up: any layer may use them.
LAYERS = {"simcore.contract": 0, "simcore.engine": 1, "strategies": 2, "simcore.runs": 3, "simcore.inspection": 4,
          "simcore.env": 4, "simcore": 5, "experiments": 6, "benchmarks": 7, "scripts": 7}
ANYWHERE = {"simcore.numba_cache", "simcore.version"}
SEAM = ("strategies.search", "simcore.engine")  # the one strategy that plays the engine (ARCHITECTURE.md: Search)


def project_modules(root: Path = ROOT, folders=PACKAGES) -> dict[str, Path]:
    """{dotted name: file} of every module and package in ``folders``."""
    out = {}
    for package in folders:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that ``name`` imports anywhere in its file. ``from P import x`` is an
    import of the module ``P.x`` where there is one, else of ``P``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[:len(package) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
    return {m for m in out if m in modules and m != name}


def import_graph(root: Path = ROOT, folders=PACKAGES) -> dict[str, set[str]]:
    modules = project_modules(root, folders)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(module: str) -> int:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return LAYERS[best]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def violations(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for module, deps in sorted(graph.items()):
        mine = layer_of(module)
        for dep in sorted(deps):
            if dep in ANYWHERE:
                continue
            theirs = layer_of(dep)
            if theirs > mine:
                bad.append(f"{module} (layer {mine}) imports {dep} (layer {theirs}), a layer above it")
            elif mine == LAYERS["strategies"] and theirs == LAYERS["simcore.engine"] and \
                    (module, dep.rsplit(".", 1)[0] if dep.count(".") > 1 else dep) != SEAM:
                bad.append(f"{module} imports the engine ({dep}): only {SEAM[0]} may (the search seam)")
    return bad


def test_no_import_cycle_anywhere():
    found = cycles(import_graph(folders=TREE))
    assert not found, "import cycles (counting imports inside functions): " + "; ".join(" -> ".join(c) for c in found)


def test_imports_go_down_the_layers():
    bad = violations(import_graph())
    assert not bad, "\n".join(bad)


def test_the_tree_is_every_folder_of_python():
    """The cycle check reads every top-level folder that holds Python (hidden and build output aside)."""
    folders = [d for d in ROOT.iterdir() if d.is_dir() and not d.name.startswith((".", "_"))
               and d.name not in ("build", "dist", "runs")]
    assert {d.name for d in folders if next(d.rglob("*.py"), None)} <= set(TREE)


def test_every_module_sits_in_a_layer_folder():
    """At the top of ``simcore`` only the public API, the CLI, the version and the cache set-up."""
    top = {p.stem for p in (ROOT / "simcore").glob("*.py")}
    assert top <= {"__init__", "cli", "version", "numba_cache", "env"}, sorted(top)


def test_the_checks_catch_a_cycle_and_an_upward_import(tmp_path):
    """The graph is built from function-level imports too, tools and tests included, and both
    checks fire."""
    for rel, text in {"simcore/__init__.py": "", "simcore/contract/__init__.py": "",
                      "simcore/contract/a.py": "def f():\n    from simcore.runs import b\n",
                      "simcore/runs/__init__.py": "", "simcore/runs/b.py": "from simcore.contract import a\n",
                      "strategies/__init__.py": "", "strategies/x.py": "from simcore.engine.kernel import y\n",
                      "simcore/engine/__init__.py": "", "simcore/engine/kernel.py": "",
                      "experiments/__init__.py": "", "experiments/c.py": "def f():\n    import scripts.s\n",
                      "scripts/__init__.py": "", "scripts/s.py": "", "benchmarks/__init__.py": "",
                      "benchmarks/bench.py": "def f():\n    from benchmarks.env import g\n",
                      "benchmarks/env.py": "def g():\n    from benchmarks import bench\n",
                      "tests/__init__.py": "", "tests/t.py": "from tests import u\nimport scripts.s\n",
                      "tests/u.py": "from tests.t import v\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["simcore.contract.a", "simcore.runs.b"], ["benchmarks.bench", "benchmarks.env"]]
    assert ["tests.t", "tests.u"] in cycles(import_graph(tmp_path, TREE))
    bad = violations(graph)
    assert any("simcore.contract.a (layer 0) imports simcore.runs.b" in b for b in bad)
    assert any("strategies.x imports the engine" in b for b in bad)
    assert any("experiments.c (layer 6) imports scripts.s (layer 7)" in b for b in bad)
