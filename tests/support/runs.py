"""A run's content compared as data (sorted frames of its four tables) and as files (digests)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from simcore.runs import analysis
from simcore.runs import shards as rio


def frames(run_dir):
    run = analysis.load(run_dir)
    out = {}
    for name in rio.TABLES:
        df = run[name]
        keys = [c for c in ("hand", "seat", "order", "payer", "payee") if c in df.columns]
        out[name] = df.sort_values(keys, kind="stable").reset_index(drop=True) if name != "payments" else df.reset_index(drop=True)
    return out


def assert_same_content(a, b):
    fa, fb = frames(a), frames(b)
    for name in rio.TABLES:
        pd.testing.assert_frame_equal(fa[name], fb[name], check_categorical=False)


def tree_digest(path: Path) -> dict:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file() and p.name != ".lock"}
