"""An oracle for ``experiments.cells`` (tests/experiments/test_experiments.py): a cell's statistics
computed from their definitions on the whole run, loaded in pandas, without the report's code.
The report streams exact integer sums chunk by chunk; this groups whole tables and applies the
textbook formulas, so the two agree only where both follow the definitions.

Every interval here is one of three estimators:

- a mean with the normal 95% interval ``mean +- z sd / sqrt(n)``;
- a ratio of sums over clusters ``r = sum(x) / sum(y)`` with its cluster-robust (sandwich)
  variance ``G / (G - 1) * sum over clusters of (x - r y)^2 / sum(y)^2`` (G clusters), the
  interval ``r +- z se``;
- a proportion of units that fall in clusters (seats in a hand, wins in a hand, seats in a
  match): the ratio of hits to units over clusters, whose design effect ``deff`` is its sandwich
  variance over the binomial ``p (1 - p) / n`` (at least 1); the Wilson score interval is taken
  at the effective size ``n / deff``.

``z`` is the standard normal's 97.5% point, from the standard library.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from simcore.contract.evaluate import PATTERNS
from simcore.contract.records import REASONS
from tests.support.summary_oracle import load_whole

Z = NormalDist().inv_cdf(0.975)
QUANTILE_LEVELS = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
NONE3 = (None, None, None)


def _num(x):
    """A figure as the report gives it: a float, None where there is none (NaN or infinite)."""
    if x is None or not np.isfinite(x):
        return None
    return float(x)


def _triple(prefix: str, ci) -> dict:
    """``prefix``, ``prefix_low``, ``prefix_high`` of a (value, low, high)."""
    return dict(zip((prefix, f"{prefix}_low", f"{prefix}_high"), (_num(v) for v in ci)))


def normal_ci(values) -> tuple:
    """(mean, low, high): the normal 95% interval of the mean; no bounds from fewer than 2 values."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return NONE3
    if v.size == 1:
        return v[0], None, None
    half = Z * v.std(ddof=1) / math.sqrt(v.size)
    return v.mean(), v.mean() - half, v.mean() + half


def sandwich(x: pd.Series, y: pd.Series) -> tuple[float, float]:
    """(r, se) of r = sum(x) / sum(y), one entry per cluster; se NaN with fewer than 2 clusters."""
    r = x.sum() / y.sum()
    g = len(x)
    if g < 2:
        return r, math.nan
    return r, math.sqrt(g / (g - 1) * float(((x - r * y) ** 2).sum())) / y.sum()


def ratio_ci(x: pd.Series, y: pd.Series) -> tuple:
    """(r, low, high) of sum(x) / sum(y) over clusters; nothing without any y."""
    if y.sum() <= 0:
        return NONE3
    r, se = sandwich(x.astype(float), y.astype(float))
    return r, r - Z * se, r + Z * se


def wilson_bounds(p: float, n: float) -> tuple[float, float]:
    """The Wilson score 95% interval of a proportion p seen over n trials (n may be effective):
    its ends are exactly 0 when p is 0 and exactly 1 when p is 1."""
    shrink = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / shrink
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / shrink
    return (0.0 if p == 0 else max(0.0, centre - half)), (1.0 if p == 1 else min(1.0, centre + half))


def clustered_rate(hit, cluster) -> dict:
    """The share of units that hit, units in clusters (codes, one per unit): its count, units,
    Wilson bounds at the effective size and design effect."""
    per = pd.DataFrame({"hit": np.asarray(hit, dtype=np.int64), "cluster": np.asarray(cluster)})
    per = per.groupby("cluster")["hit"].agg(["sum", "count"])
    k, n = int(per["sum"].sum()), int(per["count"].sum())
    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "low": None, "high": None, "deff": 1.0}
    p = k / n
    deff = 1.0
    if 0 < k < n:
        _, se = sandwich(per["sum"].astype(float), per["count"].astype(float))
        if not math.isnan(se):
            deff = max(1.0, se * se / (p * (1 - p) / n))
    low, high = wilson_bounds(p, n / deff)
    return {"k": k, "n": n, "rate": p, "low": low, "high": high, "deff": deff}


def sd_clustered(values: pd.Series, cluster) -> dict:
    """The SD of the values, and its 95% interval clustered on ``cluster``: each cluster's mean
    squared deviation from the overall mean, their normal interval over clusters, times
    n / (n - 1), square-rooted."""
    n = len(values)
    if n < 2:
        return dict.fromkeys(("sd", "sd_low", "sd_high"))
    dev2 = (values.astype(float) - values.mean()) ** 2
    _, low, high = normal_ci(dev2.groupby(np.asarray(cluster)).mean())
    scale = n / (n - 1)
    return {"sd": _num(values.std(ddof=1)),
            "sd_low": None if low is None else math.sqrt(max(0.0, low * scale)),
            "sd_high": None if high is None else math.sqrt(high * scale)}


def quantiles(values: pd.Series) -> dict:
    """The smallest value whose cumulative share reaches each level, and the extremes."""
    names = [f"q{round(q * 100):02d}" for q in QUANTILE_LEVELS] + ["min", "max"]
    if len(values) == 0:
        return dict.fromkeys(names)
    ordered = np.sort(values.to_numpy())
    picks = [ordered[max(1, math.ceil(Fraction(str(q)) * len(ordered))) - 1] for q in QUANTILE_LEVELS]
    return dict(zip(names, (float(v) for v in [*picks, ordered[0], ordered[-1]])))


def pigs(seats: pd.DataFrame) -> dict:
    pig = seats["flower_pig"].fillna(False).astype(bool)
    checked = seats["flower_pig"].notna()
    every = clustered_rate(pig, seats["hand"])
    some = clustered_rate(pig[checked], seats.loc[checked, "hand"])
    paid = -seats.loc[pig, "net_flower_pig"].astype(float)
    n, k = len(seats), int(pig.sum())
    out = {"seat_hands": n, "checked": int(checked.sum()), "pigs": k, "deff": every["deff"]}
    out |= _triple("rate", (every["rate"], every["low"], every["high"]))
    out |= _triple("rate_checked", (some["rate"], some["low"], some["high"]))
    out |= _triple("pig_net", normal_ci(seats.loc[pig, "net"]))
    # the cost of pigs per seat-hand: what they paid over every seat-hand; with no pig seen,
    # none paid (0) and no bound above
    mean_paid = paid.mean() if k else None
    if k:
        cost = (paid.sum() / n, every["low"] * mean_paid, every["high"] * mean_paid)
    else:
        cost = (0.0, 0.0, None) if n else NONE3
    out |= dict(zip(("cost_per_seat_hand", "cost_low", "cost_high"), map(_num, cost)))
    out["penalty"] = _num(mean_paid)
    return out


def spread(seats: pd.DataFrame) -> dict:
    net = seats["net"].astype(float)
    return {"seat_hands": len(net), "mean": _num(net.mean()) if len(net) else None,
            "mean_abs": _num(net.abs().mean()) if len(net) else None,
            **sd_clustered(net, seats["hand"]), **quantiles(net)}


def blocks(seats: pd.DataFrame, per_block: int) -> pd.DataFrame:
    """A seat's total over each match (match play) or each run of ``per_block`` consecutive
    independent hands: one row per complete block (all its hands in the run), a column per seat."""
    key = seats["match"] if seats["match"].notna().any() else seats["hand"] // per_block
    complete = seats.groupby(key)["hand"].nunique() == per_block
    totals = seats.pivot_table(index=key, columns="seat", values="net", aggfunc="sum")
    return totals[complete.reindex(totals.index)]


def matches(seats: pd.DataFrame, per_block: int, threshold: int) -> dict:
    t = blocks(seats, per_block)
    flat = t.stack()            # (block, seat) -> total
    block_of = flat.index.get_level_values(0)
    lost = clustered_rate(flat <= -threshold, block_of)
    return {"kind": "matches" if seats["match"].notna().any() else "blocks", "hands_per_match": per_block,
            "matches": len(t), "seat_matches": len(flat), "mean": _num(flat.mean()) if len(flat) else None,
            **sd_clustered(flat, block_of), **quantiles(flat),
            "threshold": threshold, "losers": lost["k"], "loss_rate": lost["rate"], "loss_low": lost["low"],
            "loss_high": lost["high"], "loss_deff": lost["deff"]}


def reasons(payments: pd.DataFrame, hands: np.ndarray) -> dict:
    """Each reason's share of all points paid, a ratio of per-hand sums over every hand."""
    by = payments.assign(reason=payments["reason"].astype(str))
    per_hand = (by.groupby(["hand", "reason"])["amount"].sum().unstack(fill_value=0)
                .reindex(index=hands, columns=list(REASONS), fill_value=0).astype(float))
    paid = per_hand.sum(axis=1)
    n = len(hands)
    out = {"hands": n, "points_per_hand": _num(paid.sum() / n) if n else None, "reasons": {}}
    for r in REASONS:
        share, low, high = ratio_ci(per_hand[r], paid)
        out["reasons"][r] = {"share": _num(share), "share_low": None if low is None else _num(max(0.0, low)),
                             "share_high": None if high is None else _num(min(1.0, high)),
                             "points_per_hand": _num(per_hand[r].sum() / n) if n else None,
                             "payments": int((by["reason"] == r).sum())}
    return out


def patterns(wins: pd.DataFrame, hands: np.ndarray) -> dict:
    """Of all wins, the share in which each pattern scores, and the mean base of those wins."""
    n = len(hands)

    def base_of(rows):
        g = rows.groupby("hand")["base"]
        return ratio_ci(g.sum().reindex(hands, fill_value=0), g.size().reindex(hands, fill_value=0))

    out = {"hands": n, "wins": len(wins), "wins_per_hand": _num(len(wins) / n) if n else None,
           **_triple("base", base_of(wins)), "patterns": {}}
    for p in PATTERNS:
        scores = wins[p].fillna(0) > 0
        share = clustered_rate(scores, wins["hand"])
        out["patterns"][p] = {"wins": share["k"], "share": share["rate"], "share_low": share["low"],
                              "share_high": share["high"], "deff": share["deff"],
                              **_triple("base", base_of(wins[scores]))}
    return out


def ends(hands: pd.DataFrame, seats: pd.DataFrame) -> dict:
    n = len(hands)
    k = int((hands["end_reason"].astype(str) == "wall_exhausted").sum())
    moved = seats["net"].abs().groupby(seats["hand"]).sum() / 2
    rate = (k / n, *wilson_bounds(k / n, n)) if n else NONE3
    return {"hands": n, "wall_exhausted": k, **_triple("rate", rate), **_triple("net_moved", normal_ci(moved)),
            "net_moved_sd": _num(moved.std(ddof=1))}


def cell_stats(run_dir, sections, threshold: int, expect_hands: int) -> dict:
    """The statistics of one cell's run, the sections asked for."""
    run_dir = Path(run_dir)
    t = load_whole(run_dir)
    hands, seats = t["hands"], t["seats"]
    assert len(hands) == expect_hands, (run_dir, len(hands), expect_hands)
    per_block = json.loads((run_dir / "run.json").read_text())["config"]["rules"]["options"]["hands_per_match"]
    ids = np.sort(hands["hand"].to_numpy())
    out = {"hands": len(hands),
           "wall_exhausted": _num((hands["end_reason"].astype(str) == "wall_exhausted").mean()) if len(hands) else None}
    compute = {"pigs": lambda: pigs(seats), "spread": lambda: spread(seats),
               "matches": lambda: matches(seats, int(per_block), threshold),
               "reasons": lambda: reasons(t["payments"], ids), "patterns": lambda: patterns(t["wins"], ids),
               "ends": lambda: ends(hands, seats)}
    return out | {s: compute[s]() for s in sections}
