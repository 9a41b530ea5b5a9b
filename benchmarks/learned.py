"""The ``learned`` bench section (issue 45): the learned player against expert, its speed and its
strength, on walls its models never saw (the shipped models were trained on seeds 101 and up of
``sichuan dataset``; every cell here plays seed 1).

- speed: hands/s of ``learned`` at all four seats against ``expert`` at all four, battle, one
  core, the two alternated in one process, best of three batches each (target: a third);
- strength: ``sichuan ladder --plays learned,expert --fields expert,efficient,mixed --presets
  battle,flow --focus learned``: learned's score against each field and its paired difference
  from expert's on the same walls (targets: +0.35 a hand in battle and +1.4 in flow against the
  expert field; at least expert's, interval's high end above 0, against the other fields);
- ``search[policy=learned]`` against ``search`` on the same walls (expert field, battle and
  flow; target: interval above 0), where the search takes the learned play as its rollout policy;
- ``expert+exchange=learned`` and ``expert+void=learned`` against ``expert`` (``sichuan compare
  --until-width 0.01``: a pilot, then the walls the width needs; 0.05 with ``--quick``).

    python -m benchmarks.bench --only learned            # 20,000 walls a ladder cell
    python -m benchmarks.bench --only learned --quick    # 2,000

The ladder's cells play 20,000 walls (the ladder's own default; about a minute on 2 cores): at
5,000 a cell's 95% interval (about ±0.05 in battle, ±0.11 in flow) was as wide as the distance
between the figure and its target, so the verdict turned on which walls were drawn.
"""

from __future__ import annotations

import time

WALLS = 20_000
SEARCH_WALLS = 1_000
SEED = 1
SPEED_HANDS = 2_000
TARGETS = {"battle": 0.35, "flow": 1.4}
FIELDS = ("expert", "efficient", "mixed")
DEAL_WIDTH, DEAL_PILOT = 0.01, 20_000   # the learned exchange and void against expert's


def rates(specs, hands: int, rules: str = "battle", rounds: int = 3) -> dict:
    """Hands/s of each seat spec at all four seats on one core, alternated round by round (a
    busy machine slows them alike), best round each."""
    from simcore.contract.rules import preset
    from simcore.runs.batch import run_batch
    from strategies.registry import parse_seats, seat_functions

    r = preset(rules)
    fns = {s: seat_functions(parse_seats(s)) for s in specs}
    for s in specs:                       # compile and warm
        run_batch(r, fns[s], SEED, 0, 20, threads=1)
    best = dict.fromkeys(specs, 0.0)
    for k in range(rounds):
        for s in specs:
            t0 = time.perf_counter()
            run_batch(r, fns[s], SEED, 10_000 + k * hands, hands, threads=1)
            best[s] = max(best[s], hands / (time.perf_counter() - t0))
    return best


def bench_learned(ctx, figures_cls, log, run_ladder_command, run_compare) -> dict:
    """``run_ladder_command(walls, *args)``: bench's ladder in a subprocess, (report, seconds);
    ``run_compare(a, b, rules, walls, *args)``: ``sichuan compare``'s row of A."""
    from benchmarks.figures import at_least

    figs = figures_cls()
    speed = rates(("expert", "learned"), SPEED_HANDS // 4 if ctx.quick else SPEED_HANDS)
    figs.add("rate_learned", "battle: learned at all four seats: hands/s on one core", speed["learned"], "hands/s", 0)
    figs.add("rate_expert", "battle: expert at all four seats: hands/s on one core (same run)", speed["expert"],
             "hands/s", 0)
    figs.add("rate_share", "learned's hands/s as a share of expert's", speed["learned"] / speed["expert"], "", 3,
             at_least(1 / 3))
    walls = WALLS // 10 if ctx.quick else WALLS
    log(f"learned: ladder of learned and expert, {walls:,} walls a cell, battle and flow")
    rep, seconds = run_ladder_command(walls, "--plays", "learned,expert", "--fields", ",".join(FIELDS),
                                      "--presets", "battle,flow", "--focus", "learned", "-q")
    for rules in ("battle", "flow"):
        res = rep["results"][rules]
        for f in FIELDS:
            d = res["diffs"][f]["learned"]["expert"]
            goal = TARGETS[rules] if f == "expert" else None
            target = ((f"≥ +{goal} and interval > 0", lambda v, lo=d["low"], g=goal: v >= g and lo > 0) if goal
                      else ("interval reaches 0 or above", lambda _, hi=d["high"]: hi >= 0))
            figs.add(f"diff_{rules}_{f}", f"{rules}, field {f}: learned − expert ({walls:,} walls)", d["mean"], "", 3,
                     target, d["low"], d["high"], grid=(f"learned − expert, paired ({walls:,} walls a cell)",
                                                         rules, f))
    figs.add("ladder_seconds", f"the ladder's time ({walls:,} walls a cell, 2 presets x 3 fields)", seconds, "s", 0)
    walls = SEARCH_WALLS // 10 if ctx.quick else SEARCH_WALLS
    log(f"learned: search[policy=learned] against search, {walls:,} walls, expert field")
    rep, seconds = run_ladder_command(walls, "--plays", "search,search[policy=learned]", "--fields", "expert",
                                      "--presets", "battle,flow", "--focus", "search[policy=learned]", "-q")
    for rules in ("battle", "flow"):
        d = rep["results"][rules]["diffs"]["expert"]["search[policy=learned]"]["search"]
        figs.add(f"search_policy_{rules}", f"{rules}, field expert: search[policy=learned] − search ({walls:,} walls)",
                 d["mean"], "", 3, ("interval > 0", lambda _, lo=d["low"]: lo > 0), d["low"], d["high"])
    figs.add("search_seconds", f"the search ladder's time ({walls:,} walls, 2 presets)", seconds, "s", 0)
    width, pilot = (DEAL_WIDTH * 5, DEAL_PILOT // 10) if ctx.quick else (DEAL_WIDTH, DEAL_PILOT)
    for part in ("exchange", "void"):
        for rules in ("battle", "flow"):
            log(f"learned: expert+{part}=learned against expert, {rules}, until the interval is {width:g} wide")
            t0 = time.perf_counter()
            r = run_compare(f"expert+{part}=learned", "expert", rules, pilot, "--until-width", str(width))
            figs.add(f"{part}_{rules}", f"{rules}: expert+{part}=learned − expert (duplicate, expert field)", r["diff"],
                     "", 4, (f"interval ≤ {width:g} wide", lambda _, lo=r["diff_low"], hi=r["diff_high"]:
                             hi - lo <= width + 1e-9), r["diff_low"], r["diff_high"])
            figs.add(f"{part}_{rules}_seconds", f"{rules}: its time", time.perf_counter() - t0, "s", 0)
    return figs
