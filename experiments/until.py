"""Runs that stop at the precision asked (README: Cheaper duplicate answers).

``--until-width W``: a pilot of the walls asked (``--hands``), then one second stage fixed by the
pilot: the walls every arm's main interval needs for full width W at the pilot's standard
deviation, times a margin for the error of that estimate, capped by ``--max-walls``. The stage is
played in a few rounds only to show the width as it narrows; the rounds never stop it early
(stopping at the first round whose interval is narrow enough would make the intervals too
short). The rule's coverage is tested (``tests/experiments/test_until.py``) on heavy-tailed
differences like the engine's.

``until_relative = R`` in a cells spec does the same for rates: the pilot's pig rate of each cell
(at least one pig's worth, when it saw none) and its design effect say how many seat-hands put
the Wilson 95% half-width within R of the rate; every cell scales with ``--hands``, so the second
stage scales them all by the largest factor any cell needs, capped by ``max_hands``.
"""

from __future__ import annotations

import math
from typing import Callable

from simcore.runs.analysis import Z95

MARGIN = 1.2       # walls planned = MARGIN x the pilot's estimate of the walls needed
ROUNDS = 4         # the second stage's checkpoints (progress only)


def _capped(total: int, pilot: int, cap: int | None) -> tuple[int, bool]:
    """``total`` held to ``cap`` (never below the pilot), and whether the cap held it."""
    if cap is not None and total > cap:
        return max(pilot, cap), True
    return total, False


def _second_stage(play: Callable[[int], dict], rep: dict, pilot: int, total: int,
                  progress: Callable[[int, dict], None] | None) -> tuple[dict, int]:
    """Extend from the pilot to ``total`` in ``ROUNDS`` checkpoints (each reported to ``progress``
    with its report; they never stop the stage); returns the last report and its size."""
    done = pilot
    for k in range(1, ROUNDS + 1):
        n = pilot + math.ceil((total - pilot) * k / ROUNDS)
        if n <= done:
            continue
        rep = play(n)
        done = n
        if progress:
            progress(n, rep)
    return rep, done


def planned_walls(sds, width: float, pilot: int, max_walls: int | None = None) -> tuple[int, bool]:
    """The walls to play in all, from the pilot's standard deviations of the per-wall differences,
    and whether ``max_walls`` capped them."""
    need = max((math.ceil(MARGIN * (2 * Z95 * sd / width) ** 2) for sd in sds if sd == sd), default=pilot)
    return _capped(max(pilot, need), pilot, max_walls)


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
    rep, done = _second_stage(play, rep, pilot, total, None if log is None else lambda n, r: log(
        f"  {n:,} of {total:,} walls: widest interval {_widest(r)}"))
    w = widths(rep)
    return {"width": width, "max_walls": max_walls, "pilot_walls": pilot, "planned_walls": total, "capped": capped,
            "walls": done, "reached": {a: x <= width for a, x in w.items()}, "widths": w}


def _widest(rep: dict) -> str:
    w = widths(rep)
    if not w:
        return "n/a"
    arm = max(w, key=w.get)
    return f"{w[arm]:.4f} ({arm})"


def planned_hands(cells: list[dict], relative: float, pilot: int, max_hands: int | None = None) -> tuple[int, bool]:
    """The ``--hands`` to play in all for every cell's pig rate to reach a 95% half-width of
    ``relative`` times the rate, from the pilot's pig stats (``cells`` rows), and whether
    ``max_hands`` capped it."""
    factor = 0.0
    for c in (c["pigs"] for c in cells):
        n, k = c.get("seat_hands") or 0, c.get("pigs") or 0
        if not n:
            continue
        p = max(k, 1) / n
        need = (c.get("deff") or 1.0) * (Z95 / relative) ** 2 * (1 - p) / p
        factor = max(factor, need / n)
    return _capped(max(pilot, math.ceil(MARGIN * factor * pilot)), pilot, max_hands)


def rate_reached(c: dict, relative: float) -> bool:
    """Whether a cell's pig rate has a 95% interval of half-width within ``relative`` of it."""
    c = c["pigs"]
    if not c.get("pigs") or c.get("rate_low") is None or c.get("rate_high") is None:
        return False
    return (c["rate_high"] - c["rate_low"]) / 2 <= relative * c["rate"]


def run_until_relative(play: Callable[[int], dict], relative: float, pilot: int, max_hands: int | None,
                       log: Callable[[str], None] | None = None) -> dict:
    """As :func:`run_until`, for a cells experiment's pig rates."""
    rep = play(pilot)
    total, capped = planned_hands(rep["cells"], relative, pilot, max_hands)
    if log:
        log(f"pilot: --hands {pilot:,}, {_unreached(rep, relative)}; planned --hands {total:,} for every pig rate "
            f"within {relative:.0%}" + (f" (capped by the maximum {max_hands:,})" if capped else ""))
    rep, done = _second_stage(play, rep, pilot, total, None if log is None else lambda n, r: log(
        f"  --hands {n:,} of {total:,}: {_unreached(r, relative)}"))
    return {"relative": relative, "max_hands": max_hands, "pilot_hands": pilot, "planned_hands": total,
            "capped": capped, "hands": done, "reached": {c["cell"]: rate_reached(c, relative) for c in rep["cells"]}}


def _unreached(rep: dict, relative: float) -> str:
    n = sum(not rate_reached(c, relative) for c in rep["cells"])
    return f"{n} of {len(rep['cells'])} cells' pig rates not yet within {relative:.0%}"
