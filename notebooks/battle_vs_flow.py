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
# # Blood battle vs blood flow: spread, tails and where the points go
#
# In blood battle a winner leaves the hand; in blood flow a winner stays, locked, and may win
# again until the wall runs out. The experiment `battle-vs-flow` (`experiments/battle-vs-flow.toml`)
# plays the same seats (`expert` at all four) on the same walls under both, as independent
# hands and as 8-hand matches from 100 points. Questions: how widely does a seat's result spread
# per hand and per match, how often does a match cost 50 points or more, and which payments
# move the points?

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))
EXPERIMENT = RUNS / "battle-vs-flow"

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from experiments.figures import reason_shares, report_of, shares_figure
from experiments.cells import match_totals
from experiments.findings import bvf_sentences
from simcore.runs import analysis

rep = report_of(EXPERIMENT, "battle-vs-flow")
cells = {(c["preset"], c["mode"]): c for c in rep["cells"]}
thr = rep["loss_threshold"]
print(f"{rep['hands']:,} hands per cell, seed {rep['seed']}; reproduce with:\n  {rep['command']}")

# %% [markdown]
# ## Net per seat-hand
#
# Read from each cell's `seats/` table. With the same strategy at every seat a hand's four nets do
# not depend on who deals, so the hands and matches cells give the same per-hand distribution;
# they differ in how the hands add up over a match.

# %%
cols = {"seats": ["hand", "match", "seat", "net"], "hands": ["hand"], "payments": ["hand"], "wins": ["hand"]}
seats = {key: analysis.load(EXPERIMENT / c["cell"], columns=cols).seats for key, c in cells.items()}
per_hand = pd.DataFrame({f"{p} ({m})": [cells[(p, m)]["spread"][k] for k in ("sd", "sd_low", "sd_high", "q01", "q99", "min", "max")]
                         for p, m in cells}, index=["sd", "sd_low", "sd_high", "q01", "q99", "min", "max"])
per_hand

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
bins = np.arange(-80, 161, 2)
for preset in ("battle", "flow"):
    net = seats[(preset, "hands")]["net"]
    ax.hist(net.clip(bins[0], bins[-1]), bins=bins, histtype="step", lw=1.5, density=True,
            label=f"{preset}: SD {net.std():.2f}")
ax.set_yscale("log")
ax.set_xlabel("a seat's net in one hand (points; clipped to the axis)")
ax.set_ylabel("share of seat-hands")
ax.set_title("Net per seat-hand")
ax.legend()
plt.show()

# %% [markdown]
# ## A seat's total over an 8-hand match

# %%
fig, ax = plt.subplots(figsize=(8, 3.5))
bins = np.arange(-200, 401, 5)
for preset in ("battle", "flow"):
    t = match_totals(seats[(preset, "matches")], cells[(preset, "matches")]["matches"]["hands_per_match"])["total"]
    ax.hist(t.clip(bins[0], bins[-1]), bins=bins, histtype="step", lw=1.5, density=True,
            label=f"{preset}: SD {t.std():.1f}, P(<= -{thr}) {np.mean(t <= -thr):.2%}")
ax.axvline(-thr, color="black", lw=0.8, ls="--")
ax.set_yscale("log")
ax.set_xlabel("a seat's total over a match (points; clipped to the axis)")
ax.set_ylabel("share of seat-matches")
ax.set_title("8-hand matches")
ax.legend()
plt.show()

# %% [markdown]
# ## Spread and tails with their intervals
#
# SD intervals are clustered on the hand (or match); the tail rate has a Wilson interval over the
# effective number of seat-matches. For the independent-hands cells the "match" is a block of 8
# consecutive hands, for comparison with real matches.

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
labels, sd_h, sd_m, tail = [], [], [], []
for (p, m), c in cells.items():
    labels.append(f"{p}\n{m}")
    sd_h.append((c["spread"]["sd"], c["spread"]["sd_low"], c["spread"]["sd_high"]))
    sd_m.append((c["matches"]["sd"], c["matches"]["sd_low"], c["matches"]["sd_high"]))
    tail.append((c["matches"]["loss_rate"], c["matches"]["loss_low"], c["matches"]["loss_high"]))
for ax, vals, title in zip(axes, (sd_h, sd_m, tail), ("SD of net per hand", "SD of a seat's match total",
                                                       f"P(match total <= -{thr})")):
    v = np.array(vals, float)
    ax.errorbar(np.arange(len(v)), v[:, 0], yerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]], fmt="o", capsize=5)
    ax.set_xticks(np.arange(len(v)), labels, fontsize=8)
    ax.set_title(title)
    ax.set_xlim(-0.5, len(v) - 0.5)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Where the points go: share of all points paid, by payment reason

# %%
reasons = reason_shares({f"{p} ({m})": c for (p, m), c in cells.items() if m == "hands"})
shares_figure(reasons, height=2.6, legend_columns=len(reasons.columns), legend_gap=0.35)
plt.show()
reasons.style.format("{:.2%}")

# %% [markdown]
# ## Finding

# %%
display(Markdown(f"At {rep['hands']:,} hands per cell (seed {rep['seed']}):\n\n"
                 + "\n".join(f"- {s}" for s in bvf_sentences(rep))))
