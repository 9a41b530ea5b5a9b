"""Experiments: TOML specs and the code that runs and reports them.

``sichuan experiment run SPEC --out DIR`` plays an experiment's runs (duplicate arms in four
rotations, or cells) with :func:`simcore.runs.runner.run`; ``sichuan experiment report DIR`` prints
its comparison again; ``sichuan compare A B`` is a duplicate head-to-head without a spec file.
experiments/README.md documents the spec format and the statistics.
"""

from .spec import SHIPPED, SURVEY, Spec, SpecError, load_spec, parse_spec

__all__ = ["SHIPPED", "SURVEY", "Spec", "SpecError", "load_spec", "parse_spec", "run", "load_report"]


def run(spec, out, hands=None, seed=None, workers=None, log=None, vs=None, draw_order=None, estimator=None,
        until_width=None, max_walls=None, full_tables=False, width=None, max_minutes=None, notice=None,
        chunk_hands=None) -> dict:
    """Run a spec (a Spec, a path or a shipped name) into ``out``; returns its report dict
    (``vs``: a duplicate report's reference arm instead of the baseline). ``draw_order``,
    ``estimator``, ``until_width``, ``max_walls``, ``max_minutes`` and ``full_tables`` as the
    command's options (the spec's when None; README: Cheaper duplicate answers); a spec's
    ``until_relative`` holds; ``width``: the report's width for 'walls needed'. ``log`` gets the
    progress lines, ``notice`` (default ``log``) the plan of a run that stops at a precision;
    ``chunk_hands``: a new experiment's chunk size (tests)."""
    from .execute import ExperimentError, run_experiment
    from .report import build, save
    from .until import Relative, Width, run_until

    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    if vs is not None and (spec.kind != "duplicate" or vs not in {a.name for a in spec.arms}):
        raise ExperimentError(f"--vs {vs!r} is not an arm of {spec.name} (arms: "
                              f"{', '.join(a.name for a in spec.arms) or 'none: not a duplicate experiment'})")

    def play(n, progress=None, before=None):
        return run_experiment(spec, out, hands=n, seed=seed, workers=workers, log=log, draw_order=draw_order,
                              estimator=estimator, full_tables=full_tables, progress=progress,
                              chunk_hands=chunk_hands, before=before)

    def report(limit=None):
        return build(out, width=width, vs=vs, limit=limit)

    until_width = until_width if until_width is not None else spec.until_width
    cap = max_walls if max_walls is not None else (spec.max_walls if spec.kind == "duplicate" else spec.max_hands)
    pilot = hands or spec.hands
    if until_width is not None and spec.kind == "duplicate":
        run_until(out, Width(until_width), pilot, cap, max_minutes, play, report, log, notice)
    elif spec.kind == "cells" and spec.until_relative is not None:
        run_until(out, Relative(spec.until_relative), pilot, cap, max_minutes, play, report, log, notice)
    else:
        if max_minutes is not None:
            raise ExperimentError("--max-minutes budgets the second stage of --until-width (or of a cells spec's "
                                  "until_relative); this run has a fixed size")
        play(hands)
    rep = report()
    save(out, rep)
    return rep


def load_report(exp_dir, width=None, vs=None) -> dict:
    """The report dict of an experiment directory, recomputed from its runs (``vs``: a duplicate
    report's reference arm instead of the baseline)."""
    from .report import build

    return build(exp_dir, width=width, vs=vs)
