"""Runs that stop at the precision asked (README: Cheaper duplicate answers).

``--until-width W``: a pilot of the walls asked (``--hands``), then one second stage fixed by the
pilot: the walls every arm's main interval needs for full width W at the pilot's standard
deviation, times a margin for the error of that estimate, capped by ``--max-walls`` and by
``--max-minutes`` (at the pilot's measured rate). The stage never stops early (stopping at the
first interval narrow enough would make the intervals too short); the rule's coverage is tested
(``tests/experiments/test_until.py``) on heavy-tailed differences like the engine's, and on the
engine by the bench's ``coverage`` section.

``until_relative = R`` in a cells spec does the same for rates: the pilot's pig rate of each cell
(at least one pig's worth, when it saw none) and its design effect say how many seat-hands put
the Wilson 95% half-width within R of the rate; every cell scales with ``--hands``, so the second
stage scales them all by the largest factor any cell needs, capped by ``max_hands``.

The plan (the pilot's statistics, its measured rate, the walls planned and the forecast) is kept
in ``experiment.json`` as ``until_plan`` before the second stage starts, and the experiment is
marked incomplete until the stage is played. The stage is one extension of the experiment, played
chunk by chunk like any run, so an interrupt loses at most the chunks in flight and the same
command resumes it from the plan (the pilot is not played or planned again). A directory from
before plans were kept, or one holding more than the pilot, is finished as it stands and planned
from its first ``--hands`` walls (duplicate; a cells experiment from all its hands).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

from simcore.runs.analysis import Z95

MARGIN = 1.2       # walls planned = MARGIN x the pilot's estimate of the walls needed
EVERY = 20.0       # seconds between the second stage's progress lines


def _capped(total: int, pilot: int, cap: int | None) -> tuple[int, bool]:
    """``total`` held to ``cap`` (never below the pilot), and whether the cap held it."""
    if cap is not None and total > cap:
        return max(pilot, cap), True
    return total, False


def _walls_needed(sds, width: float) -> int:
    return max((math.ceil(MARGIN * (2 * Z95 * sd / width) ** 2) for sd in sds if sd == sd), default=0)


def planned_walls(sds, width: float, pilot: int, max_walls: int | None = None) -> tuple[int, bool]:
    """The walls to play in all, from the pilot's standard deviations of the per-wall differences,
    and whether ``max_walls`` capped them."""
    return _capped(max(pilot, _walls_needed(sds, width)), pilot, max_walls)


def widths(rep: dict) -> dict[str, float]:
    """Each compared arm's main interval's full width (the reference arm has none)."""
    return {r["arm"]: r["diff_high"] - r["diff_low"] for r in rep["rows"]
            if not r.get("reference") and r.get("diff_high") is not None and r.get("diff_low") is not None}


def _widest(rep: dict) -> str:
    w = widths(rep)
    if not w:
        return "n/a"
    arm = max(w, key=w.get)
    return f"{w[arm]:.4f} ({arm})"


def _factor(cells: list[dict], relative: float) -> float:
    """The largest factor by which a cell's seat-hands must grow for its pig rate's 95% half-width
    to be within ``relative`` of the rate (``cells``: a report's rows)."""
    factor = 0.0
    for c in (c["pigs"] for c in cells):
        n, k = c.get("seat_hands") or 0, c.get("pigs") or 0
        if not n:
            continue
        p = max(k, 1) / n
        need = (c.get("deff") or 1.0) * (Z95 / relative) ** 2 * (1 - p) / p
        factor = max(factor, need / n)
    return factor


def planned_hands(cells: list[dict], relative: float, pilot: int, max_hands: int | None = None) -> tuple[int, bool]:
    """The ``--hands`` to play in all for every cell's pig rate to reach a 95% half-width of
    ``relative`` times the rate, from the pilot's pig stats (``cells`` rows), and whether
    ``max_hands`` capped it."""
    return _capped(max(pilot, math.ceil(MARGIN * _factor(cells, relative) * pilot)), pilot, max_hands)


def rate_reached(c: dict, relative: float) -> bool:
    """Whether a cell's pig rate has a 95% interval of half-width within ``relative`` of it."""
    c = c["pigs"]
    if not c.get("pigs") or c.get("rate_low") is None or c.get("rate_high") is None:
        return False
    return (c["rate_high"] - c["rate_low"]) / 2 <= relative * c["rate"]


def _unreached(rep: dict, relative: float) -> str:
    n = sum(not rate_reached(c, relative) for c in rep["cells"])
    return f"{n} of {len(rep['cells'])} cells' pig rates not yet within {relative:.0%}"


class Width:
    """A duplicate experiment's target: every arm's main interval of full width at most ``width``."""

    rule, unit, cap_option = "width", "walls", "--max-walls"

    def __init__(self, width: float):
        self.width = float(width)

    def stats(self, rep: dict) -> dict:
        return {"sd": {r["arm"]: r["sd_diff"] for r in rep["rows"] if not r.get("reference")
                       and r.get("sd_diff") is not None}, "reference": rep.get("reference", rep.get("baseline"))}

    def needed(self, plan: dict) -> int:
        return _walls_needed(plan["stats"]["sd"].values(), self.width)

    def state(self, rep: dict) -> str:
        return f"widest interval {_widest(rep)}"

    def goal(self) -> str:
        return f"width {self.width:g}"


class Relative:
    """A cells experiment's target: every pig rate's 95% half-width within ``relative`` of it."""

    rule, unit, cap_option = "relative", "--hands", "the maximum"

    def __init__(self, relative: float):
        self.relative = float(relative)

    def stats(self, rep: dict) -> dict:
        return {"factor": _factor(rep["cells"], self.relative), "relative": self.relative}

    def needed(self, plan: dict) -> int:
        # the factor was measured for the relative precision then asked; it scales as 1 / relative^2
        f = plan["stats"]["factor"] * (plan["stats"]["relative"] / self.relative) ** 2
        return math.ceil(MARGIN * f * plan["sample"])

    def state(self, rep: dict) -> str:
        return _unreached(rep, self.relative)

    def goal(self) -> str:
        return f"every pig rate within {self.relative:.0%}"


def duration(seconds: float | None) -> str:
    """A forecast or an elapsed time as a person reads it."""
    if seconds is None or seconds != seconds:
        return "an unknown time"
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


class _Meter:
    """The play rate of a session from its progress (``execute._Work`` states), in walls per
    second: from the end of the first chunk on when more than one was played (the first carries
    the loading of the engine and the strategies), else over all of it."""

    def __init__(self):
        self.first = self.last = None

    def __call__(self, state: dict) -> None:
        if state["played"] > 0:
            self.first = self.first or dict(state)
            self.last = dict(state)

    def walls_per_second(self, walls: int) -> float | None:
        if self.last is None:
            return None
        per_hand = walls / self.last["total"] if self.last["total"] else 0.0
        a = self.first if self.last["played"] > self.first["played"] and self.last["seconds"] > self.first["seconds"] \
            else {"played": 0.0, "seconds": 0.0}
        secs = self.last["seconds"] - a["seconds"]
        return (self.last["played"] - a["played"]) * per_hand / secs if secs > 0 else None


def _rate(meter: _Meter, manifest: dict) -> dict:
    """The plan's rate: walls per second measured in the pilot's session (else the experiment's
    recorded seconds per wall) and CPU seconds per wall (its processes' CPU, where measured)."""
    walls = int(manifest["hands"])
    t = manifest.get("timings") or {}
    wps = meter.walls_per_second(walls)
    if wps is None and t.get("seconds"):
        wps = walls / float(t["seconds"])
    cpu = float(t["cpu_seconds"]) / walls if t.get("cpu_seconds") else None
    return {"walls_per_second": None if wps is None else round(wps, 3),
            "cpu_per_wall": None if cpu is None else round(cpu, 7), "cores": manifest.get("cores")}


def _stage_log(log: Callable[[str], None], total: int, unit: str) -> Callable[[dict], None]:
    """Progress lines of the second stage, at most every ``EVERY`` seconds: how far, how long,
    how long still at the rate the stage is playing at."""
    last = [0.0]

    def show(state: dict) -> None:
        secs = state["seconds"]
        if secs - last[0] < EVERY and state["done"] < state["total"]:
            return
        last[0] = secs
        share = state["done"] / state["total"] if state["total"] else 1.0
        left = (state["total"] - state["done"]) * secs / state["played"] if state["played"] > 0 else None
        log(f"  second stage: {share * total:,.0f} of {total:,} {unit} ({share:.0%}), {duration(secs)}"
            + (f", about {duration(left)} left" if left is not None and share < 1 else ""))
    return show


def run_until(exp_dir, target, pilot: int, cap: int | None, max_minutes: float | None,
              play: Callable, report: Callable, log: Callable[[str], None] | None = None,
              notice: Callable[[str], None] | None = None) -> dict:
    """Play the pilot (unless the experiment in ``exp_dir`` already planned from it), plan the
    second stage, keep the plan, play the stage; returns the plan. ``play(n, progress=None,
    before=None)`` extends the experiment to ``n`` (``execute.run_experiment``); ``report(limit=None)``
    builds its report (of the first ``limit`` walls where it can); ``notice`` gets the plan's line
    (printed even with --quiet), ``log`` the progress."""
    from experiments.execute import ExperimentError, read_manifest

    exp_dir = Path(exp_dir)
    notice = notice or log
    old = read_manifest(exp_dir) if (exp_dir / "experiment.json").is_file() else None
    plan = (old or {}).get("until_plan")
    held = int(old["hands"]) if old else 0
    if plan is not None and (plan.get("pilot") != pilot or plan.get("rule") != target.rule):
        plan = None     # another pilot or another kind of target: planned again
    resumed = plan is not None
    if plan is None:
        meter = _Meter()
        if held > pilot:
            if log:
                log(f"{exp_dir} holds {held:,} {target.unit}, more than the pilot's {pilot:,}, and no plan from it: "
                    f"finishing those, then planning from " + ("its first " f"{pilot:,}" if target.rule == "width"
                                                               else "all of them"))
            manifest = play(held, progress=meter)
            sample = pilot if target.rule == "width" else held
            rep = report(limit=pilot) if target.rule == "width" else report()
        else:
            manifest = play(pilot, progress=meter)
            sample = pilot
            rep = report()
        plan = {"rule": target.rule, "pilot": pilot, "sample": sample, "stats": target.stats(rep),
                "rate": _rate(meter, manifest), "pilot_state": target.state(rep)}
        held = int(manifest["hands"])
    need = target.needed(plan)
    total, capped_by = max(pilot, need), None
    if cap is not None and total > cap:
        total, capped_by = max(pilot, cap), "max_walls"
    wps = plan["rate"].get("walls_per_second")
    if max_minutes is not None:
        if not wps:
            raise ExperimentError("--max-minutes needs the pilot's rate, which was not measured: "
                                  "give --max-walls instead")
        budget = pilot + math.floor(max_minutes * 60 * wps)
        if total > budget:
            total, capped_by = budget, "max_minutes"
    more = held > total
    total = max(total, held)
    forecast = (total - pilot) / wps if wps else None     # kept to 3 figures below: 0.03 s is not "0"
    plan.update({("width" if target.rule == "width" else "relative"): getattr(target, target.rule),
                 "max_walls": cap, "max_minutes": max_minutes, "needed": need, "planned": total,
                 "capped_by": capped_by, "forecast_seconds": None if forecast is None else float(f"{forecast:.3g}")})
    if notice:
        cpu = plan["rate"].get("cpu_per_wall")
        at = (f" at the pilot's {wps:,.0f} {target.unit}/s" + (f" ({1000 * cpu:.2f} ms of CPU a wall)"
                                                              if cpu and target.rule == "width" else "")
              if wps else "")
        cap_text = (f" (capped by {target.cap_option} {cap:,})" if capped_by == "max_walls" else
                    f" (capped by --max-minutes {max_minutes:g})" if capped_by == "max_minutes" else "")
        head = (f"pilot: {pilot:,} {target.unit}, {plan['pilot_state']}; " if not resumed else
                f"resuming the second stage planned from a pilot of {pilot:,} {target.unit}: ")
        done = _done(exp_dir) if resumed else pilot
        if total > pilot and resumed and done > pilot:
            left = (total - done) / wps if wps else None
            notice(head + f"planned {total:,} {target.unit} for {target.goal()}{cap_text}; {done:,} played, "
                   f"the other {total - done:,} take about {duration(left)}{at}")
        elif total > pilot:
            notice(head + f"planned {total:,} {target.unit} for {target.goal()}{cap_text}"
                   + (f" (the directory already holds {held:,})" if more else "")
                   + f"; the second stage, {total - pilot:,} {target.unit}, takes about {duration(forecast)}{at}")
        else:
            notice(head + f"the pilot is enough for {target.goal()}")
    _record_plan(exp_dir, plan)
    t0 = time.perf_counter()
    play(total, progress=_stage_log(log, total, target.unit) if log and total > pilot else None,
         before=lambda m: m.__setitem__("until_plan", plan))
    if log and total > pilot:
        log(f"second stage: {total - pilot:,} {target.unit}" + (" (resumed)" if resumed else "")
            + f", this session {duration(time.perf_counter() - t0)}"
            + (f" (forecast {duration(forecast)})" if forecast is not None and not resumed else "")
            + f"; {target.state(report())}")
    return plan


def _done(exp_dir: Path) -> int:
    """How far the experiment in ``exp_dir`` got, in its --hands unit (complete chunks only)."""
    from experiments.execute import read_manifest, walls_held

    return walls_held(exp_dir, read_manifest(exp_dir))


def _record_plan(exp_dir: Path, plan: dict) -> None:
    """Keep the plan in experiment.json before the second stage, the experiment marked incomplete
    while it holds fewer walls than planned (a report then says so and shows the plan)."""
    from simcore.runs import files

    from experiments.execute import MANIFEST, ExperimentError, read_manifest

    with files.ManagedDir(exp_dir, "experiment directory", MANIFEST, ".experiment.lock", ExperimentError):
        manifest = read_manifest(exp_dir)
        manifest["until_plan"] = plan
        manifest.pop("until", None)      # the record of runs before plans were kept
        if plan["planned"] > int(manifest["hands"]):
            manifest["complete"] = False
        files.write_json(exp_dir / MANIFEST, manifest, allow_nan=False)


def until_record(plan: dict, rep: dict) -> dict:
    """What a report says of a run that stopped at the precision asked: the plan, what was played,
    and per arm (cell) whether it got there; the keys of the record before plans were kept, and
    the plan's forecast and rate."""
    common = {"capped": plan.get("capped_by") is not None, "capped_by": plan.get("capped_by"),
              "max_minutes": plan.get("max_minutes"), "forecast_seconds": plan.get("forecast_seconds"),
              "rate": plan.get("rate")}
    if plan["rule"] == "width":
        w = widths(rep)
        return {"width": plan["width"], "max_walls": plan.get("max_walls"), "pilot_walls": plan["pilot"],
                "planned_walls": plan["planned"], "walls": rep["walls"], **common,
                "reached": {a: x <= plan["width"] for a, x in w.items()}, "widths": w}
    return {"relative": plan["relative"], "max_hands": plan.get("max_walls"), "pilot_hands": plan["pilot"],
            "planned_hands": plan["planned"], "hands": rep["hands"], **common,
            "reached": {c["cell"]: rate_reached(c, plan["relative"]) for c in rep["cells"]}}


def plan_text(plan: dict) -> str:
    """The plan in a few words, for the line that says an experiment is incomplete."""
    goal = f"width {plan['width']:g}" if plan["rule"] == "width" else f"pig rates within {plan['relative']:.0%}"
    unit = "walls" if plan["rule"] == "width" else "--hands"
    return (f"until {goal}: {plan['planned']:,} {unit} planned from a pilot of {plan['pilot']:,}, the second stage "
            f"about {duration(plan.get('forecast_seconds'))} at the pilot's rate")
