"""Per-cell statistics of a ``cells`` experiment: flower pigs, spread of net, matches, payments,
fan patterns, how hands end.

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
- ``patterns``: of all wins (every win, several per hand in blood flow), the share in which each
  fan pattern scores (its fan > 0), with a Wilson 95% interval over the effective sample size
  (clustered on the hand: the wins of a hand share its wall); the mean base of the wins with
  that pattern, and of all wins (a ratio of sums over hands, 95% delta-method interval
  clustered on the hand, as for ``reasons``); wins per hand.
- ``ends``: the share of hands that end with the wall exhausted (Wilson 95%; hands are
  independent); the points moved per hand, net: half the sum of |net| over the four seats
  (what the hand's losers pay its winners on balance; ``reasons`` counts every payment, gross),
  mean with a normal 95% interval over hands, and its SD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import pyarrow as pa
import pyarrow.compute as pc

from simcore.contract import records
from simcore.runs.analysis import Z95, Moments, codes, wilson
from simcore.contract.evaluate import PATTERNS

from experiments.execute import ExperimentError, check_complete, read_manifest, run_dirs

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


def _wilson(k: float, n: float) -> tuple:
    return tuple(_f(v) for v in wilson(k, n))


@dataclass
class Clustered:
    """A rate over units grouped in clusters (seats in a hand, seats in a match), as sums that
    stream: units ``n``, hits ``k``, clusters ``g``, and over clusters the sums of hits squared,
    of hits times size and of size squared (all integers, so exact)."""

    n: int = 0
    k: int = 0
    g: int = 0
    hh: int = 0
    hs: int = 0
    ss: int = 0

    def add(self, hits: np.ndarray, sizes: np.ndarray) -> None:
        """Clusters' hits and sizes (clusters of size 0 are not clusters)."""
        keep = sizes > 0
        h, z = hits[keep].astype(np.int64), sizes[keep].astype(np.int64)
        self.n += int(z.sum())
        self.k += int(h.sum())
        self.g += int(len(z))
        self.hh += int((h * h).sum())
        self.hs += int((h * z).sum())
        self.ss += int((z * z).sum())

    def wilson(self) -> dict:
        """The rate with a Wilson 95% interval over an effective sample size ``n / deff``, where
        the design effect ``deff`` (at least 1) is the rate's variance clustered on the clusters
        over its binomial variance. With independent units deff is about 1 and this is the plain
        Wilson interval."""
        n, k = self.n, self.k
        deff = 1.0
        if 0 < k < n:
            p = k / n
            resid2 = self.hh - 2 * p * self.hs + p * p * self.ss  # sum over clusters of (hits - p size)^2
            var_cl = self.g / max(self.g - 1, 1) * resid2 / n ** 2
            deff = max(1.0, var_cl / (p * (1 - p) / n))
        rate, lo, hi = _wilson(k / deff, n / deff)
        return {"k": k, "n": n, "rate": _f(k / n) if n else None, "low": lo, "high": hi, "deff": _f(deff)}


def wilson_clustered(hit: np.ndarray, groups: np.ndarray) -> dict:
    """:meth:`Clustered.wilson` of units ``hit`` in clusters ``groups`` (codes 0..G-1)."""
    c = Clustered()
    c.add(np.bincount(groups, weights=hit.astype(np.int64)).astype(np.int64), np.bincount(groups))
    return c.wilson()


@dataclass
class Ratio:
    """A ratio of sums over clusters, sum(x) / sum(y) (e.g. the mean base of wins: x a hand's
    bases, y its wins), streamed as exact integer sums over clusters: their count ``n`` (every
    cluster, those with y = 0 included) and the sums of x, y, x^2, x*y and y^2."""

    n: int = 0
    x: int = 0
    y: int = 0
    xx: int = 0
    xy: int = 0
    yy: int = 0

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        x, y = x.astype(np.int64), y.astype(np.int64)
        self.n += int(len(x))
        self.x += int(x.sum())
        self.y += int(y.sum())
        self.xx += int((x * x).sum())
        self.xy += int((x * y).sum())
        self.yy += int((y * y).sum())

    def ci(self) -> tuple:
        """(ratio, low, high) with the 95% delta-method interval clustered on the cluster: the
        residual of cluster h is x_h - ratio * y_h, whose sum is 0, so its variance is the sum of
        its squares over n - 1."""
        if self.y <= 0:
            return (None, None, None)
        r = self.x / self.y
        if self.n < 2:
            return (_f(r), None, None)
        resid2 = float(self.xx) - 2 * r * float(self.xy) + r * r * float(self.yy)
        se = math.sqrt(max(0.0, resid2) / (self.n - 1) / self.n) / (self.y / self.n)
        return (_f(r), _f(r - Z95 * se), _f(r + Z95 * se))


@dataclass
class Values:
    """Integer values that stream: their count, sum, sum of absolute values and histogram (for
    exact quantiles), then in a second pass the moments of each cluster's mean squared deviation
    from the overall mean (the SD's interval clustered on the cluster)."""

    n: int = 0
    total: int = 0
    abs_total: int = 0
    counts: dict = field(default_factory=dict)
    dev2: float = 0.0
    clusters: Moments = field(default_factory=Moments)

    def add(self, x: np.ndarray) -> None:
        x = x.astype(np.int64)
        self.n += len(x)
        self.total += int(x.sum())
        self.abs_total += int(np.abs(x).sum())
        for v, c in zip(*np.unique(x, return_counts=True)):
            self.counts[int(v)] = self.counts.get(int(v), 0) + int(c)

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    def add_clusters(self, x: np.ndarray, groups: np.ndarray) -> None:
        """Second pass: values ``x`` in clusters ``groups`` (codes 0..G-1 within this part)."""
        d2 = (x.astype(np.float64) - self.mean) ** 2
        self.dev2 += float(d2.sum())
        self.clusters = self.clusters + Moments.of(np.bincount(groups, weights=d2) / np.bincount(groups))

    def sd(self) -> dict:
        """The SD with a 95% interval clustered on the clusters of :meth:`add_clusters`."""
        n = self.n
        if n < 2:
            return {"sd": None, "sd_low": None, "sd_high": None}
        _, lo, hi = (_f(v) for v in self.clusters.ci())
        scale = n / (n - 1)
        return {"sd": _f(math.sqrt(self.dev2 / (n - 1))),
                "sd_low": _f(math.sqrt(max(0.0, lo * scale))) if lo is not None else None,
                "sd_high": _f(math.sqrt(hi * scale)) if hi is not None else None}

    def quantiles(self) -> dict:
        """QUANTILES of the values (numpy's ``inverted_cdf``: the smallest value whose cumulative
        share reaches q), their min and max, exactly from the histogram."""
        if not self.n:
            return {f"q{int(q * 100):02d}": None for q in QUANTILES} | {"min": None, "max": None}
        values = np.array(sorted(self.counts), np.int64)
        cum = np.cumsum([self.counts[v] for v in values])
        index = self.n * np.asarray(QUANTILES) - 1   # numpy's inverted_cdf order statistic, 0-based
        prev = np.floor(index)
        order = np.where(index - prev == 0, prev, prev + 1).astype(np.int64).clip(0, self.n - 1)
        qs = values[np.searchsorted(cum, order + 1)]
        d = {f"q{int(q * 100):02d}": _f(v) for q, v in zip(QUANTILES, qs)}
        d["min"] = _f(values[0])
        d["max"] = _f(values[-1])
        return d


@dataclass
class _Cell:
    """A cell's run, streamed: pass 1 over every chunk, pass 2 for the clustered SDs."""

    hands: int = 0
    exhausted: int = 0
    pigs: Clustered = field(default_factory=Clustered)
    pigs_checked: Clustered = field(default_factory=Clustered)
    pig_net: Moments = field(default_factory=Moments)
    penalty: int = 0
    net: Values = field(default_factory=Values)
    totals: Values = field(default_factory=Values)
    losers: Clustered = field(default_factory=Clustered)
    match_mode: bool = False
    reason_payments: np.ndarray = field(default_factory=lambda: np.zeros(len(REASONS), np.int64))
    x: np.ndarray = field(default_factory=lambda: np.zeros(len(REASONS), np.int64))      # sums by reason
    xx: np.ndarray = field(default_factory=lambda: np.zeros(len(REASONS), np.int64))
    xy: np.ndarray = field(default_factory=lambda: np.zeros(len(REASONS), np.int64))
    y: int = 0
    yy: int = 0
    wins: int = 0
    win_base: Ratio = field(default_factory=Ratio)
    pattern_wins: list = field(default_factory=lambda: [Clustered() for _ in PATTERNS])
    pattern_base: list = field(default_factory=lambda: [Ratio() for _ in PATTERNS])
    moved: list = field(default_factory=lambda: [0, 0, 0])     # hands, sum and sum of squares of net moved


def _seat_rows(seats) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's seat rows as (hand index within the chunk, seat) with the hands' codes."""
    hand = seats.column("hand").to_numpy().astype(np.int64)
    return hand - (int(hand.min()) if len(hand) else 0), seats.column("seat").to_numpy().astype(np.int64)


class _Blocks:
    """A seat's total over each match (match mode) or each block of ``hands_per_match``
    consecutive independent hands, chunk by chunk; a block that continues into the next chunk
    is carried, and a block still short at the end is left out."""

    def __init__(self, hpm: int):
        self.hpm = hpm
        self.carry_key = None
        self.carry = np.zeros(4, np.int64)
        self.carry_n = np.zeros(4, np.int64)

    def feed(self, seats) -> np.ndarray:
        """The complete blocks' totals, (blocks, 4), in block order."""
        match = seats.column("match")
        hand = seats.column("hand").to_numpy().astype(np.int64)
        key = (pc.fill_null(match, -1).to_numpy().astype(np.int64) if match.null_count < len(match)
               else hand // self.hpm)
        seat = seats.column("seat").to_numpy().astype(np.int64)
        net = seats.column("net").to_numpy().astype(np.int64)
        if not len(key):
            return np.zeros((0, 4), np.int64)
        keys, idx = np.unique(key, return_inverse=True)
        tot = np.bincount(idx * 4 + seat, weights=net, minlength=len(keys) * 4).reshape(-1, 4).astype(np.int64)
        cnt = np.bincount(idx * 4 + seat, minlength=len(keys) * 4).reshape(-1, 4)
        if self.carry_key is not None:
            if keys[0] == self.carry_key:
                tot[0] += self.carry
                cnt[0] += self.carry_n
            self.carry_key = None
        done = (cnt == self.hpm).all(axis=1)
        if not done[-1]:  # the last block may go on in the next chunk
            self.carry_key, self.carry, self.carry_n = keys[-1], tot[-1].copy(), cnt[-1].copy()
        return tot[done]


def _pass1(cell: _Cell, blocks: _Blocks, threshold: int, seats, hands, payments) -> None:
    hi, seat = _seat_rows(seats)
    n_hands = int(hi.max()) + 1 if len(hi) else 0
    cell.hands += hands.num_rows
    ends = hands.column("end_reason")
    cell.exhausted += int(pc.sum(pc.equal(ends.cast(pa.string()) if pa.types.is_dictionary(ends.type) else ends,
                                          "wall_exhausted")).as_py() or 0)
    fp = seats.column("flower_pig")
    checked = fp.is_valid().to_numpy()
    pig = pc.fill_null(fp, False).to_numpy().astype(bool)
    sizes = np.bincount(hi, minlength=n_hands)
    cell.pigs.add(np.bincount(hi, weights=pig, minlength=n_hands).astype(np.int64), sizes)
    cell.pigs_checked.add(np.bincount(hi, weights=pig & checked, minlength=n_hands).astype(np.int64),
                          np.bincount(hi, weights=checked, minlength=n_hands).astype(np.int64))
    net = seats.column("net").to_numpy().astype(np.int64)
    cell.pig_net = cell.pig_net + Moments.of(net[pig].astype(np.float64))
    cell.penalty += int(-seats.column("net_flower_pig").to_numpy()[pig].astype(np.int64).sum())
    cell.net.add(net)
    t = blocks.feed(seats)
    cell.totals.add(t.ravel())
    lose = t <= -threshold
    cell.losers.add(lose.sum(axis=1), np.full(len(t), 4, np.int64))
    cell.match_mode = cell.match_mode or seats.column("match").null_count < seats.num_rows
    # payments by hand and reason
    hand_ids = np.sort(hands.column("hand").to_numpy().astype(np.int64))
    pos = np.searchsorted(hand_ids, payments.column("hand").to_numpy().astype(np.int64))
    amount = payments.column("amount").to_numpy().astype(np.int64)
    y = np.bincount(pos, weights=amount, minlength=len(hand_ids)).astype(np.int64)
    cell.y += int(y.sum())
    cell.yy += int((y * y).sum())
    r = payments.column("reason")
    reason = codes(r, list(REASONS))
    for i in range(len(REASONS)):
        mask = reason == i
        x = np.bincount(pos[mask], weights=amount[mask], minlength=len(hand_ids)).astype(np.int64)
        cell.reason_payments[i] += int(mask.sum())
        cell.x[i] += int(x.sum())
        cell.xx[i] += int((x * x).sum())
        cell.xy[i] += int((x * y).sum())


def _pass_patterns(cell: _Cell, hands, wins) -> None:
    """A chunk's wins by hand: per pattern the wins it scores in and their bases."""
    hand_ids = np.sort(hands.column("hand").to_numpy().astype(np.int64))
    n = len(hand_ids)
    pos = np.searchsorted(hand_ids, wins.column("hand").to_numpy().astype(np.int64))
    base = wins.column("base").to_numpy().astype(np.int64)
    sizes = np.bincount(pos, minlength=n).astype(np.int64)
    cell.wins += int(len(pos))
    cell.win_base.add(np.bincount(pos, weights=base, minlength=n).astype(np.int64), sizes)
    for i, p in enumerate(PATTERNS):
        has = pc.fill_null(wins.column(p), 0).to_numpy() > 0
        hits = np.bincount(pos[has], minlength=n).astype(np.int64)
        cell.pattern_wins[i].add(hits, sizes)
        cell.pattern_base[i].add(np.bincount(pos[has], weights=base[has], minlength=n).astype(np.int64), hits)


def _pass_ends(cell: _Cell, seats) -> None:
    """A chunk's points moved per hand, net: half the sum of |net| over the hand's seats."""
    hi, _ = _seat_rows(seats)
    net = np.abs(seats.column("net").to_numpy().astype(np.int64))
    moved = np.bincount(hi, weights=net).astype(np.int64)
    moved = moved[np.bincount(hi) > 0] // 2      # the four nets sum to zero: sum |net| is even
    cell.moved[0] += int(len(moved))
    cell.moved[1] += int(moved.sum())
    cell.moved[2] += int((moved * moved).sum())


def _pass2(cell: _Cell, blocks: _Blocks, seats) -> None:
    hi, _ = _seat_rows(seats)
    cell.net.add_clusters(seats.column("net").to_numpy(), hi)
    t = blocks.feed(seats)
    if len(t):
        cell.totals.add_clusters(t.ravel(), np.repeat(np.arange(len(t)), 4))


def match_totals(seats, hands_per_match: int):
    """A seat's total per match (match mode) or per block of consecutive independent hands, from
    a loaded seats DataFrame (notebooks; the report streams with :class:`_Blocks`)."""
    if seats["match"].notna().any():
        key = seats["match"].astype(np.int64)
    else:
        key = seats["hand"] // hands_per_match
    t = seats.assign(match=key).groupby(["match", "seat"], sort=True)["net"].agg(["sum", "size"]).reset_index()
    t = t[t["size"] == hands_per_match]  # an incomplete trailing block of independent hands is left out
    return t.rename(columns={"sum": "total"})[["match", "seat", "total"]]


def pig_stats(cell: _Cell) -> dict:
    n, k = cell.pigs.n, cell.pigs.k
    w = cell.pigs.wilson()
    rate, lo, hi = w["rate"], w["low"], w["high"]
    wc = cell.pigs_checked.wilson()
    mean_pen = cell.penalty / k if k else math.nan
    net_mean, net_lo, net_hi = (_f(v) for v in cell.pig_net.ci()) if k else (None, None, None)
    return {
        "seat_hands": n, "checked": cell.pigs_checked.n, "pigs": k,
        "rate": rate, "rate_low": lo, "rate_high": hi, "deff": w["deff"],
        "rate_checked": wc["rate"], "rate_checked_low": wc["low"], "rate_checked_high": wc["high"],
        "pig_net": net_mean, "pig_net_low": net_lo, "pig_net_high": net_hi,
        "penalty": _f(mean_pen),
        "cost_per_seat_hand": _f(k * mean_pen / n) if k else (0.0 if n else None),
        "cost_low": _f(lo * mean_pen) if k and lo is not None else (0.0 if n else None),  # 0 pigs: no penalty seen
        "cost_high": _f(hi * mean_pen) if k and hi is not None else None,
    }


def spread_stats(cell: _Cell) -> dict:
    v = cell.net
    d = {"seat_hands": v.n, "mean": _f(v.mean) if v.n else None}
    d.update(v.sd())
    d.update(v.quantiles())
    d["mean_abs"] = _f(v.abs_total / v.n) if v.n else None
    return d


def match_stats(cell: _Cell, hands_per_match: int, threshold: int) -> dict:
    v = cell.totals
    d = {"kind": "matches" if cell.match_mode else "blocks", "hands_per_match": hands_per_match,
         "matches": cell.losers.g, "seat_matches": v.n, "mean": _f(v.mean) if v.n else None}
    d.update(v.sd())
    d.update(v.quantiles())
    d["threshold"] = threshold
    d["losers"] = cell.losers.k
    w = cell.losers.wilson()
    d["loss_rate"], d["loss_low"], d["loss_high"], d["loss_deff"] = w["rate"], w["low"], w["high"], w["deff"]
    return d


def reason_stats(cell: _Cell) -> dict:
    """Shares of points by reason, with the delta-method interval clustered on the hand: the
    residual of hand h is x_h - share * y_h, whose sum is 0, so its variance is the sum of its
    squares over n - 1, from the exact sums of x^2, x*y and y^2."""
    n = cell.hands
    total = float(cell.y)
    out = {"hands": n, "points_per_hand": _f(total / n) if n else None, "reasons": {}}
    for i, r in enumerate(REASONS):
        sx = float(cell.x[i])
        share = sx / total if total > 0 else math.nan
        if total > 0 and n > 1:
            resid2 = float(cell.xx[i]) - 2 * share * float(cell.xy[i]) + share * share * float(cell.yy)
            se = math.sqrt(max(0.0, resid2) / (n - 1) / n) / (total / n)
            lo, hi = share - Z95 * se, share + Z95 * se
        else:
            lo = hi = math.nan
        out["reasons"][r] = {"share": _f(share), "share_low": _f(max(0.0, lo)), "share_high": _f(min(1.0, hi)),
                             "points_per_hand": _f(sx / n) if n else None, "payments": int(cell.reason_payments[i])}
    return out


def pattern_stats(cell: _Cell) -> dict:
    n = cell.hands
    base, lo, hi = cell.win_base.ci()
    out = {"hands": n, "wins": cell.wins, "wins_per_hand": _f(cell.wins / n) if n else None,
           "base": base, "base_low": lo, "base_high": hi, "patterns": {}}
    for i, p in enumerate(PATTERNS):
        w = cell.pattern_wins[i].wilson()
        b, blo, bhi = cell.pattern_base[i].ci()
        out["patterns"][p] = {"wins": w["k"], "share": w["rate"], "share_low": w["low"], "share_high": w["high"],
                              "deff": w["deff"], "base": b, "base_low": blo, "base_high": bhi}
    return out


def end_stats(cell: _Cell) -> dict:
    n, k = cell.hands, cell.exhausted
    rate, lo, hi = _wilson(k, n) if n else (None, None, None)
    m, s, ss = cell.moved
    mean = s / m if m else None
    var = (ss - s * s / m) / (m - 1) if m > 1 else None
    half = Z95 * math.sqrt(max(0.0, var) / m) if var is not None else None
    return {"hands": n, "wall_exhausted": k, "rate": rate, "rate_low": lo, "rate_high": hi,
            "net_moved": _f(mean), "net_moved_low": _f(mean - half) if half is not None else None,
            "net_moved_high": _f(mean + half) if half is not None else None,
            "net_moved_sd": _f(math.sqrt(max(0.0, var))) if var is not None else None}


def cell_stats(run_dir: Path, sections, threshold: int, expect_hands: int) -> dict:
    """A cell's statistics, streamed over its run chunk by chunk (twice when an SD is asked for)."""
    from simcore.runs.scan import scan

    manifest = check_complete(run_dir, expect_hands)
    hpm = int(manifest["config"]["rules"]["options"]["hands_per_match"])
    cell, blocks = _Cell(), _Blocks(hpm)
    cols = {"seats": ["hand", "match", "seat", "net", "flower_pig", "net_flower_pig"],
            "hands": ["hand", "end_reason"], "payments": ["hand", "amount", "reason"]}
    if "patterns" in sections:
        cols["wins"] = ["hand", "base", *PATTERNS]
    # chunks are yielded in order: the blocks' carry needs them so
    for seats, hands, payments, wins in scan(run_dir, cols, lambda c, t: (t["seats"], t["hands"], t["payments"],
                                                                         t.get("wins")), manifest=manifest):
        _pass1(cell, blocks, threshold, seats, hands, payments)
        if wins is not None:
            _pass_patterns(cell, hands, wins)
        if "ends" in sections:
            _pass_ends(cell, seats)
    if {"spread", "matches"} & set(sections):
        blocks = _Blocks(hpm)
        for seats in scan(run_dir, {"seats": ["hand", "match", "seat", "net"]}, lambda c, t: t["seats"],
                          manifest=manifest):
            _pass2(cell, blocks, seats)
    d = {"hands": cell.hands, "wall_exhausted": _f(cell.exhausted / cell.hands) if cell.hands else None}
    if "pigs" in sections:
        d["pigs"] = pig_stats(cell)
    if "spread" in sections:
        d["spread"] = spread_stats(cell)
    if "matches" in sections:
        d["matches"] = match_stats(cell, hpm, threshold)
    if "reasons" in sections:
        d["reasons"] = reason_stats(cell)
    if "patterns" in sections:
        d["patterns"] = pattern_stats(cell)
    if "ends" in sections:
        d["ends"] = end_stats(cell)
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
