"""An oracle for ``experiments.duplicate`` (tests/experiments/test_experiments.py and
test_sweeps.py): a duplicate experiment's comparison computed from its definitions on whole
tables, in pandas, without the report's code (which streams moments chunk by chunk).

The definitions, for arms A and a reference B:

- A's rotation r is the run with A at seat r (the field elsewhere); every run plays the same
  walls, wall g being hand g of each run.
- A's score on wall g, ``s_A(g)``, is the mean over r of A's net at seat r in rotation r; with
  the luck estimator, of net - luck.
- The paired difference ``d(g) = s_A(g) - s_B(g)``: its mean over walls, with the normal 95%
  interval ``mean +- z sd(d) / sqrt(walls)``.
- Unpaired, each arm would average 4 independent seat-hands a wall: ``var_unpaired = (var_A +
  var_B) / 4``, ``var_X`` the variance of every single-seat net of X's rotations; pairing removes
  ``1 - var(d) / var_unpaired`` of it.
- Walls for an interval of full width W: ``ceil((2 z sd / W)^2)`` (0 when sd is 0); hands: walls
  times the experiment's tables, its distinct runs.

``z`` is the standard normal's 97.5% point, from the standard library.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from tests.support.experiments import assert_close
from tests.support.summary_oracle import load_whole

Z = NormalDist().inv_cdf(0.975)


def _num(x):
    return None if x is None or not np.isfinite(x) else float(x)


def rotations(exp_dir, seats: dict) -> pd.DataFrame:
    """Every arm's own seat-hands: one row per (arm, rotation, wall) with its net and luck (NaN
    where not measured), from ``seats``, each run's seats table."""
    m = json.loads((Path(exp_dir) / "experiment.json").read_text())
    rows = []
    for arm, entry in m["layout"].items():
        for r, run in enumerate(entry["runs"]):
            mine = seats[run][seats[run]["seat"] == r]
            rows.append(pd.DataFrame({"arm": arm, "rotation": r, "wall": mine["hand"].to_numpy(),
                                      "net": mine["net"].to_numpy(np.float64),
                                      "luck": mine["luck"].to_numpy(np.float64) if "luck" in mine else np.nan}))
    return pd.concat(rows, ignore_index=True)


def direct_scores(exp_dir) -> pd.DataFrame:
    """Per-wall arm scores (a column per arm, in the layout's order), each rotation's run checked
    to seat the arm at its seat and the field elsewhere."""
    exp_dir = Path(exp_dir)
    m = json.loads((exp_dir / "experiment.json").read_text())
    out = {}
    for arm, entry in m["layout"].items():
        parts = []
        for r, rel in enumerate(entry["runs"]):
            seats = json.loads((exp_dir / rel / "run.json").read_text())["config"]["seats"]
            assert seats[r] == entry["seat"] and all(s == m["spec"]["field"] for i, s in enumerate(seats) if i != r)
            s = load_whole(exp_dir / rel)["seats"]
            parts.append(s[s["seat"] == r].set_index("hand")["net"].rename(r))
        out[arm] = pd.concat(parts, axis=1).mean(axis=1)
    return pd.DataFrame(out).sort_index()


def _paired(d: pd.Series) -> tuple[float, float, float, float]:
    """(mean, low, high, sd) of a per-wall difference."""
    walls = len(d)
    if walls < 2:
        return d.mean(), math.nan, math.nan, math.nan
    sd = d.std(ddof=1)
    return d.mean(), d.mean() - Z * sd / math.sqrt(walls), d.mean() + Z * sd / math.sqrt(walls), sd


def _walls_for(sd: float, width: float) -> int:
    return 0 if sd == 0 else math.ceil((2 * Z * sd / width) ** 2)


def comparison(exp_dir, vs: str | None = None) -> dict:
    """The figures of the comparison against ``vs`` (default: the spec's baseline): the walls,
    tables, hands played and estimator, and per arm (in the spec's order) its row of figures,
    with ``walls_differed_at_least`` (see :func:`walls_with_other_rows`)."""
    exp_dir = Path(exp_dir)
    m = json.loads((exp_dir / "experiment.json").read_text())
    spec = m["spec"]
    ref = vs or spec["baseline"]
    width = float(spec.get("width", 0.1))
    runs = {r for e in m["layout"].values() for r in e["runs"]}
    seats = {run: load_whole(exp_dir / run)["seats"] for run in runs}
    long = rotations(exp_dir, seats)
    measured = bool(long["luck"].notna().all())
    estimator = "luck" if measured and m.get("estimator") == "luck" else "plain"
    plain = long.pivot_table(index="wall", columns="arm", values="net", aggfunc="mean")
    lucky = long.assign(net=long["net"] - long["luck"]).pivot_table(index="wall", columns="arm", values="net",
                                                                    aggfunc="mean") if measured else None
    tables = len(runs)
    walls = len(plain)
    var_seat = long.groupby("arm")["net"].var(ddof=1)
    rows = []
    for arm in [a["name"] for a in spec["arms"]]:
        p = _paired(plain[arm] - plain[ref])
        c = _paired(lucky[arm] - lucky[ref]) if measured else (math.nan,) * 4
        used = c if estimator == "luck" else p
        score = _paired(plain[arm])
        var_unp = (var_seat[arm] + var_seat[ref]) / 4
        need = _walls_for(used[3], width) if walls > 1 else None
        need_unp = _walls_for(math.sqrt(var_unp), width) if walls > 1 else None
        row = {"score": _num(score[0]), "score_low": _num(score[1]), "score_high": _num(score[2]),
               "var_seat": _num(var_seat[arm]), "var_unpaired": _num(var_unp),
               "unpaired_half_width": _num(Z * math.sqrt(var_unp / walls)) if walls > 1 else None,
               "variance_removed": _num(1 - p[3] ** 2 / var_unp) if var_unp > 0 else None,
               "variance_factor": _num(p[3] ** 2 / c[3] ** 2) if measured and c[3] > 0 else None,
               "walls_needed": need, "walls_needed_unpaired": need_unp,
               "hands_needed": None if need is None else need * tables,
               "hands_needed_unpaired": None if need_unp is None else need_unp * tables,
               "walls_differed_at_least": walls_with_other_rows(exp_dir, m, arm)}
        for name, figures in (("diff", used), ("diff_plain", p), ("diff_luck", c)):
            row |= dict(zip((name, f"{name}_low", f"{name}_high", f"sd_{name}"), map(_num, figures)))
        rows.append(row)
    played = sum(t["hand"].nunique() for t in seats.values())
    return {"walls": walls, "tables": tables, "hands_played": played, "reference": ref, "estimator": estimator,
            "rows": rows}


def walls_with_other_rows(exp_dir: Path, manifest: dict, arm: str) -> int | None:
    """Walls on which some rotation of the arm has a seat row unlike the field's table's (the
    field arm's run, when the spec has one with the same rules): at most the walls on which its
    answers differed (different answers almost always, but not always, change some row)."""
    spec = manifest["spec"]
    field_arm = next((a for a in spec["arms"] if a["seat"] == spec["field"] and
                      a["rules"] == next(b for b in spec["arms"] if b["name"] == arm)["rules"]), None)
    if field_arm is None:
        return None
    skip = {"strategy", "play", "exchange_policy", "void_policy"}

    def rows(run):
        t = pd.concat([pq.read_table(f).to_pandas() for f in sorted((exp_dir / run / "seats").glob("*.parquet"))])
        t = t[[c for c in t.columns if c not in skip]].sort_values(["hand", "seat"])
        return t.astype(object).where(t.notna(), "null").astype(str).to_numpy().reshape(-1, 4 * t.shape[1])

    field = rows(manifest["layout"][field_arm["name"]]["runs"][0])
    differ = np.zeros(len(field), bool)
    for run in manifest["layout"][arm]["runs"]:
        differ |= (rows(run) != field).any(axis=1)
    return int(differ.sum())


def assert_agrees(got: dict, want: dict, where: str = "") -> None:
    """The report ``got`` has the oracle's figures ``want`` (its other keys, names and labels and
    definitions, are bookkeeping). Its walls differed are checked against the oracle's lower
    bound (different answers almost always change some seat row: at most 2% of the walls more),
    its CPU per wall (timings, not results) to be positive."""
    assert_close({k: got[k] for k in want if k != "rows"}, {k: v for k, v in want.items() if k != "rows"}, where)
    assert len(got["rows"]) == len(want["rows"]), where
    for g, w in zip(got["rows"], want["rows"]):
        here = f"{where}.{g['arm']}"
        assert g["reference"] == (g["arm"] == want["reference"]), here
        for k in ("cpu_per_wall_plain", "cpu_per_wall_luck"):
            assert g[k] is None or g[k] > 0, (here, k, g[k])
        least, n = w["walls_differed_at_least"], g["walls_differed"]
        if least is not None and n is not None:
            assert least <= n <= least + 0.02 * got["walls"], (here, least, n)
            assert g["walls_differed_share"] == n / got["walls"], here
        assert_close({k: g[k] for k in w if k != "walls_differed_at_least"},
                     {k: v for k, v in w.items() if k != "walls_differed_at_least"}, here)
