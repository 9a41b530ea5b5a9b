"""The ``coverage`` bench section (issue 44): does a run that stops at a precision
(``--until-width``) keep its 95% intervals' coverage on the engine, not only on simulated data
(``tests/experiments/test_until.py``)?

One cheap real cell, the void policy in battle against the efficient field
(``efficient+exchange=shortest+void=expert`` 1 vs 3 against ``efficient+exchange=shortest+void=fewest``:
the arm differs on about 15% of the walls, so its per-wall differences are mostly zero with heavy
tails), luck-corrected, is compared ``REPS`` times with different seeds as a user would, a pilot of
``PILOT`` walls and ``--until-width WIDTH``, each in its own directory; then once, on another seed,
with ``REFERENCE_FACTOR`` times the walls of the largest of those runs, for reference. The
coverage is the share of the runs whose interval holds the reference difference, with its
binomial (Wilson) 95% interval, which should hold 0.95. The reference's own error (a tenth of a
run's half-width) lowers the expected coverage by about 0.001.

WIDTH is 0.05, not 0.1: this cell's difference is so little spread that width 0.1 needs under 300
walls, less than a pilot worth the name; at 0.05 the pilot of 300 walls plans about 1,200
(a fifth of a second a run on 2 cores).

    python -m benchmarks.bench --only coverage            # 400 runs (about 2 minutes on 2 cores)
    python -m benchmarks.bench --only coverage --quick    # 20 runs, a look that it works
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

FIELD = "efficient+exchange=shortest+void=fewest"
ARM = "efficient+exchange=shortest+void=expert"
RULES = "battle"
WIDTH = 0.05
PILOT = 300
REPS = 400
QUICK_REPS = 20
REFERENCE_FACTOR = 100
FIRST_SEED = 1_000      # the runs' seeds: 1000, 1001, ...; the reference's is REFERENCE_SEED
REFERENCE_SEED = 1
MAX_MINUTES = 20


def _spec(hands: int):
    from experiments.spec import parse_spec

    return parse_spec({"name": "coverage", "kind": "duplicate", "hands": hands, "rules": RULES, "field": FIELD,
                       "arms": {"A": ARM, "B": FIELD}, "baseline": "B", "estimator": "luck"}, source="coverage")


def bench_coverage(ctx, figures_cls, log) -> dict:
    import experiments
    import experiments.execute as execute
    from simcore.runs.analysis import wilson

    reps = QUICK_REPS if ctx.quick else REPS
    log(f"coverage: {reps} runs of {ARM} against {FIELD} ({RULES}), pilot {PILOT} walls, --until-width {WIDTH}, "
        f"then a reference of {REFERENCE_FACTOR}x the largest")
    figs = figures_cls()
    t0 = time.perf_counter()
    real_cost = execute.luck_cost
    # the CPU the luck terms cost (4,000 walls played twice on one thread per experiment) is for the
    # reports' CPU figures, not for coverage: not measured here
    execute.luck_cost = lambda *args, **kw: {"walls": 0, "plain_seconds": 0.0, "luck_seconds": 0.0}
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="sichuan-coverage-") as tmp:
            spec = _spec(PILOT)
            for i in range(reps):
                out = Path(tmp) / f"run-{i}"
                rep = experiments.run(spec, out, seed=FIRST_SEED + i, until_width=WIDTH)
                row = next(r for r in rep["rows"] if r["arm"] == "A")
                runs.append({"low": row["diff_low"], "high": row["diff_high"], "walls": rep["walls"],
                             "reached": rep["until"]["reached"]["A"]})
                shutil.rmtree(out)
                if (i + 1) % 20 == 0 or i + 1 == reps:
                    log(f"  {i + 1} of {reps} runs, {time.perf_counter() - t0:.0f} s")
            runs_seconds = time.perf_counter() - t0
            ref_walls = REFERENCE_FACTOR * max(r["walls"] for r in runs)
            log(f"  reference: {ref_walls:,} walls, seed {REFERENCE_SEED}")
            ref = experiments.run(_spec(ref_walls), Path(tmp) / "reference", seed=REFERENCE_SEED)
            ref_row = next(r for r in ref["rows"] if r["arm"] == "A")
    finally:
        execute.luck_cost = real_cost
    truth = ref_row["diff"]
    covered = sum(r["low"] <= truth <= r["high"] for r in runs)
    rate, lo, hi = wilson(covered, reps)
    figs.add("coverage", f"coverage of the 95% intervals ({covered} of {reps} runs hold the reference)", rate, "", 3,
             ("binomial 95% interval holds 0.95", None), lo, hi, ok=lo <= 0.95 <= hi)
    walls = [r["walls"] for r in runs]
    figs.add("walls_median", "walls a run (median; pilot included)", statistics.median(walls), "", 0,
             note=f"{min(walls):,} to {max(walls):,}")
    figs.add("reached", "runs whose interval reached the width", sum(r["reached"] for r in runs) / reps, "", 3)
    figs.add("reference", f"reference difference ({ref_walls:,} walls, seed {REFERENCE_SEED})", truth, "", 4,
             low=ref_row["diff_low"], high=ref_row["diff_high"],
             note=f"{ref_walls / statistics.median(walls):.0f} times a run's median walls")
    figs.add("seconds_per_run", "seconds a run (until width, pilot included)", runs_seconds / reps, "s", 2)
    minutes = (time.perf_counter() - t0) / 60
    figs.add("minutes", "the section's minutes", minutes, "min", 1, (f"≤ {MAX_MINUTES}", lambda v: v <= MAX_MINUTES))
    return figs


__all__ = ["bench_coverage"]
