# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exchange three: which three tiles to pass?
#
# Before play every seat passes three tiles of one suit. The experiment `exchange`
# (`experiments/exchange.toml`) compares four policies with everything else fixed (play and
# void `expert`): **expert** (the three whose passing leaves the best plan, the field's own
# policy and the baseline), **shortest** (three of the shortest suit), **random** (a random
# suit) and **keep-pairs**; `exchange-efficient` asks the same of an efficient field.
#
# Each arm sits at one seat against three `expert` players (with their own policies), in all four
# rotations, on the same walls as every other arm (duplicate). An arm's score on a wall is its
# mean net over the four rotations; the comparison is the per-wall difference from the
# baseline, paired on the wall.

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))
EXPERIMENT = RUNS / "exchange"

# %%
import json

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

import experiments
from experiments.duplicate import seat_nets
from experiments.findings import duplicate_sentences

if not (EXPERIMENT / "experiment.json").is_file():
    raise FileNotFoundError(f"no experiment in {EXPERIMENT}: run `make notebooks`, or "
                            f"`sichuan experiment run exchange --out {EXPERIMENT}` and set SICHUAN_RUNS")
rep = experiments.load_report(EXPERIMENT)          # recomputed from the runs
base = rep["baseline"]
print(f"{rep['walls']:,} walls, seed {rep['seed']}; reproduce with:\n  {rep['command']}")

# %% [markdown]
# ## Per-wall scores, from the runs' Parquet tables
#
# `seat_nets` reads each rotation's `seats/` table with pandas and keeps the arm's own seat:
# one column per rotation, one row per wall. The arm's score is the row mean.

# %%
nets = seat_nets(EXPERIMENT)                   # arm -> DataFrame (wall x rotation)
scores = pd.DataFrame({arm: df.mean(axis=1) for arm, df in nets.items()})
diffs = scores.drop(columns=base).sub(scores[base], axis=0)
display(nets[list(nets)[1]].head())
scores.describe().T

# %% [markdown]
# ## The comparison table
#
# `diff` is the mean paired difference per hand with its 95% interval; `variance_removed` is
# `1 - var(d) / var_unpaired`, where `var_unpaired = (var_arm_seat + var_base_seat) / 4` is what
# the same number of hands would give on independent walls; `walls_needed` is what a 95%
# interval of full width `width` needs.

# %%
cols = ["rules", "score", "score_low", "score_high", "diff", "diff_low", "diff_high", "sd_diff",
        "unpaired_half_width", "variance_removed", "walls_needed", "hands_needed"]
table = pd.DataFrame(rep["rows"]).set_index("arm")[cols]
table

# %%
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
ax.set_xlabel(f"net per hand against `{base}` (points), 95% intervals")
ax.set_title("Exchange policy vs the baseline")
ax.legend(loc="best", fontsize=8)
plt.show()

# %% [markdown]
# ## What pairing removes
#
# The paired per-wall difference `d` against what unpaired play with the same hands would see:
# the same four seat-hands per arm, but each from a different wall (rotation r of the arm on
# wall g + r, rotation r of the baseline on wall g + 4 + r). The baseline is the field itself,
# so its duplicate score is 0 on every wall; unpaired, its seat-hands still carry the full luck
# of the deal.

# %%
def unpaired(arm):
    a = np.mean([np.roll(nets[arm][r].to_numpy(), -r) for r in range(4)], axis=0)
    b = np.mean([np.roll(nets[base][r].to_numpy(), -(4 + r)) for r in range(4)], axis=0)
    return a - b


fig, axes = plt.subplots(1, len(diffs.columns), figsize=(5 * len(diffs.columns), 3.2), squeeze=False)
for ax, arm in zip(axes[0], diffs.columns):
    u = unpaired(arm)
    lim = np.quantile(np.abs(u), 0.999) + 1
    bins = np.linspace(-lim, lim, 61)
    ax.hist(u, bins=bins, histtype="step", color="grey", lw=1.5, label=f"unpaired, SD {u.std():.2f}")
    ax.hist(diffs[arm], bins=bins, histtype="stepfilled", alpha=0.6, label=f"paired, SD {diffs[arm].std():.2f}")
    ax.set_yscale("log")
    ax.set_xlabel(f"{arm} - {base}: points per hand on a wall")
    ax.legend(fontsize=8)
axes[0][0].set_ylabel("walls")
plt.tight_layout()
plt.show()
pd.DataFrame({arm: {"var(d) paired": diffs[arm].var(), "var unpaired (resampled)": unpaired(arm).var(),
                    "var_unpaired (formula)": table.loc[arm, "unpaired_half_width"] ** 2 * rep["walls"] / 1.959963984540054 ** 2}
              for arm in diffs.columns}).T

# %% [markdown]
# ## Finding

# %%
display(Markdown(f"At {rep['walls']:,} walls (seed {rep['seed']}):\n\n"
                 + "\n".join(f"- {s}" for s in duplicate_sentences(rep))))
