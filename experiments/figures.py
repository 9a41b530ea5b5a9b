"""Tables and figures of a duplicate experiment for the notebooks (``notebooks/policies.py`` reads
the exchange and void experiments with them), and the check every notebook makes that its
experiment was run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

Z95 = 1.959963984540054
COMPARISON_COLUMNS = ["rules", "score", "score_low", "score_high", "diff", "diff_low", "diff_high", "sd_diff",
                      "unpaired_half_width", "variance_removed", "walls_needed", "hands_needed"]


def report_of(exp_dir, name: str) -> dict:
    """The report of the experiment ``name`` run into ``exp_dir`` (recomputed from its runs), or a
    FileNotFoundError that says how to make it."""
    import experiments

    exp_dir = Path(exp_dir)
    if not (exp_dir / "experiment.json").is_file():
        raise FileNotFoundError(f"no experiment in {exp_dir}: run `make notebooks`, or "
                                f"`sichuan experiment run {name} --out {exp_dir}` and set SICHUAN_RUNS")
    return experiments.load_report(exp_dir)


def per_wall(exp_dir, base: str):
    """(nets, scores, diffs): each arm's own-seat nets (wall x rotation, from the runs' Parquet
    tables), its score per wall (the row mean) and its paired difference from ``base`` per wall."""
    from experiments.duplicate import seat_nets

    nets = seat_nets(exp_dir)
    scores = pd.DataFrame({arm: df.mean(axis=1) for arm, df in nets.items()})
    return nets, scores, scores.drop(columns=base).sub(scores[base], axis=0)


def comparison_table(rep: dict) -> pd.DataFrame:
    return pd.DataFrame(rep["rows"]).set_index("arm")[COMPARISON_COLUMNS]


def diff_figure(rep: dict, title: str):
    """Each arm's paired difference from the baseline with its 95% interval, beside the interval
    the same hands would give unpaired."""
    import matplotlib.pyplot as plt

    rows = [r for r in rep["rows"] if not r["baseline"]]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.8 * len(rows)))
    d = np.array([r["diff"] for r in rows])
    ax.errorbar(d, y + 0.12, xerr=[d - [r["diff_low"] for r in rows], [r["diff_high"] for r in rows] - d],
                fmt="o", capsize=4, label="duplicate: paired on the wall")
    ax.errorbar(d, y - 0.12, xerr=[r["unpaired_half_width"] for r in rows], fmt="s", capsize=4, color="grey",
                label="the same hands unpaired (independent walls)")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [r["arm"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(f"net per hand against `{rep['baseline']}` (points), 95% intervals")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    return fig


def unpaired(nets: dict, arm: str, base: str) -> np.ndarray:
    """What unpaired play with the same hands would see: the same four seat-hands per arm, each from
    another wall (rotation r of the arm on wall g + r, of the baseline on wall g + 4 + r)."""
    a = np.mean([np.roll(nets[arm][r].to_numpy(), -r) for r in range(4)], axis=0)
    b = np.mean([np.roll(nets[base][r].to_numpy(), -(4 + r)) for r in range(4)], axis=0)
    return a - b


def pairing_figure(nets: dict, diffs: pd.DataFrame, base: str):
    """Histograms of the paired per-wall difference against the unpaired one, per arm."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(diffs.columns), figsize=(5 * len(diffs.columns), 3.2), squeeze=False)
    for ax, arm in zip(axes[0], diffs.columns):
        u = unpaired(nets, arm, base)
        lim = np.quantile(np.abs(u), 0.999) + 1
        bins = np.linspace(-lim, lim, 61)
        ax.hist(u, bins=bins, histtype="step", color="grey", lw=1.5, label=f"unpaired, SD {u.std():.2f}")
        ax.hist(diffs[arm], bins=bins, histtype="stepfilled", alpha=0.6, label=f"paired, SD {diffs[arm].std():.2f}")
        ax.set_yscale("log")
        ax.set_xlabel(f"{arm} - {base}: points per hand on a wall")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("walls")
    fig.tight_layout()
    return fig


def pairing_variances(nets: dict, diffs: pd.DataFrame, base: str, table: pd.DataFrame, walls: int) -> pd.DataFrame:
    """var(d) paired, the unpaired variance resampled from the runs, and the report's formula."""
    return pd.DataFrame({arm: {"var(d) paired": diffs[arm].var(), "var unpaired (resampled)": unpaired(nets, arm, base).var(),
                               "var_unpaired (formula)": table.loc[arm, "unpaired_half_width"] ** 2 * walls / Z95 ** 2}
                         for arm in diffs.columns}).T


NO_PIG = "no pig in the cell: its upper 95% bound"


def legend_beside(ax, no_pig: bool = False, **kw):
    """The axes' legend beside them, right of the plot, where it covers no point (the figure made
    with ``layout="constrained"`` makes room for it); ``no_pig``: with the open down-pointing
    triangle that marks a cell without a pig (its upper Wilson bound) explained."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if no_pig:
        handles.append(Line2D([], [], ls="", marker="v", markerfacecolor="none", color="dimgrey"))
        labels.append(NO_PIG)
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def pig_rates_figure(cells: pd.DataFrame):
    """The flower-pig rate of every cell (a row per cell: ``play``, ``void``, ``preset``, ``pigs``,
    ``rate``, ``rate_low``, ``rate_high``), log scale, a group per preset: a cell's rate with its
    Wilson 95% interval, marked by play and coloured by void policy; a cell without a pig shows
    its upper bound as an open down-pointing triangle. The legend, beside the plot, names both."""
    import matplotlib.pyplot as plt

    presets = list(dict.fromkeys(cells["preset"]))
    voids = list(dict.fromkeys(cells["void"]))
    plays = list(dict.fromkeys(cells["play"]))
    colors = dict(zip(voids, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    markers = dict(zip(plays, ["o", "s", "D", "P", "X", "*"]))   # "v" is kept for a cell without a pig
    fig, ax = plt.subplots(figsize=(11, 4.5), layout="constrained")
    width = 0.8 / (len(voids) * len(plays))
    none = False
    for i, (v, p) in enumerate([(v, p) for v in voids for p in plays]):
        sub = cells[(cells["void"] == v) & (cells["play"] == p)].set_index("preset").reindex(presets)
        x = np.arange(len(presets)) - 0.4 + width * (i + 0.5)
        seen = sub["pigs"].notna().to_numpy()
        has = seen & (sub["pigs"].fillna(0).to_numpy() > 0)
        r, lo, hi = (sub[k].to_numpy(float) for k in ("rate", "rate_low", "rate_high"))
        ax.errorbar(x[has], r[has], yerr=[r[has] - lo[has], hi[has] - r[has]], fmt=markers[p], color=colors[v],
                    capsize=3, label=f"{p}, void {v}")
        empty = seen & ~has
        if empty.any():
            ax.scatter(x[empty], hi[empty], marker="v", color=colors[v], facecolors="none")
            none = True
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(presets)), presets)
    ax.set_ylabel("flower pigs per seat-hand (Wilson 95%)")
    ax.set_title("Flower-pig rate by rule preset, void policy and play")
    legend_beside(ax, no_pig=none, fontsize=7)
    return fig


def reason_shares(cells: dict) -> pd.DataFrame:
    """Share of all points paid by payment reason, a row per cell (``{label: cell report}``); the
    reasons no cell pays are left out."""
    shares = pd.DataFrame({label: {r: x["share"] for r, x in c["reasons"]["reasons"].items()}
                           for label, c in cells.items()}).T
    return shares.loc[:, shares.max() > 0]


def shares_figure(shares: pd.DataFrame, height: float, legend_columns: int, legend_gap: float):
    """The shares as stacked horizontal bars, a bar per row, first row on top."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, height))
    left = np.zeros(len(shares))
    for r in shares.columns:
        ax.barh(shares.index, shares[r], left=left, label=r)
        left += shares[r].to_numpy()
    ax.invert_yaxis()
    ax.set_xlabel("share of all points paid")
    ax.legend(fontsize=8, ncol=legend_columns, loc="upper center", bbox_to_anchor=(0.5, -legend_gap))
    return fig
