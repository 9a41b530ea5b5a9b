"""Sichuan mahjong Monte Carlo simulator: jitted core, rule sets, runs and analysis.

The package is layered, bottom to top (docs/ARCHITECTURE.md: Layers): ``simcore.contract`` (tiles,
rules, evaluation, the strategy contract), ``simcore.engine`` (the jitted hand, the batch, the
sampler), ``strategies`` (players and the registry), ``simcore.runs`` (run directories and their
analysis), ``simcore.inspection`` (one hand at a time: traces, scenarios, the reviewer, the
viewer), and here the public API, the CLI, the version and the numba cache set-up.

Public API: :func:`simulate`, :func:`replay`, :func:`analyze`, :func:`load`, :func:`sql`. Every
import of a layer is lazy (each worker process imports this package).
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

from simcore.numba_cache import configure as _configure_numba_cache

_configure_numba_cache()  # before any jitted module is imported

# Strategies are numba first-class functions, which numba still labels experimental.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

__all__ = ["__version__", "simulate", "replay", "analyze", "load", "sql"]

from simcore.version import __version__  # noqa: E402

# Modules that user code imports by their names before the layers were folders: the same module
# objects, under both names (``import simcore.view`` is ``simcore.contract.view``).
MOVED = {
    "simcore.tiles": "simcore.contract.tiles",
    "simcore.rules": "simcore.contract.rules",
    "simcore.evaluate": "simcore.contract.evaluate",
    "simcore.view": "simcore.contract.view",
    "simcore.hand": "simcore.inspection.hand",
    "simcore.analysis": "simcore.runs.analysis",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as the module it moved to (loaded on first use)."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        spec.loader_state = module.__spec__  # the import machinery sets the alias's spec on it
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())

# Functions re-exported from the layers, imported on first use.
_LAZY = {"load": "simcore.runs.analysis", "sql": "simcore.runs.analysis"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if "simcore." + name in MOVED:
        return importlib.import_module("simcore." + name)
    raise AttributeError(f"module 'simcore' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {m.split(".")[1] for m in MOVED})


def simulate(hands: int = 10_000, rules="battle", sets=None, seats: str | None = None, seed: int = 0,
             matches: int | None = None, out=None, workers: int | None = 1, chunk_hands: int | None = None,
             draw_order: str = "table", luck: bool = False):
    """Run a small simulation from Python and return it loaded as pandas DataFrames.

    ``rules`` is a preset name, a TOML path or a RuleSet; ``sets`` a dict or list of
    ``key=value`` overrides; ``seats`` a seat spec as on the command line (default
    ``expert``, with its own exchange and void policies); ``matches`` plays match mode instead of ``hands``. With ``out`` the run is
    written there (and resumed or extended like ``sichuan simulate``); otherwise into a
    temporary directory that is removed afterwards. ``draw_order``: ``table`` or ``seat`` (how
    draws take wall positions, ``sichuan simulate --draw-order``). ``luck``: measure each seat's
    luck with the shipped value model (the seats' ``luck`` column; ``sichuan simulate --luck``).

        >>> import simcore
        >>> run = simcore.simulate(2000, seats="greedy")
        >>> run.seats.groupby("strategy", observed=True)["net"].mean()
    """
    import tempfile

    from simcore.contract.rules import resolve
    from simcore.runs import DEFAULT_CHUNK_HANDS, analysis
    from simcore.runs.runner import RunConfig, run as run_chunks
    from strategies.registry import parse_seats

    rs = resolve(rules, sets)
    specs = tuple(parse_seats(seats))
    n = matches if matches is not None else hands
    if n is None or n <= 0:
        raise ValueError("the number of hands (or matches) must be positive")
    value_model = None
    if luck:
        from simcore.runs.value_model import shipped

        value_model = shipped(rs)[1]
    cfg = RunConfig(rs, specs, seed, "matches" if matches is not None else "hands", int(n),
                    chunk_hands or DEFAULT_CHUNK_HANDS, draw_order=draw_order, value_model=value_model)
    if out is not None:
        run_chunks(out, cfg, workers=workers)
        return analysis.load(out)
    with tempfile.TemporaryDirectory(prefix="sichuan-") as tmp:
        run_chunks(tmp, cfg, workers=workers)
        return analysis.load(tmp)


def replay(hands=0, rules="battle", sets=None, seats: str | None = None, seed: int = 0, run=None, events=None,
           review: int | None = None, rollouts: int = 500, policy: str | None = None, allow_changed_strategy: bool = False,
           draw_order: str = "table"):
    """Replay hands in the viewer: returns a ``HandViewer`` that Jupyter displays inline and that
    ``.save("hand.html")`` writes as a page that works offline.

    ``hands`` is a hand index, a range or ``"A-B"``; ``rules``, ``sets``, ``seats`` and ``seed`` as
    for :func:`simulate` (seats default to ``expert``, as ``sichuan trace`` plays them). With
    ``run`` (a run directory) the hands of that run are replayed with its own rules, seats and
    seed. With ``events`` (TRACE.md events, or a path to a JSON Lines trace) those are shown.
    With ``review`` (a seat), each decision of that seat is judged by ``rollouts`` rollouts, played
    by the hand's own seats or by ``policy`` (seat specs), and the page shows what every option was
    worth (``sichuan trace --review``).
    ``allow_changed_strategy`` replays a run whose strategy files changed since (with a warning).

        >>> import simcore
        >>> simcore.replay(3, rules="flow", seed=1)          # in a notebook: the viewer
        >>> simcore.replay("0-9", run="runs/demo").save("hands.html")
    """
    from simcore.inspection.page import HandViewer, MAX_HANDS, ViewerError

    if events is not None:
        if isinstance(events, (str, bytes)) or hasattr(events, "__fspath__"):
            import json
            from pathlib import Path

            events = [json.loads(line) for line in Path(events).read_text().splitlines() if line.strip()]
        return HandViewer.from_events(events)
    from simcore.inspection.review import review_hands
    from simcore.engine import RunOptions
    from simcore.inspection.run_hands import hands_of_run, independent_hands, parse_hands

    hands = parse_hands(hands)
    if len(hands) > MAX_HANDS:
        raise ViewerError(f"{len(hands)} hands, but one page shows at most {MAX_HANDS}")
    if run is not None:
        setups = hands_of_run(run, hands, allow_changed_strategy)
    else:
        from simcore.contract.rules import resolve
        from strategies.registry import parse_seats

        setups = independent_hands(resolve(rules, sets), parse_seats(seats), seed, hands, RunOptions(draw_order))
    traced = [h.trace(run) for h in setups]
    reviews = None if review is None else review_hands(setups, traced, review, rollouts, policy)
    return HandViewer([t.events for t in traced], reviews=reviews)


def analyze(run=None, hand: int = 0, seat: int = 0, decision: int | None = None, rollouts: int = 500,
            policy: str | None = None, rules="battle", sets=None, seats: str | None = None, seed: int = 0,
            discards: int = 14, progress: bool = False, allow_changed_strategy: bool = False,
            draw_order: str = "table"):
    """Judge a seat's decisions in one hand by rollouts (``simcore.inspection.review.analyze``): a DataFrame,
    one row per candidate answer of each decision, with its mean net, 95% interval, gap to the
    best (paired) and whether the seat chose it. The same as ``sichuan analyze``.

        >>> import simcore
        >>> simcore.analyze(hand=3, seat=0, decision=0, rollouts=1000)   # the exchange of hand 3
    """
    from simcore.inspection.review import analyze as _analyze

    from simcore.engine import RunOptions

    return _analyze(run, hand, seat, decision, rollouts, policy, rules, sets, seats, seed, discards, progress,
                    allow_changed_strategy, RunOptions(draw_order))
