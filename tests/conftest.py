"""Shared fixtures. Tests are grouped like the code (a folder per layer: contract/, engine/,
strategies/, runs/, inspection/, experiments/; the whole-tree checks at the top); helpers that
several test files use live in ``tests/support/``, never in another test file.

``pytest -m "not slow"`` is the quick loop; ``make test`` and CI run everything."""

from __future__ import annotations

from pathlib import Path

import pytest

import simcore  # noqa: F401  (configures numba's cache before any jitted module is imported)
from tests.support.experiments import make_small_experiments


@pytest.fixture(scope="session")
def small_experiments(tmp_path_factory) -> Path:
    """Every shipped experiment run at tests.support.experiments.SMALL sizes, once a session."""
    return make_small_experiments(tmp_path_factory.mktemp("experiments"))
