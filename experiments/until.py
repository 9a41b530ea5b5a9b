"""Runs that stop at the precision asked (README: Runs that stop at the precision asked).

``--until-width W``: a pilot of the walls asked (``--hands``), then one second stage fixed by the
pilot: the walls every arm's main interval needs for full width W at the pilot's standard
deviation, times a margin for the error of that estimate, capped by ``--max-walls``. The stage is
played in a few rounds only to show the width as it narrows; the rounds never stop it early
(stopping at the first round whose interval is narrow enough would make the intervals too
short). The rule's coverage is tested (``tests/experiments/test_until.py``) on heavy-tailed
differences like the engine's.
"""

from __future__ import annotations

import math
from typing import Callable

from simcore.runs.analysis import Z95

MARGIN = 1.2       # walls planned = MARGIN x the pilot's estimate of the walls needed
ROUNDS = 4         # the second stage's checkpoints (progress only)


def planned_walls(sds, width: float, pilot: int, max_walls: int | None = None) -> tuple[int, bool]:
    """The walls to play in all, from the pilot's standard deviations of the per-wall differences,
    and whether ``max_walls`` capped them."""
    need = max((math.ceil(MARGIN * (2 * Z95 * sd / width) ** 2) for sd in sds if sd == sd), default=pilot)
    total = max(pilot, need)
    if max_walls is not None and total > max_walls:
        return max(pilot, max_walls), True
    return total, False


def widths(rep: dict) -> dict[str, float]:
    """Each compared arm's main interval's full width (the reference arm has none)."""
    return {r["arm"]: r["diff_high"] - r["diff_low"] for r in rep["rows"]
            if not r.get("reference") and r.get("diff_high") is not None and r.get("diff_low") is not None}


def run_until(play: Callable[[int], dict], width: float, pilot: int, max_walls: int | None,
              log: Callable[[str], None] | None = None) -> dict:
    """Play ``play(walls)`` (which extends the experiment to ``walls`` and returns its report) for
    the pilot, then the fixed second stage; returns the record the report and JSON keep."""
    rep = play(pilot)
    sds = [r["sd_diff"] for r in rep["rows"] if not r.get("reference") and r.get("sd_diff") is not None]
    total, capped = planned_walls(sds, width, pilot, max_walls)
    if log:
        log(f"pilot: {pilot:,} walls, widest interval {_widest(rep)}; planned {total:,} walls for width {width:g}"
            + (f" (capped by --max-walls {max_walls:,})" if capped else ""))
    done = pilot
    for k in range(1, ROUNDS + 1):
        walls = pilot + math.ceil((total - pilot) * k / ROUNDS)
        if walls <= done:
            continue
        rep = play(walls)
        done = walls
        if log:
            log(f"  {walls:,} of {total:,} walls: widest interval {_widest(rep)}")
    w = widths(rep)
    return {"width": width, "max_walls": max_walls, "pilot_walls": pilot, "planned_walls": total, "capped": capped,
            "walls": done, "reached": {a: x <= width for a, x in w.items()}, "widths": w}


def _widest(rep: dict) -> str:
    w = widths(rep)
    if not w:
        return "n/a"
    arm = max(w, key=w.get)
    return f"{w[arm]:.4f} ({arm})"
