"""The ``luck`` bench section (issue 36, item 3): the luck-corrected estimate is unbiased, and what
it buys.

- (a) per preset, ``HANDS`` hands of ``expert``: each seat's mean luck is within 3.5 standard
  errors of 0;
- (b) on the six cells (large effects among them: random voids, random exchanges, random play,
  a user strategy) the luck-corrected and plain differences on the same walls differ by less
  than their paired 95% interval (the interval of the per-wall difference of the two);
- (c) the same with a deliberately bad value model (random weights): still unbiased, only wider;
- each cell's variance factor (plain / luck) with the shipped model, and what the luck terms cost.

``cell_estimates`` is also what ``tests/experiments/test_luck_estimator.py`` checks at a small size.

    python -m benchmarks.bench --only luck             # 1M hands a preset, 200,000 walls a cell
    python -m benchmarks.bench --only luck --quick     # 100k, 20,000
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from simcore.contract import records as rec
from simcore.contract.rules import PRESETS, preset
from simcore.runs.analysis import Z95
from simcore.runs.batch import run_batch, run_shadowed
from simcore.runs.value_model import shipped
from strategies.registry import parse_seat, seat_functions

SEED = 3
CHUNK = 50_000
USER_STRATEGY = Path(__file__).resolve().parents[1] / "strategies" / "example_user_strategy.py"
# (rules, arm, field): policy, play and user-strategy effects, large ones among them
CELLS = (("battle", "expert+void=random", "expert"), ("flow", "expert+exchange=random", "expert"),
         ("battle", "random", "expert"), ("flow", "expert+void=fewest", "expert"),
         ("battle", f"{USER_STRATEGY}:cautious", "expert"), ("kawu", "efficient", "expert"))
BAD_SEED = 11


def bad_weights(rules) -> np.ndarray:
    """A deliberately bad value model: random weights of the shipped model's size and scale."""
    w = shipped(rules)[0]
    return np.random.default_rng(BAD_SEED).normal(0.0, float(np.abs(w).mean()) * 2, len(w))


def cell_estimates(rules_name: str, arm: str, field: str, walls: int, weights=None, first: int = 0,
                   draw_order: str = "seat") -> tuple[np.ndarray, np.ndarray]:
    """Per wall, the arm's duplicate difference from the field, plain and luck-corrected, on the
    same walls (``weights``: the value model, the shipped one by default)."""
    rules = preset(rules_name)
    w = shipped(rules)[0] if weights is None else np.asarray(weights, np.float64)
    a, f = parse_seat(arm), parse_seat(field)
    plain, luck = [], []
    for start in range(first, first + walls, CHUNK):
        n = min(CHUNK, first + walls - start)
        fr, arms, _ = run_shadowed(rules, f, a, SEED, start, n, draw_order=draw_order, value_weights=w)
        net_f = fr.seat[:, :, rec.S_NET].astype(np.float64)
        cor_f = net_f - fr.luck
        net_a = np.stack([r.seat[:, i, rec.S_NET] for i, r in enumerate(arms)], axis=1).astype(np.float64)
        cor_a = net_a - np.stack([r.luck[:, i] for i, r in enumerate(arms)], axis=1)
        plain.append(net_a.mean(axis=1) - net_f.mean(axis=1))
        luck.append(cor_a.mean(axis=1) - cor_f.mean(axis=1))
    return np.concatenate(plain), np.concatenate(luck)


def agreement(plain: np.ndarray, luck: np.ndarray) -> dict:
    """The two estimates on the same walls: their means, the per-wall difference's mean with its
    paired 95% half-width and z, and the variance factor plain / luck."""
    gap = plain - luck
    n = len(gap)
    se = gap.std(ddof=1) / math.sqrt(n)
    return {"plain": float(plain.mean()), "luck": float(luck.mean()), "gap": float(gap.mean()),
            "gap_half": float(Z95 * se), "z": float(gap.mean() / se) if se > 0 else 0.0,
            "half_plain": float(Z95 * plain.std(ddof=1) / math.sqrt(n)),
            "half_luck": float(Z95 * luck.std(ddof=1) / math.sqrt(n)),
            "factor": float(plain.var() / luck.var()) if luck.var() > 0 else math.nan}


def mean_luck_z(rules_name: str, hands: int, weights=None) -> np.ndarray:
    """Per seat: its mean luck over ``hands`` hands of ``expert``, in standard errors."""
    rules = preset(rules_name)
    w = shipped(rules)[0] if weights is None else weights
    fns = seat_functions([parse_seat("expert")] * 4)
    n, s, ss = 0, np.zeros(4), np.zeros(4)
    for start in range(0, hands, CHUNK * 2):
        k = min(CHUNK * 2, hands - start)
        lk = run_batch(rules, fns, SEED, start, k, draw_order="seat", value_weights=w).luck
        n += k
        s += lk.sum(axis=0)
        ss += (lk * lk).sum(axis=0)
    mean = s / n
    se = np.sqrt((ss / n - mean * mean) / (n - 1))
    return mean / se


def bench_luck(ctx, figures_cls, log) -> dict:
    hands = 100_000 if ctx.quick else 1_000_000
    walls = 20_000 if ctx.quick else 200_000
    log(f"luck: {hands:,} hands a preset for the mean luck; {len(CELLS)} cells of {walls:,} walls, shipped and bad V")
    figs = figures_cls()
    for name in PRESETS:
        z = mean_luck_z(name, hands)
        figs.add(f"{name}_mean_luck_z", f"{name}: largest |mean luck| of a seat, in standard errors ({hands:,} hands)",
                 float(np.abs(z).max()), "", 2, ("≤ 3.5", lambda v: v <= 3.5))
    table = f"luck against plain on the same {walls:,} walls (columns: what)"
    for rules, arm, field in CELLS:
        label = f"{rules} {arm.replace(str(USER_STRATEGY), USER_STRATEGY.name)} vs {field}"
        for model, weights in (("shipped V", None), ("bad V", bad_weights(preset(rules)))):
            g = agreement(*cell_estimates(rules, arm, field, walls, weights))
            key = f"{rules}_{arm}_{model}".replace(" ", "_")
            figs.add(key + "_gap", f"{label}, {model}: luck - plain {g['gap']:+.4f} (plain {g['plain']:+.4f} "
                     f"+-{g['half_plain']:.4f}, luck {g['luck']:+.4f} +-{g['half_luck']:.4f}); |gap| / paired half-width",
                     abs(g["gap"]) / g["gap_half"] if g["gap_half"] > 0 else 0.0, "", 2,
                     ("< 1 (inside the paired 95% interval)", lambda v: v < 1.0), grid=(table, label, f"{model} |gap|/95%"))
            figs.add(key + "_factor", f"{label}, {model}: variance factor plain / luck", g["factor"], "x", 2,
                     grid=(table, label, f"{model} var factor"))
    return figs
