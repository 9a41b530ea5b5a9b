"""The README documents exactly the columns the runs write and what its example command prints, and
starts with its two commands; what the code and the docs cite exists: markdown files and their
headings, the rule table's functions, the modules of the layer tables, and the files and modules
named in docstrings and the Makefile's comments."""

from pathlib import Path

from scripts.readme import render

ROOT = Path(__file__).resolve().parents[1]


def test_readme_column_reference_is_current():
    text = (ROOT / "README.md").read_text()
    assert render(text, only=["columns"]) == text, "run `python -m scripts.readme` to regenerate the README's columns"


def test_readme_analyze_example_is_what_the_command_prints():
    """The figures of the README's `sichuan analyze` example come from the command, not from memory."""
    text = (ROOT / "README.md").read_text()
    assert render(text, only=["analyze"]) == text, "run `python -m scripts.readme` to regenerate the README's example"


def test_readme_starts_with_the_two_setup_commands():
    head = "\n".join((ROOT / "README.md").read_text().splitlines()[:10])
    assert "make run" in head and "make test" in head


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


# -- citations (the rule: the opening of docs/ARCHITECTURE.md) -----------------------------------

import ast  # noqa: E402
import importlib  # noqa: E402
import importlib.util  # noqa: E402
import re  # noqa: E402

CODE_DIRS = ("simcore", "strategies", "experiments", "tests", "notebooks")
MD_FILES = sorted(p for p in ROOT.rglob("*.md") if ".venv" not in p.parts and "runs" not in p.parts
                  and ".pytest_cache" not in p.parts)
MD_BY_NAME = {}
for _p in MD_FILES:
    MD_BY_NAME.setdefault(_p.name, []).append(_p)
MENTION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)\b")
CITATION = re.compile(r"\b([A-Z][A-Za-z_]*\.md): +([^\n]+)")
# a mention of RULES.md or ARCHITECTURE.md is a citation (``NAME.md: <heading>``) or names the file
# alone: followed by punctuation or one of these words, never by a section's name in other words
BARE_OK = (r"(?:[),.;:\]`*\"']|\s*$|\s+(?:is|are|and|or|alone|says|decides|itself|beside|names|with|in|to|as|"
           r"writes|walks|that)\b)")
MALFORMED = re.compile(r"\b(RULES|ARCHITECTURE)\.md(?!" + BARE_OK + r")")


def _sources():
    """Code and docs that may cite (this file, which states the rule, aside)."""
    for d in CODE_DIRS:
        for p in sorted((ROOT / d).rglob("*.py")):
            if p != Path(__file__).resolve():
                yield p
    yield from (p for p in MD_FILES if p.name != "BENCHMARKS.md")


def _titles(md: Path) -> list[str]:
    """The ## and ### titles of a markdown file, each also by its short form (up to " (" or
    " —"), longest first."""
    out = set()
    for line in md.read_text().splitlines():
        m = re.match(r"#{2,3} (.+?)\s*$", line)
        if m:
            title = m.group(1)
            out.add(title)
            out.add(re.split(r" \(| —", title)[0])
    return sorted(out, key=len, reverse=True)


def _cited_title(text: str, titles: list[str]) -> str | None:
    for t in titles:
        if text.startswith(t) and (len(text) == len(t) or not text[len(t)].isalnum()):
            return t
    return None


def _lines():
    """(path, line number, the line, the line joined to the next two): a citation wrapped over
    lines reads as one (comment markers dropped); only matches that start on the line count."""
    for path in _sources():
        lines = path.read_text().splitlines()
        for no, line in enumerate(lines, 1):
            tail = " ".join(x.strip().lstrip("#").strip() for x in lines[no:no + 2])
            yield path, no, line, (line + " " + tail).rstrip()


def _hits(regex, line, joined):
    return [m for m in regex.finditer(joined) if m.start() < len(line)]


def test_every_cited_markdown_file_exists():
    bad = []
    for path, no, line, joined in _lines():
        for m in _hits(MENTION, line, line):
            name = m.group(1)
            if "/" in name:
                ok = (ROOT / name).is_file() or (path.parent / name).is_file()
            else:
                ok = name in MD_BY_NAME
            if not ok:
                bad.append(f"{path.relative_to(ROOT)}:{no}: {name}")
    assert not bad, "cited files that do not exist:\n" + "\n".join(bad)


def test_every_citation_names_a_heading_of_its_file():
    bad = []
    for path, no, line, joined in _lines():
        where = f"{path.relative_to(ROOT)}:{no}"
        for m in _hits(CITATION, line, joined):
            name, rest = m.groups()
            files = MD_BY_NAME.get(name)
            if not files or rest.startswith("<"):
                continue  # a missing file is the test above's; <heading> is the rule's own placeholder
            md = next((f for f in files if f.parent.name == "docs"), files[0])
            if _cited_title(rest.strip("`\"'"), _titles(md)) is None:
                bad.append(f"{where}: {name}: {rest[:60]}")
        for m in _hits(MALFORMED, line, joined):
            bad.append(f"{where}: {joined[m.start():m.start() + 40]!r} names no heading "
                       f"(write {m.group(1)}.md: <heading>)")
    assert not bad, "citations that name no heading:\n" + "\n".join(bad)


def _rule_table() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## Where each rule lives", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and not set(cells[0]) <= set("-") and not cells[0].startswith("rule ("):
            rows.append((cells[0], cells[1]))
    return rows


def test_the_rule_table_covers_every_section_of_the_rules():
    titles = _titles(ROOT / "docs" / "RULES.md")
    cited = set()
    for rule, _ in _rule_table():
        t = _cited_title(rule, titles)
        assert t is not None, f"rule table row {rule!r} names no RULES.md heading"
        cited.add(t)
    full = [m.group(1) for m in re.finditer(r"^#{2,3} (.+?)\s*$", (ROOT / "docs" / "RULES.md").read_text(), re.M)]
    missing = [t for t in full if t not in cited and re.split(r" \(| —", t)[0] not in cited]
    assert not missing, f"RULES.md sections with no row in ARCHITECTURE.md's rule table: {missing}"


MODULES = {**{m: f"simcore.engine.{m}" for m in ("state", "table", "checks", "legal", "settle", "shadow", "ask", "luck_terms",
                                               "opening", "turns", "hand", "kernel")},
           "evaluate": "simcore.contract.evaluate", "rules": "simcore.contract.rules",
           "tiles": "simcore.contract.tiles"}


def test_every_function_in_the_rule_table_exists():
    bad = []
    for rule, funcs in _rule_table():
        for name in re.findall(r"`([a-z_]+(?:\.[A-Za-z_]+)+)`", funcs):
            mod, *attrs = name.split(".")
            obj = importlib.import_module(MODULES[mod]) if mod in MODULES else None
            for a in attrs:
                obj = getattr(obj, a, None)
            if obj is None:
                bad.append(f"{rule}: {name}")
    assert not bad, "functions named in the rule table that do not exist: " + ", ".join(bad)


# -- the module lists match the tree -----------------------------------------------------------

def _tree_modules() -> dict[str, list[str]]:
    """{folder: module stems} of the package folders (``__init__`` of a subpackage aside)."""
    out = {}
    for folder in ("simcore", "simcore/contract", "simcore/engine", "simcore/runs", "simcore/inspection",
                   "simcore/env", "strategies", "experiments"):
        stems = sorted(p.stem for p in (ROOT / folder).glob("*.py"))
        out[folder] = [s for s in stems if s != "__init__" or folder == "simcore"]
    return out


def _table_row(text: str, folder: str) -> str:
    """The row of a markdown table with a cell that starts by naming ``folder/``."""
    rows = [line for line in text.splitlines() if line.startswith("|")
            and any(cell.strip().startswith(f"`{folder}/`") for cell in line.split("|"))]
    assert len(rows) == 1, f"no single row for {folder}/"
    return rows[0]


def test_every_module_is_in_the_architecture_layers_and_the_readme_layout():
    arch = (ROOT / "docs" / "ARCHITECTURE.md").read_text().split("## Layers", 1)[1].split("\n## ", 1)[0]
    readme = (ROOT / "README.md").read_text().split("Layout:", 1)[1]
    missing = []
    for folder, stems in _tree_modules().items():
        arch_row, readme_row = _table_row(arch, folder), _table_row(readme, folder)
        for stem in stems:
            if f"`{stem}.py`" not in arch_row:
                missing.append(f"ARCHITECTURE.md: Layers lacks {folder}/{stem}.py")
            if f"`{stem}`" not in readme_row:
                missing.append(f"README.md's layout lacks {folder}/{stem}")
    assert not missing, "\n".join(missing)


def test_the_agents_page_lists_every_observation_slot():
    from simcore.env.spaces import describe_observation

    assert describe_observation() in (ROOT / "docs" / "AGENTS.md").read_text()


# -- files and modules named in docstrings and the Makefile's comments exist ---------------------

DOC_DIRS = ("simcore", "strategies", "experiments", "benchmarks", "scripts", "tests")
# top-level folders that commands write (``make run``'s runs/demo, ``make notebooks``' reports/):
# a docstring's path under them is an example of output, not a file of the tree
OUTPUT_DIRS = ("runs", "reports")
# a user's own files, as docstrings name them in examples (``--seats path/to/mine.py:bot``)
USER_FILES = ("mine.py", "path.py")
TREE_DIRS = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
                   and p.name not in OUTPUT_DIRS)
PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)+[\w.*-]*)")
BARE_PY = re.compile(r"(?<![\w./-])([\w-]+\.py)\b")
DOTTED = re.compile(r"(?<![\w.])((?:simcore|strategies|experiments|benchmarks|scripts|tests)(?:\.\w+)+)")


def _named_texts():
    """(where, text) of every docstring of DOC_DIRS' modules, classes and functions, and of
    every comment line of the Makefile."""
    for d in DOC_DIRS:
        for p in sorted((ROOT / d).rglob("*.py")):
            for node in ast.walk(ast.parse(p.read_text())):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        yield f"{p.relative_to(ROOT)}:{node.body[0].lineno}", doc
    for no, line in enumerate((ROOT / "Makefile").read_text().splitlines(), 1):
        if line.lstrip().startswith("#"):
            yield f"Makefile:{no}", line


def _path_exists(path: str) -> bool:
    """A path of the tree (a glob pattern matches something); one outside the tree's folders
    (``OUT/run.json``, ``hands/s``, ``path/to/mine.py``) is not the tree's to check."""
    if path.split("/")[0] not in TREE_DIRS:
        return True
    return any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()


def _is_module(name: str) -> bool:
    import simcore

    file = ROOT / name.replace(".", "/")
    return file.with_suffix(".py").is_file() or (file / "__init__.py").is_file() or name in simcore.MOVED


def _resolves(dotted: str) -> bool:
    """A module of the tree, then attributes of it: ``R_`` names the family of ``R_*`` names, a
    class's fields count as its attributes."""
    parts = dotted.split(".")
    i = next(i for i in range(len(parts), 0, -1) if _is_module(".".join(parts[:i])))
    try:
        obj = importlib.import_module(".".join(parts[:i]))
    except ModuleNotFoundError as exc:   # a module of an optional extra (simcore.env.sb3 needs the rl one)
        if exc.name.split(".")[0] in {d.split("/")[0] for d in TREE_DIRS}:
            raise
        src = Path(importlib.util.find_spec(".".join(parts[:i])).origin).read_text()
        defined = {a or b for a, b in re.findall(r"^(?:def|class) (\w+)|^(\w+)\s*[:=]", src, re.M)}
        return all(p in defined for p in parts[i:i + 1])
    for attr in parts[i:]:
        if attr.endswith("_"):
            return any(n.startswith(attr) for n in dir(obj))
        if not hasattr(obj, attr):   # a field without a default is only an annotation of its class
            return attr == parts[-1] and attr in getattr(obj, "__annotations__", {})
        obj = getattr(obj, attr)
    return True


def test_every_file_and_module_named_in_docstrings_and_the_makefile_exists():
    py_names = {p.name for d in TREE_DIRS for p in (ROOT / d).rglob("*.py")}
    bad = []
    for where, text in _named_texts():
        bad += [f"{where}: {m}" for m in {m.rstrip(".") for m in PATH.findall(text)} if not _path_exists(m)]
        bad += [f"{where}: {m}" for m in set(BARE_PY.findall(text)) if m not in py_names and m not in USER_FILES]
        bad += [f"{where}: {m}" for m in set(DOTTED.findall(text)) if not _resolves(m)]
    assert not bad, "files and modules named that do not exist:\n" + "\n".join(sorted(bad))
