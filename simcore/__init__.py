"""Sichuan mahjong Monte Carlo simulator: jitted core, rule sets, runs and analysis."""

import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

# Strategies are numba first-class functions, which numba still labels experimental.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

__all__ = ["__version__"]

try:
    from importlib.metadata import version as _version

    __version__ = _version("sichuan-sim")
except Exception:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"
