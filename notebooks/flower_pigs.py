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
# # Flower pigs: how often, and what it costs
#
# A seat still holding a tile of its void suit when the wall runs out is a *flower pig* and pays
# a penalty (16 to each other seat in battle and flow; the cap, 64, to winners and ready seats in
# chengdu; 32 to those still playing in kawu). The experiment `flower-pigs`
# (`experiments/flower-pigs.toml`) plays one cell per void policy (fewest, weakest, random) x play
# strategy (greedy, efficient, expert) x rule preset (battle, flow, chengdu, kawu), the same strategy at
# all four seats, every cell on the same walls. Pigs are rare with a sensible void policy, so
# those cells are eight times larger than the random-void ones.
#
# Rates are per seat-hand, with Wilson 95% intervals (over an effective sample size that allows for
# the four seats of a hand sharing its wall; the design effect is about 1 here).

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))
EXPERIMENT = RUNS / "flower-pigs"

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from experiments.figures import pig_rates_figure, report_of
from experiments.findings import pigs_sentences
from simcore.runs import analysis

rep = report_of(EXPERIMENT, "flower-pigs")
print(f"{len(rep['cells'])} cells, {rep['hands_played']:,} hands, seed {rep['seed']}; reproduce with:\n  {rep['command']}")

# %%
cells = pd.DataFrame([{"cell": c["cell"], **c["labels"], "hands": c["hands"], **c["pigs"]} for c in rep["cells"]])
cells = cells.rename(columns={"rules": "preset"})
cells[["play", "void", "preset", "hands", "pigs", "rate", "rate_low", "rate_high", "rate_checked",
       "pig_net", "penalty", "cost_per_seat_hand"]]

# %% [markdown]
# ## Pig rate by cell
#
# Log scale; a cell without a single pig shows its upper Wilson bound as an open down-pointing
# triangle (the legend, beside the plot, says so).

# %%
pig_rates_figure(cells)
plt.show()

# %% [markdown]
# ## What a pig loses in its pig hand
#
# A pig's net in that hand, read from the cells' `seats/` tables: the penalty plus whatever else
# the hand brought (kong income it refunds, the ready check in kawu).

# %%
pig_rows = []
for c in rep["cells"]:
    if c["pigs"]["pigs"]:
        s = analysis.load(EXPERIMENT / c["cell"], columns={"seats": ["hand", "seat", "net", "net_flower_pig", "flower_pig"],
                                                         "hands": ["hand"], "payments": ["hand"], "wins": ["hand"]}).seats
        s = s[s["flower_pig"].fillna(False).astype(bool)]
        pig_rows.append(s.assign(preset=c["labels"].get("rules", c["preset"]), cell=c["cell"]))
pigs = pd.concat(pig_rows, ignore_index=True) if pig_rows else pd.DataFrame(columns=["net", "preset"])
fig, ax = plt.subplots(figsize=(8, 3.5))
if len(pigs):
    bins = np.arange(pigs["net"].min() - 5, min(pigs["net"].max(), 50) + 10, 5)
    for preset, g in pigs.groupby("preset", sort=False):
        ax.hist(g["net"], bins=bins, histtype="step", lw=1.5, label=f"{preset} (mean {g['net'].mean():+.1f}, {len(g):,} pigs)")
    ax.legend(fontsize=8)
ax.set_xlabel("a pig's net in its pig hand (points)")
ax.set_ylabel("pig seat-hands")
plt.show()
pigs.groupby("preset", sort=False)[["net", "net_flower_pig"]].describe().T if len(pigs) else pigs

# %% [markdown]
# ## Finding

# %%
display(Markdown(f"At {rep['hands']:,} hands per sensible-void cell (seed {rep['seed']}):\n\n"
                 + "\n".join(f"- {s}" for s in pigs_sentences(rep))))
