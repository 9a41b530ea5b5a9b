"""The README documents exactly the columns the runs write, and starts with its two commands."""

from pathlib import Path

from simcore.docs import render

ROOT = Path(__file__).resolve().parents[1]


def test_readme_column_reference_is_current():
    text = (ROOT / "README.md").read_text()
    assert render(text) == text, "run `python -m simcore.docs` to regenerate the README's columns"


def test_readme_starts_with_the_two_setup_commands():
    head = "\n".join((ROOT / "README.md").read_text().splitlines()[:10])
    assert "make run" in head and "make test" in head


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
