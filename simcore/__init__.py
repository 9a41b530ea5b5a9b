"""Sichuan mahjong Monte Carlo simulator: jitted core, rule sets, runs and analysis."""

import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

from .numba_cache import configure as _configure_numba_cache

_configure_numba_cache()  # before any jitted module is imported

# Strategies are numba first-class functions, which numba still labels experimental.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

__all__ = ["__version__", "simulate"]

from .version import __version__


def simulate(hands: int = 10_000, rules="battle", sets=None, seats: str | None = None, seed: int = 0,
             matches: int | None = None, out=None, workers: int | None = 1, chunk_hands: int = 100_000):
    """Run a small simulation from Python and return it loaded as pandas DataFrames.

    ``rules`` is a preset name, a TOML path or a RuleSet; ``sets`` a dict or list of
    ``key=value`` overrides; ``seats`` a seat spec as on the command line (default
    ``efficient``); ``matches`` plays match mode instead of ``hands``. With ``out`` the run is
    written there (and resumed or extended like ``sichuan simulate``); otherwise into a
    temporary directory that is removed afterwards.

        >>> import simcore
        >>> run = simcore.simulate(2000, seats="greedy")
        >>> run.seats.groupby("strategy", observed=True)["net"].mean()
    """
    import tempfile

    from . import analysis
    from .rules import resolve
    from .runner import RunConfig, run as run_chunks
    from strategies.registry import parse_seats

    rs = resolve(rules, sets)
    specs = tuple(s.canonical for s in parse_seats(seats))
    n = matches if matches is not None else hands
    if n is None or n <= 0:
        raise ValueError("the number of hands (or matches) must be positive")
    cfg = RunConfig(rs, specs, seed, "matches" if matches is not None else "hands", int(n), chunk_hands)
    if out is not None:
        run_chunks(out, cfg, workers=workers)
        return analysis.load(out)
    with tempfile.TemporaryDirectory(prefix="sichuan-") as tmp:
        run_chunks(tmp, cfg, workers=workers)
        return analysis.load(tmp)
