"""The ``draw-order`` bench section: the per-seat draw order plays the same game as the table
order (RULES.md: Rulings where the documents are silent, draw order). Per preset, the same
seeds' hands under both orders: every summary figure agrees within 4 unpaired standard errors,
and the tile drawn at each draw index is uniform over the 27 kinds (chi-square).

    python -m benchmarks.bench --only draw-order             # 1M hands a preset, player and order
    python -m benchmarks.bench --only draw-order --quick     # 100k
"""

from __future__ import annotations

import math

import numpy as np

from simcore.contract import records as rec
from simcore.contract.rules import PRESETS, preset
from simcore.engine import RunOptions
from simcore.runs.analysis import chi2_sf

PLAYERS = ("greedy", "expert+void=random")   # random voids make pigs frequent enough to compare
ORDERS = ("table", "seat")
CHUNK = 100_000
SEED = 1
Z_BOUND = 4.0


def _hand_figures(res) -> dict[str, np.ndarray]:
    """Per hand: the summary figures as per-hand values (seats averaged within the hand, so a
    figure's hands are independent)."""
    seat = res.seat
    won = seat[:, :, rec.S_WINS] > 0
    n_won = won.sum(axis=1)
    self_drawn = won & np.isin(seat[:, :, rec.S_WIN_KIND], (int(rec.WIN_SELF_DRAW), int(rec.WIN_KONG_REPLACEMENT)))
    fan = np.where(won, seat[:, :, rec.S_FAN], 0).sum(axis=1)
    out = {"win rate": won.mean(axis=1), "self-drawn wins a hand": self_drawn.sum(axis=1),
           "fan a hand (first wins)": fan, "turns": res.hand[:, rec.H_TURNS],
           "pig rate": (seat[:, :, rec.S_PIG] == 1).mean(axis=1), "winners": n_won}
    for s in range(4):
        out[f"net of seat {s}"] = seat[:, s, rec.S_NET]
    return out


def _moments(rules, spec: str, order: str, hands: int) -> dict[str, tuple[int, float, float]]:
    """(n, mean, variance) of every figure over ``hands`` hands, played in chunks."""
    from simcore.runs.batch import run_batch
    from strategies.registry import parse_seats, seat_functions

    fns = seat_functions(parse_seats(spec))
    sums: dict[str, list] = {}
    for first in range(0, hands, CHUNK):
        res = run_batch(rules, fns, SEED, first, min(CHUNK, hands - first), draw_order=order)
        for key, v in _hand_figures(res).items():
            v = v.astype(np.float64)
            s = sums.setdefault(key, [0, 0.0, 0.0])
            s[0] += len(v)
            s[1] += float(v.sum())
            s[2] += float((v * v).sum())
    return {k: (n, s1 / n, max(s2 / n - (s1 / n) ** 2, 0.0) * n / max(n - 1, 1)) for k, (n, s1, s2) in sums.items()}


def draw_uniformity(rules, hands: int, indices: int = 40) -> float:
    """The smallest chi-square p-value over the first ``indices`` draw indices of ``hands`` greedy
    hands in seat order (the tile drawn at index i against uniform over the kinds)."""
    from simcore.inspection.trace import run_traced
    from strategies.registry import parse_seats, seat_functions

    fns = seat_functions(parse_seats("greedy"))
    counts = np.zeros((indices, 27), np.int64)
    for g in range(hands):
        L = run_traced(rules, fns, SEED, g, g % 4, check=False, options=RunOptions("seat"))[1]
        tiles = L[L[:, rec.LW_EVENT] == rec.EV_DRAW, rec.LW_FIELDS + 1][:indices]
        counts[np.arange(len(tiles)), tiles] += 1
    ps = []
    for row in counts:
        if row.sum() < 27 * 20:
            continue
        expected = row.sum() / 27
        ps.append(chi2_sf(float(((row - expected) ** 2 / expected).sum()), 26))
    return min(ps) if ps else float("nan")


def bench_draw_order(ctx, figures_cls, log) -> dict:
    hands = 100_000 if ctx.quick else 1_000_000
    traced = 2_000 if ctx.quick else 20_000
    log(f"draw-order: {hands:,} hands a preset, player and order; {traced:,} traced hands a preset for the draws")
    figs = figures_cls()
    table = f"largest |z| of table minus seat over the summary figures ({hands:,} hands each; columns: player)"
    for name in PRESETS:
        rules = preset(name)
        for spec in PLAYERS:
            m = {o: _moments(rules, spec, o, hands) for o in ORDERS}
            zs = {}
            for key in m["table"]:
                (n1, a, va), (n2, b, vb) = m["table"][key], m["seat"][key]
                se = math.sqrt(va / n1 + vb / n2)
                zs[key] = 0.0 if se == 0 else (a - b) / se
            worst = max(zs, key=lambda k: abs(zs[k]))
            figs.add(f"{name}_{spec}_z", f"{name}, {spec}: largest |z| ({worst})", abs(zs[worst]), "", 2,
                     ("≤ 4", lambda v: v <= Z_BOUND), grid=(table, name, spec))
        p = draw_uniformity(rules, traced)
        figs.add(f"{name}_chi2", f"{name}: smallest chi-square p over the first 40 draw indices (seat order)", p, "",
                 4, ("≥ 1e-4 (uniform)", lambda v: v >= 1e-4))
    return figs
