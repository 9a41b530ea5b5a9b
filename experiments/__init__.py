"""Experiments: TOML specs and the code that runs and reports them.

``sichuan experiment run SPEC --out DIR`` plays an experiment's runs (duplicate arms in four
rotations, or cells) with :func:`simcore.runner.run`; ``sichuan experiment report DIR`` prints
its comparison again; ``sichuan compare A B`` is a duplicate head-to-head without a spec file.
experiments/README.md documents the spec format and the statistics.
"""

from .spec import SHIPPED, Spec, SpecError, load_spec, parse_spec

__all__ = ["SHIPPED", "Spec", "SpecError", "load_spec", "parse_spec", "run", "load_report"]


def run(spec, out, hands=None, seed=None, workers=None, log=None, vs=None) -> dict:
    """Run a spec (a Spec, a path or a shipped name) into ``out``; returns its report dict
    (``vs``: a duplicate report's reference arm instead of the baseline)."""
    from .execute import run_experiment
    from .report import build, save

    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    if vs is not None and (spec.kind != "duplicate" or vs not in {a.name for a in spec.arms}):
        from .execute import ExperimentError

        raise ExperimentError(f"--vs {vs!r} is not an arm of {spec.name} (arms: "
                              f"{', '.join(a.name for a in spec.arms) or 'none: not a duplicate experiment'})")
    run_experiment(spec, out, hands=hands, seed=seed, workers=workers, log=log)
    rep = build(out, vs=vs)
    save(out, rep)
    return rep


def load_report(exp_dir, width=None, vs=None) -> dict:
    """The report dict of an experiment directory, recomputed from its runs (``vs``: a duplicate
    report's reference arm instead of the baseline)."""
    from .report import build

    return build(exp_dir, width=width, vs=vs)
