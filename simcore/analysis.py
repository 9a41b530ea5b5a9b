"""pandas analysis of runs: loading, per-strategy summaries with honest intervals.

Statistics (ARCHITECTURE.md: Statistics): means with 95% confidence intervals (normal approximation over
hands, the hand being the unit: a strategy's seats in one hand are averaged first, since the
four nets of a hand are dependent), rates with Wilson intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from . import io as rio
from .evaluate import PATTERNS
from .records import NET_COLUMNS

Z95 = 1.959963984540054


@dataclass
class Run:
    """A loaded run: its manifest and one DataFrame per table."""

    manifest: dict
    hands: pd.DataFrame
    seats: pd.DataFrame
    payments: pd.DataFrame
    wins: pd.DataFrame

    def __getitem__(self, name: str) -> pd.DataFrame:
        return getattr(self, name)


def load(run_dir, columns: dict | None = None) -> Run:
    """Read a run directory into DataFrames (only chunks complete in every table).

    Raises ValueError with a one-line message for a directory that is not a run or holds a
    corrupt shard."""
    run_dir = Path(run_dir)
    manifest = rio.read_manifest(run_dir)
    chunks = sorted(rio.complete_chunks(run_dir))
    frames = {}
    for name in rio.TABLES:
        parts = []
        for c in chunks:
            path = run_dir / name / rio.shard_name(c)
            try:
                parts.append(pq.read_table(path, columns=(columns or {}).get(name)))
            except Exception as exc:
                raise ValueError(f"corrupt shard {path}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        if parts:
            import pyarrow as pa

            table = pa.concat_tables(parts, promote_options="permissive")
            frames[name] = table.to_pandas()
        else:
            frames[name] = pd.DataFrame({c: [] for c, _, _ in rio.COLUMNS[name]})
    return Run(manifest, frames["hands"], frames["seats"], frames["payments"], frames["wins"])


def mean_ci(values) -> tuple[float, float, float]:
    """(mean, low, high): normal 95% interval of the mean."""
    x = np.asarray(values, float)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return (m, math.nan, math.nan)
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def wilson(k: float, n: float) -> tuple[float, float, float]:
    """(rate, low, high): the Wilson score 95% interval of k successes in n trials; k and n may
    be effective (non-integer) counts. No successes give a low end of exactly 0, all successes
    a high end of exactly 1."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = k / n
    z2 = Z95 * Z95
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = Z95 * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / den
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return (p, lo, hi)


NET_REASONS = NET_COLUMNS  # the seats table's net-by-reason columns


def summarize(run: Run, by: str = "strategy") -> pd.DataFrame:
    """One row per strategy (or seat): hands, mean net per hand with a 95% interval, win rate,
    self-draw share, mean fan and base of wins, flower-pig rate (per seat-hand and per checked
    seat-hand, Wilson), ready-at-draw rate, and mean net by reason."""
    if by not in ("strategy", "seat"):
        raise ValueError("by must be 'strategy' or 'seat'")
    s = run.seats
    key = s[by].astype(str) if by == "strategy" else s[by]
    rows = []
    for value, g in s.groupby(key, sort=True, observed=True):
        per_hand = g.groupby("hand", sort=False)["net"].mean()
        mean, lo, hi = mean_ci(per_hand.to_numpy())
        n_seat = len(g)
        wins = int(g["won"].sum())
        winners = g[g["won"]]
        checked = g["flower_pig"].notna()
        pigs = int(g["flower_pig"].fillna(False).astype(bool).sum())
        pr, plo, phi = wilson(pigs, n_seat)
        cr, clo, chi = wilson(pigs, int(checked.sum()))
        ready_checked = g["ready"].notna() & ~g["flower_pig"].fillna(False).astype(bool)
        ready = int(g.loc[ready_checked, "ready"].astype(bool).sum())
        row = {
            by: value,
            "hands": int(per_hand.size),
            "seat_hands": n_seat,
            "mean_net": mean, "net_low": lo, "net_high": hi,
            "win_rate": wins / n_seat if n_seat else math.nan,
            "self_draw_share": float((winners["win_kind"].astype(str).isin(["self_draw", "kong_replacement"])).mean())
            if wins else math.nan,
            "mean_fan": float(winners["fan"].mean()) if wins else math.nan,
            "mean_base": float(winners["base"].mean()) if wins else math.nan,
            "pig_rate": pr, "pig_low": plo, "pig_high": phi,
            "pig_rate_checked": cr, "pig_checked_low": clo, "pig_checked_high": chi,
            "ready_rate": ready / int(ready_checked.sum()) if ready_checked.any() else math.nan,
        }
        for r in NET_REASONS:
            row[r] = float(g[r].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def run_overview(run: Run) -> dict:
    """End reasons and the distribution of winners per hand (shares of hands)."""
    h = run.hands
    n = len(h)
    return {
        "hands": n,
        "end_reasons": {str(k): v / n for k, v in h["end_reason"].astype(str).value_counts().sort_index().items()} if n else {},
        "winners_per_hand": {int(k): v / n for k, v in h["winners"].value_counts().sort_index().items()} if n else {},
        "mean_turns": float(h["turns"].mean()) if n else math.nan,
        "mean_tiles_left": float(h["tiles_left"].mean()) if n else math.nan,
    }


def patterns(run: Run, by: str = "strategy") -> pd.DataFrame:
    """Per strategy (or seat): wins, the share of wins with each pattern, and the mean base."""
    w = run.wins
    if by == "strategy":
        names = run.seats[["hand", "seat", "strategy"]].copy()
        names["strategy"] = names["strategy"].astype(str)
        w = w.merge(names, on=["hand", "seat"], how="left")
    rows = []
    for value, g in w.groupby(by, sort=True, observed=True):
        row = {by: value, "wins": len(g), "mean_base": float(g["base"].mean()), "mean_paid": float(g["paid"].mean())}
        for p in PATTERNS:
            row[p] = float((g[p] > 0).mean())
        rows.append(row)
    return pd.DataFrame(rows)
