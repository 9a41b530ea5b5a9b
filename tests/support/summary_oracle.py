"""The pandas summaries as they were before they streamed (loaded whole, grouped in pandas):
the oracle the streaming ones (``simcore.runs.analysis``) must equal."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.runs import shards as rio
from simcore.runs.analysis import NET_REASONS, mean_ci, wilson
from simcore.contract.evaluate import PATTERNS


def load_whole(run_dir) -> dict:
    """Every table of a run concatenated and converted by plain ``to_pandas``."""
    run_dir = Path(run_dir)
    chunks = sorted(rio.complete_chunks(run_dir))
    out = {}
    for name in rio.TABLES:
        parts = [pq.read_table(run_dir / name / rio.shard_name(c)) for c in chunks]
        out[name] = pa.concat_tables(parts, promote_options="permissive").to_pandas()
    return out


class _Loaded:
    def __init__(self, manifest, tables):
        self.manifest = manifest
        for k, v in tables.items():
            setattr(self, k, v)


def load_complete_run(run_dir, columns, expect_hands):
    """A run of an experiment loaded whole by plain ``to_pandas``, as the reports once did (the
    cells and duplicate oracles' loader)."""
    from experiments.execute import check_complete

    manifest = check_complete(run_dir, expect_hands)
    whole = load_whole(run_dir)
    return _Loaded(manifest, {k: v[columns[k]] if k in columns else v for k, v in whole.items()})


def summarize(t: dict, by: str = "strategy") -> pd.DataFrame:
    s = t["seats"]
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
            by: value, "hands": int(per_hand.size), "seat_hands": n_seat,
            "mean_net": mean, "net_low": lo, "net_high": hi,
            "win_rate": wins / n_seat if n_seat else math.nan,
            "self_draw_share": float((winners["win_kind"].astype(str).isin(["self_draw", "kong_replacement"])).mean())
            if wins else math.nan,
            "mean_fan": float(winners["fan"].mean()) if wins else math.nan,
            "mean_base": float(winners["base"].mean()) if wins else math.nan,
            "pigs": int(pigs), "checked": int(checked.sum()),
            "pig_rate": pr, "pig_low": plo, "pig_high": phi,
            "pig_rate_checked": cr, "pig_checked_low": clo, "pig_checked_high": chi,
            "ready_rate": ready / int(ready_checked.sum()) if ready_checked.any() else math.nan,
        }
        for r in NET_REASONS:
            row[r] = float(g[r].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def run_overview(t: dict) -> dict:
    h = t["hands"]
    n = len(h)
    return {
        "hands": n,
        "end_reasons": {str(k): v / n for k, v in h["end_reason"].astype(str).value_counts().sort_index().items()},
        "winners_per_hand": {int(k): v / n for k, v in h["winners"].value_counts().sort_index().items()},
        "mean_turns": float(h["turns"].mean()),
        "mean_tiles_left": float(h["tiles_left"].mean()),
    }


def patterns(t: dict, by: str = "strategy") -> pd.DataFrame:
    w = t["wins"]
    if by == "strategy":
        names = t["seats"][["hand", "seat", "strategy"]].copy()
        names["strategy"] = names["strategy"].astype(str)
        w = w.merge(names, on=["hand", "seat"], how="left")
    rows = []
    for value, g in w.groupby(by, sort=True, observed=True):
        row = {by: value, "wins": len(g), "mean_base": float(g["base"].mean()), "mean_paid": float(g["paid"].mean())}
        for p in PATTERNS:
            row[p] = float((g[p] > 0).mean())
        rows.append(row)
    return pd.DataFrame(rows)


def assert_close(got, want, what: str, rel: float = 1e-9) -> None:
    """Integers exactly, floats within ``rel`` (NaN equal to NaN)."""
    if isinstance(want, dict):
        assert set(got) == set(want), f"{what}: keys {sorted(got)} != {sorted(want)}"
        for k in want:
            assert_close(got[k], want[k], f"{what}.{k}", rel)
        return
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):
        assert int(got) == int(want), f"{what}: {got} != {want}"
        return
    if isinstance(want, str):
        assert got == want, f"{what}: {got!r} != {want!r}"
        return
    w, g = float(want), float(got)
    if math.isnan(w):
        assert math.isnan(g), f"{what}: {g} != nan"
    else:
        assert abs(g - w) <= rel * max(abs(w), 1e-300) or g == w, f"{what}: {g!r} != {w!r}"


def assert_frames_close(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    assert list(got.columns) == list(want.columns), f"{what}: columns {list(got.columns)} != {list(want.columns)}"
    assert len(got) == len(want), f"{what}: {len(got)} rows != {len(want)}"
    for i in range(len(want)):
        for c in want.columns:
            assert_close(got.iloc[i][c], want.iloc[i][c], f"{what}[{i}].{c}")
