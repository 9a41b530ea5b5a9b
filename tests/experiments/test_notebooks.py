"""Every notebook executes on small runs of the shipped experiments and its plots render; the
README's findings section is generated from reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


jupytext = pytest.importorskip("jupytext", reason="the notebooks extra is missing: run `make setup`")
pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")

from experiments import findings, load_report  # noqa: E402
from experiments.notebooks import errors, execute, images, notebook_paths, reports, write  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes seconds (see conftest.py)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = notebook_paths()
REPORTS = reports()


@pytest.fixture(scope="module")
def exps(small_experiments):
    return small_experiments


def test_one_report_per_question_plus_overview():
    """The exchange and void questions share one notebook (``policies``), run once for each."""
    assert sorted(p.stem for p in NOTEBOOKS) == ["battle_vs_flow", "flower_pigs", "overview", "policies", "rule_sets"]
    assert sorted(name for name, _, _ in REPORTS) == ["battle_vs_flow", "exchange", "flower_pigs", "overview",
                                                      "rule_sets", "void"]
    for p in NOTEBOOKS:
        text = p.read_text()
        assert "format_name: percent" in text and "# %%" in text
        assert 'os.environ.get("SICHUAN_RUNS"' in text, "run directories must be a parameter"


@pytest.mark.parametrize("name,path,experiment", REPORTS, ids=[r[0] for r in REPORTS])
def test_notebook_executes_and_plots_render(exps, name, path, experiment, tmp_path):
    nb = execute(path, exps, experiment=experiment)
    assert not errors(nb)
    assert images(nb) >= 2, f"{path.name}: expected its plots as PNG outputs"
    md = [o["data"]["text/markdown"] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
          if "text/markdown" in o.get("data", {})]
    assert md and "95% CI" in md[-1], "the notebook states its finding with an interval"
    ipynb, html = write(nb, tmp_path, name)
    assert ipynb.stat().st_size > 10_000 and "data:image/png;base64" in html.read_text()


def test_missing_runs_give_a_clear_error(tmp_path):
    from experiments.notebooks import NotebookError

    with pytest.raises(NotebookError, match="no experiment in .*make notebooks"):
        execute(next(p for p in NOTEBOOKS if p.stem == "policies"), tmp_path, experiment="void")


def test_findings_section_from_reports(exps, tmp_path):
    reports = {n: load_report(exps / n) for n in findings.SIZES}
    text = findings.section(reports, "runs/small")
    assert text.startswith(findings.START) and text.endswith(findings.END)
    for name, rep in reports.items():
        size = rep["walls"] if rep["kind"] == "duplicate" else rep["hands"]
        assert f"sichuan experiment run {name} --hands {size} --seed {rep['seed']} --out runs/small/{name}" in text
    assert text.count("95% CI") >= 6
    # a question asked of two fields is compared in the later one's paragraph: the efficient field's
    # with the expert field, the learned field's with the expert field
    for name, fields in (("exchange-efficient", ("expert", "efficient")), ("void-efficient", ("expert", "efficient")),
                         ("exchange-learned", ("learned", "expert")), ("void-learned", ("learned", "expert"))):
        block = text.split(f"**{findings.TITLES[name]}** (")[1].split("\n**")[0]
        assert f"By the field's strength: against `{fields[0]}`" in block and f"; against `{fields[1]}`" in block
    for name in ("exchange", "void"):
        assert "By the field's strength" not in text.split(f"**{findings.TITLES[name]}** (")[1].split("\n**")[0]
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n## Findings\n\n{findings.START}\nSTALE-PLACEHOLDER\n{findings.END}\n\n## After\n")
    findings.rewrite_readme(readme, text)
    out = readme.read_text()
    assert "STALE-PLACEHOLDER" not in out and out.endswith("## After\n") and out.count(findings.END) == 1


def test_only_rewrites_one_experiment(exps, tmp_path):
    """`--only NAME` (findings.splice) rewrites one experiment's paragraph and command line and
    keeps every other line: splicing into a section without it, or with a stale paragraph,
    gives the section made from every report."""
    reports = {n: load_report(exps / n) for n in findings.SIZES}
    full = findings.section(reports, "runs/small")
    for name in ("rule-sets", "flower-pigs"):
        one = {name: reports[name]}
        without = findings.section({n: r for n, r in reports.items() if n != name}, "runs/small")
        assert findings.splice(without, one, "runs/small") == full
        stale = full.replace(f"**{findings.TITLES[name]}** (", f"**{findings.TITLES[name]}** (STALE ")
        assert "STALE" in stale and findings.splice(stale, one, "runs/small") == full
    # another seed is said on the paragraph itself (the section's first line keeps its own)
    other = dict(reports["rule-sets"], seed=reports["rule-sets"]["seed"] + 1)
    text = findings.splice(full, {"rule-sets": other}, "runs/small")
    assert f"measured on its own, seed {other['seed']}, with sichuan-sim" in text and text.count("Measured by") == 1
    assert f"--seed {other['seed']} --out runs/small/rule-sets" in text
    with pytest.raises(ValueError):
        findings.splice("no section", {"rule-sets": other}, "runs/small")
    # the command: one experiment from its runs, the README's other paragraphs untouched
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{without}\n")
    assert findings.main(["--runs", str(exps), "--readme", str(readme), "--no-run", "--only", "flower-pigs"]) == 0
    assert readme.read_text() == f"# x\n\n{findings.splice(without, {'flower-pigs': reports['flower-pigs']}, str(exps))}\n"
    assert findings.main(["--runs", str(exps), "--readme", str(readme), "--no-run", "--only", "nope"]) == 2


def test_readme_findings_are_generated():
    """The README's findings section exists, between the markers, with the command that made it."""
    readme = (ROOT / "README.md").read_text()
    m = re.search(re.escape(findings.START) + r"(.*?)" + re.escape(findings.END), readme, re.S)
    assert m, "README.md needs the findings section (make findings)"
    body = m.group(1)
    for name in findings.SIZES:
        assert re.search(rf"sichuan experiment run {name} --hands \d+ --seed \d+ --out \S+", body)


def test_the_pig_rate_plot_explains_its_triangles_and_its_legend_covers_no_point():
    """Issue 44, item 10: the open triangle of a cell without a pig is in the legend, and the legend
    sits beside the plot (inside the figure), over none of its points."""
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    import pandas as pd

    from experiments.figures import NO_PIG, pig_rates_figure

    rows = []
    for i, (play, void, preset) in enumerate((p, v, r) for p in ("greedy", "efficient", "expert")
                                             for v in ("fewest", "weakest", "random")
                                             for r in ("battle", "flow", "chengdu", "kawu", "tfmj")):
        pigs = 0 if void != "random" and i % 4 == 0 else 3 + i
        rate = pigs / 1e5 if pigs else 0.0
        rows.append({"play": play, "void": void, "preset": preset, "pigs": pigs, "rate": rate,
                     "rate_low": rate / 2, "rate_high": max(rate * 2, 4e-5)})
    fig = pig_rates_figure(pd.DataFrame(rows))
    ax = fig.axes[0]
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert NO_PIG in texts and "expert, void random" in texts and len(texts) == 9 + 1
    fig.canvas.draw()
    box, plot, whole = legend.get_window_extent(), ax.get_window_extent(), fig.bbox
    assert box.x0 >= plot.x1, (box, plot)                     # beside the plot, not over it
    assert box.x1 <= whole.x1 + 1 and box.y0 >= whole.y0 - 1  # and inside the figure
    points = np.concatenate([c.get_offsets() for c in ax.collections if len(c.get_offsets())]
                            + [np.column_stack(line.get_data()) for line in ax.get_lines() if len(line.get_xdata())])
    shown = ax.transData.transform(np.asarray(points, float))
    assert not any(box.contains(x, y) for x, y in shown)
