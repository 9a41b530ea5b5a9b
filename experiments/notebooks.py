"""Execute the notebooks (jupytext percent-format ``notebooks/*.py``) into reports.

    python -m experiments.notebooks --runs runs/notebooks --out reports [--make-runs] [NAME ...]

Each notebook reads its experiment directory under ``$SICHUAN_RUNS`` (``--runs``); with
``--make-runs`` the shipped experiments are first run there at :data:`SMALL` sizes (what
``make notebooks`` does). Every notebook is executed with nbclient in a fresh kernel and
written to ``OUT/NAME.ipynb`` (executed, with its plots) and ``OUT/NAME.html``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from pathlib import Path

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
ENV = "SICHUAN_RUNS"
# `make notebooks`: small but not silly (about a minute of engine time on 2 cores)
SMALL = {"exchange": 20_000, "exchange-efficient": 20_000, "exchange-learned": 20_000, "void": 20_000,
         "void-efficient": 20_000, "void-learned": 20_000,
         "flower-pigs": 40_000, "battle-vs-flow": 40_000, "rule-sets": 20_000}
SMALL_SEED = 0


EXPERIMENT_ENV = "SICHUAN_EXPERIMENT"
# A notebook that reads one of several experiments, and the reports made of it (report: experiment).
SHARED = {"policies": {"exchange": "exchange", "void": "void"}}


def notebook_paths(notebook_dir: Path = NOTEBOOK_DIR) -> list[Path]:
    return sorted(p for p in Path(notebook_dir).glob("*.py") if not p.name.startswith("_"))


def reports(notebook_dir: Path = NOTEBOOK_DIR) -> list[tuple[str, Path, str | None]]:
    """(report name, notebook, the experiment it reads or None) for every report ``make notebooks``
    writes: a notebook of its own per question, the shared ones once per experiment they read."""
    out = []
    for path in notebook_paths(notebook_dir):
        for name, experiment in SHARED.get(path.stem, {path.stem: None}).items():
            out.append((name, path, experiment))
    return out


class NotebookError(RuntimeError):
    pass


def execute(path: Path, runs: Path, timeout: int = 600, experiment: str | None = None):
    """Run one notebook in a fresh kernel with ``$SICHUAN_RUNS`` = ``runs`` (and
    ``$SICHUAN_EXPERIMENT`` = ``experiment`` for a shared notebook); returns the executed notebook
    (nbformat). Raises NotebookError with the failing cell's error."""
    import tempfile

    import jupytext
    from jupyter_client import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    saved = {k: os.environ.get(k) for k in (ENV, EXPERIMENT_ENV)}
    os.environ[ENV] = str(Path(runs).resolve())
    if experiment is not None:
        os.environ[EXPERIMENT_ENV] = experiment
    ipc = tempfile.mkdtemp(prefix="sichuan-kernel-")
    try:
        # the kernel talks over local sockets (IPC) in a private directory, not TCP
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(ipc) / "kernel"))
        client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(Path(path).parent)}})
        try:
            client.execute()
        except CellExecutionError as exc:
            lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln) for ln in str(exc).strip().splitlines() if ln.strip()]
            raise NotebookError(f"{path.name}: {lines[-1] if lines else exc}") from None
    finally:
        shutil.rmtree(ipc, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb


def images(nb) -> int:
    """How many PNG images the executed notebook's outputs hold."""
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}))


def errors(nb) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def write(nb, out_dir: Path, name: str) -> tuple[Path, Path]:
    import nbformat
    from nbconvert import HTMLExporter

    out_dir.mkdir(parents=True, exist_ok=True)
    ipynb = out_dir / f"{name}.ipynb"
    nbformat.write(nb, ipynb)
    html, _ = HTMLExporter().from_notebook_node(nb)
    page = out_dir / f"{name}.html"
    page.write_text(html)
    return ipynb, page


def make_runs(runs: Path, sizes: dict = SMALL, seed: int = SMALL_SEED, workers=None, log=None) -> None:
    import experiments

    for name, hands in sizes.items():
        experiments.run(name, runs / name, hands=hands, seed=seed, workers=workers, log=log)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.notebooks", description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="reports to make (exchange, void, or a notebook's file stem); default all")
    ap.add_argument("--runs", default="runs/notebooks", help=f"experiment directories (sets ${ENV})")
    ap.add_argument("--out", default="reports", help="where the executed .ipynb and .html go")
    ap.add_argument("--make-runs", action="store_true", help="first run the shipped experiments at small sizes")
    ap.add_argument("--notebooks", default=str(NOTEBOOK_DIR))
    args = ap.parse_args(argv)
    runs = Path(args.runs)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.make_runs:
        from experiments.execute import ExperimentError

        try:
            make_runs(runs, log=log)
        except ExperimentError as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 2
    todo = [r for r in reports(Path(args.notebooks)) if not args.names or r[0] in args.names]
    failed = 0
    for name, p, experiment in todo:
        t0 = time.perf_counter()
        try:
            nb = execute(p, runs, experiment=experiment)
        except NotebookError as exc:
            print(f"FAILED {exc}", file=sys.stderr)
            failed += 1
            continue
        ipynb, page = write(nb, Path(args.out), name)
        print(f"{name} ({p.name}): {images(nb)} plots, {time.perf_counter() - t0:.1f} s -> {page} and {ipynb}",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
