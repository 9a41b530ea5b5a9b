"""The cells report as computed before it streamed (the oracle of tests/experiments/test_experiments.py).

Per-cell statistics of a ``cells`` experiment: flower pigs, spread of net, matches, payments,
fan patterns, how hands end (the last two written for the oracle, from whole tables with pandas).

Sections (a spec's ``show`` picks which are computed and printed):

- ``pigs``: flower-pig rate per seat-hand and per checked seat-hand (seats checked at an
  exhausted wall) with Wilson 95% intervals (over the effective sample size, see
  :func:`wilson_clustered`: the four seats of a hand share its wall); a pig's net in its pig hand (mean, normal 95%
  interval over pig seat-hands); the penalty it paid; the cost per seat-hand, i.e. rate x mean
  penalty (interval: the Wilson bounds x the mean penalty).
- ``spread``: net per seat-hand: mean, standard deviation, quantiles. The interval of the
  standard deviation is clustered on the hand (the four nets of a hand are dependent): the
  variance is the mean over hands of the hand's mean squared deviation, with a normal 95%
  interval over hands, and the bounds' square roots bound the SD.
- ``matches``: the same for a seat's total over a match (match mode), or over a block of
  ``hands_per_match`` consecutive independent hands (hands mode); the share of seat-matches
  losing ``loss_threshold`` points or more, with a Wilson 95% interval over the effective
  sample size (clustered on the match: the four totals of a match sum to zero).
- ``reasons``: the share of all points paid for each payment reason (ratio of sums over hands,
  95% delta-method interval clustered on the hand) and the points per hand moved by each.
- ``patterns``: of all wins, the share in which each fan pattern scores (fan > 0), Wilson 95%
  over the effective sample size clustered on the hand; the mean base of those wins and of all
  wins, a ratio of per-hand sums with a 95% delta-method interval clustered on the hand.
- ``ends``: the share of hands ending with the wall exhausted (Wilson 95%); the points moved per
  hand, net (half the sum of |net| over the four seats), mean with a normal 95% interval, SD.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.contract import records
from simcore.runs.analysis import Z95, mean_ci, wilson
from simcore.contract.evaluate import PATTERNS

from experiments.execute import ExperimentError, read_manifest, run_dirs
from tests.support.summary_oracle import load_complete_run

REASONS = records.REASONS
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)

DEFINITIONS = {
    "pigs": "pig rate per seat-hand (and per seat-hand checked at an exhausted wall), Wilson 95% "
            "(effective n = n / design effect of the hand, >= 1); "
            "a pig's net in that hand, normal 95%; cost per seat-hand = rate x mean penalty paid",
    "spread": "SD of net per seat-hand; 95% interval clustered on the hand",
    "matches": "a seat's total over a match (or a block of independent hands); SD clustered on the match; "
               "P(total <= -threshold), Wilson 95% (effective n = n / design effect of the match, >= 1)",
    "reasons": "share of all points paid, by payment reason; 95% delta-method interval clustered on the hand",
    "patterns": "share of all wins in which each fan pattern scores (fan > 0), Wilson 95% (effective n = wins / "
                "design effect of the hand, >= 1); mean base of those wins and of all wins, a ratio of sums over "
                "hands with a 95% delta-method interval clustered on the hand",
    "ends": "share of hands ending with the wall exhausted, Wilson 95%; points moved per hand, net = half the sum "
            "of |net| over the four seats, mean with a normal 95% interval over hands",
}


def _f(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _mean_ci(x: np.ndarray) -> tuple:
    return tuple(_f(v) for v in mean_ci(x))


def _wilson(k: float, n: float) -> tuple:
    return tuple(_f(v) for v in wilson(k, n))


def wilson_clustered(hit: np.ndarray, groups: np.ndarray) -> dict:
    """A rate with a Wilson 95% interval over an effective sample size: ``n / deff``, where the
    design effect ``deff`` (at least 1) is the variance of the rate clustered on ``groups``
    (contiguous codes 0..G-1, e.g. the hand) over its binomial variance. With independent
    units deff is about 1 and this is the plain Wilson interval."""
    n = len(hit)
    k = int(hit.sum())
    deff = 1.0
    if 0 < k < n:
        p = k / n
        sizes = np.bincount(groups)
        resid = np.bincount(groups, weights=hit.astype(float)) - p * sizes
        g = len(sizes)
        var_cl = g / max(g - 1, 1) * float((resid ** 2).sum()) / n ** 2
        deff = max(1.0, var_cl / (p * (1 - p) / n))
    rate, lo, hi = _wilson(k / deff, n / deff)
    return {"k": k, "n": n, "rate": _f(k / n) if n else None, "low": lo, "high": hi, "deff": _f(deff)}


def _sd_clustered(values: np.ndarray, groups: np.ndarray) -> dict:
    """SD of ``values`` with a 95% interval clustered on ``groups`` (contiguous codes 0..G-1)."""
    n = len(values)
    if n < 2:
        return {"sd": None, "sd_low": None, "sd_high": None}
    dev2 = (values - values.mean()) ** 2
    g = np.bincount(groups, weights=dev2) / np.bincount(groups)
    var = float(dev2.sum() / (n - 1))
    _, lo, hi = _mean_ci(g)
    scale = n / (n - 1)
    return {"sd": _f(math.sqrt(var)),
            "sd_low": _f(math.sqrt(max(0.0, lo * scale))) if lo is not None else None,
            "sd_high": _f(math.sqrt(hi * scale)) if hi is not None else None}


def _quantiles(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {f"q{int(q * 100):02d}": None for q in QUANTILES} | {"min": None, "max": None}
    qs = np.quantile(values, QUANTILES, method="inverted_cdf")
    d = {f"q{int(q * 100):02d}": _f(v) for q, v in zip(QUANTILES, qs)}
    d["min"] = _f(values.min())
    d["max"] = _f(values.max())
    return d


def pig_stats(seats: pd.DataFrame) -> dict:
    n = len(seats)
    pig = seats["flower_pig"].fillna(False).astype(bool).to_numpy()
    checked = int(seats["flower_pig"].notna().sum())
    k = int(pig.sum())
    groups = pd.factorize(seats["hand"], sort=False)[0]
    w = wilson_clustered(pig, groups)
    rate, lo, hi = w["rate"], w["low"], w["high"]
    is_checked = seats["flower_pig"].notna().to_numpy()
    wc = wilson_clustered(pig[is_checked], pd.factorize(seats["hand"].to_numpy()[is_checked], sort=False)[0])
    crate, clo, chi = wc["rate"], wc["low"], wc["high"]
    pig_net = seats["net"].to_numpy()[pig].astype(float)
    penalty = -seats["net_flower_pig"].to_numpy()[pig].astype(float)
    mean_pen = float(penalty.mean()) if k else math.nan
    net_mean, net_lo, net_hi = _mean_ci(pig_net) if k else (None, None, None)
    return {
        "seat_hands": n, "checked": checked, "pigs": k,
        "rate": rate, "rate_low": lo, "rate_high": hi, "deff": w["deff"],
        "rate_checked": crate, "rate_checked_low": clo, "rate_checked_high": chi,
        "pig_net": net_mean, "pig_net_low": net_lo, "pig_net_high": net_hi,
        "penalty": _f(mean_pen),
        "cost_per_seat_hand": _f(k * mean_pen / n) if k else (0.0 if n else None),
        "cost_low": _f(lo * mean_pen) if k and lo is not None else (0.0 if n else None),  # 0 pigs: no penalty seen
        "cost_high": _f(hi * mean_pen) if k and hi is not None else None,
    }


def spread_stats(seats: pd.DataFrame) -> dict:
    net = seats["net"].to_numpy().astype(float)
    groups = pd.factorize(seats["hand"], sort=False)[0]
    d = {"seat_hands": len(net), "mean": _f(net.mean()) if len(net) else None}
    d.update(_sd_clustered(net, groups))
    d.update(_quantiles(net))
    d["mean_abs"] = _f(np.abs(net).mean()) if len(net) else None
    return d


def match_totals(seats: pd.DataFrame, hands_per_match: int) -> pd.DataFrame:
    """A seat's total per match (match mode) or per block of consecutive independent hands."""
    if seats["match"].notna().any():
        key = seats["match"].astype(np.int64)
    else:
        key = seats["hand"] // hands_per_match
    t = seats.assign(match=key).groupby(["match", "seat"], sort=True)["net"].agg(["sum", "size"]).reset_index()
    t = t[t["size"] == hands_per_match]  # an incomplete trailing block of independent hands is left out
    return t.rename(columns={"sum": "total"})[["match", "seat", "total"]]


def match_stats(seats: pd.DataFrame, hands_per_match: int, threshold: int) -> dict:
    t = match_totals(seats, hands_per_match)
    tot = t["total"].to_numpy().astype(float)
    groups = pd.factorize(t["match"], sort=False)[0]
    matches = int(groups.max() + 1) if len(groups) else 0
    lose = tot <= -threshold
    k = int(lose.sum())
    d = {"kind": "matches" if seats["match"].notna().any() else "blocks", "hands_per_match": hands_per_match,
         "matches": matches, "seat_matches": len(tot), "mean": _f(tot.mean()) if len(tot) else None}
    d.update(_sd_clustered(tot, groups))
    d.update(_quantiles(tot))
    d["threshold"] = threshold
    d["losers"] = k
    w = wilson_clustered(lose, groups)
    d["loss_rate"], d["loss_low"], d["loss_high"], d["loss_deff"] = w["rate"], w["low"], w["high"], w["deff"]
    return d


def reason_stats(payments: pd.DataFrame, hand_ids: np.ndarray) -> dict:
    n = len(hand_ids)
    pos = np.searchsorted(hand_ids, payments["hand"].to_numpy())
    amount = payments["amount"].to_numpy().astype(float)
    reason = payments["reason"].astype(str).to_numpy()
    y = np.bincount(pos, weights=amount, minlength=n)
    total = float(y.sum())
    out = {"hands": n, "points_per_hand": _f(total / n) if n else None, "reasons": {}}
    for r in REASONS:
        mask = reason == r
        x = np.bincount(pos[mask], weights=amount[mask], minlength=n)
        sx = float(x.sum())
        share = sx / total if total > 0 else math.nan
        if total > 0 and n > 1:
            resid = x - share * y
            se = math.sqrt(float(resid.var(ddof=1)) / n) / (total / n)
            lo, hi = share - Z95 * se, share + Z95 * se
        else:
            lo = hi = math.nan
        out["reasons"][r] = {"share": _f(share), "share_low": _f(max(0.0, lo)), "share_high": _f(min(1.0, hi)),
                             "points_per_hand": _f(sx / n) if n else None, "payments": int(mask.sum())}
    return out


def _ratio_ci(x: pd.Series, y: pd.Series) -> tuple:
    """sum(x) / sum(y) over hands (every hand, zeros included) with the delta-method 95% interval."""
    n, sy = len(x), float(y.sum())
    if sy <= 0:
        return (None, None, None)
    r = float(x.sum()) / sy
    if n < 2:
        return (_f(r), None, None)
    se = math.sqrt(float((x - r * y).var(ddof=1)) / n) / (sy / n)
    return (_f(r), _f(r - Z95 * se), _f(r + Z95 * se))


def pattern_stats(wins: pd.DataFrame, hand_ids: np.ndarray) -> dict:
    n = len(hand_ids)
    per_hand = lambda col: wins.groupby("hand")[col].sum().reindex(hand_ids, fill_value=0)  # noqa: E731
    w = wins.assign(one=1)
    count = w.groupby("hand")["one"].sum().reindex(hand_ids, fill_value=0)
    base, lo, hi = _ratio_ci(per_hand("base"), count)
    out = {"hands": n, "wins": len(wins), "wins_per_hand": _f(len(wins) / n) if n else None,
           "base": base, "base_low": lo, "base_high": hi, "patterns": {}}
    groups = pd.factorize(wins["hand"], sort=False)[0]
    for p in PATTERNS:
        has = (wins[p].fillna(0) > 0).to_numpy()
        wc = wilson_clustered(has, groups)
        sub = w[has]
        b, blo, bhi = _ratio_ci(sub.groupby("hand")["base"].sum().reindex(hand_ids, fill_value=0),
                                sub.groupby("hand")["one"].sum().reindex(hand_ids, fill_value=0))
        out["patterns"][p] = {"wins": int(has.sum()), "share": wc["rate"], "share_low": wc["low"],
                              "share_high": wc["high"], "deff": wc["deff"], "base": b, "base_low": blo,
                              "base_high": bhi}
    return out


def end_stats(hands: pd.DataFrame, seats: pd.DataFrame) -> dict:
    n = len(hands)
    k = int((hands["end_reason"].astype(str) == "wall_exhausted").sum())
    rate, lo, hi = _wilson(k, n)
    moved = seats["net"].abs().groupby(seats["hand"]).sum() / 2
    m, mlo, mhi = _mean_ci(moved.to_numpy(float))
    return {"hands": n, "wall_exhausted": k, "rate": rate, "rate_low": lo, "rate_high": hi,
            "net_moved": m, "net_moved_low": mlo, "net_moved_high": mhi,
            "net_moved_sd": _f(moved.std(ddof=1))}


def cell_stats(run_dir: Path, sections, threshold: int, expect_hands: int) -> dict:
    cols = {"seats": ["hand", "match", "seat", "net", "flower_pig", "net_flower_pig"],
            "hands": ["hand", "end_reason"], "payments": ["hand", "amount", "reason"],
            "wins": ["hand", "base", *PATTERNS]}
    run = load_complete_run(run_dir, cols, expect_hands)
    cfg = run.manifest["config"]
    hpm = int(cfg["rules"]["options"]["hands_per_match"])
    hands = np.sort(run.hands["hand"].to_numpy())
    d = {"hands": len(hands),
         "wall_exhausted": _f((run.hands["end_reason"].astype(str) == "wall_exhausted").mean()) if len(hands) else None}
    if "pigs" in sections:
        d["pigs"] = pig_stats(run.seats)
    if "spread" in sections:
        d["spread"] = spread_stats(run.seats)
    if "matches" in sections:
        d["matches"] = match_stats(run.seats, hpm, threshold)
    if "reasons" in sections:
        d["reasons"] = reason_stats(run.payments, hands)
    if "patterns" in sections:
        d["patterns"] = pattern_stats(run.wins, hands)
    if "ends" in sections:
        d["ends"] = end_stats(run.hands, run.seats)
    return d


def cells_report(exp_dir, manifest: dict | None = None) -> dict:
    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    spec = manifest["spec"]
    if spec["kind"] != "cells":
        raise ExperimentError(f"{exp_dir} holds a {spec['kind']} experiment, not a cells one")
    dirs = run_dirs(exp_dir, manifest)
    show = spec.get("show", list(DEFINITIONS))
    rows = []
    for c in spec["cells"]:
        entry = manifest["layout"][c["name"]]
        stats = cell_stats(dirs[c["name"]], show, int(spec.get("loss_threshold", 50)), int(entry["hands"]))
        rows.append({"cell": c["name"], "labels": c["labels"], "seats": c["seats"], "rules": c["rules_label"],
                     "preset": c["rules"]["preset"], "mode": c["mode"], **stats})
    return {
        "kind": "cells", "name": spec["name"], "description": spec.get("description", ""),
        "seed": manifest["seed"], "hands": manifest["hands"], "show": show,
        "loss_threshold": spec.get("loss_threshold", 50),
        "hands_played": sum(r["hands"] for r in rows),
        "cells": rows, "definitions": {k: DEFINITIONS[k] for k in show},
    }
