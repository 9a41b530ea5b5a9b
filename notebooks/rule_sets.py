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
# # Rule sets: what each one rewards
#
# The five presets (`sichuan rules PRESET`; `sichuan rules --diff battle tfmj` shows how two
# differ): `battle` (blood battle, a 4-fan cap), `flow` (blood flow: a winner stays and wins
# again), `chengdu` (a 6-fan cap, limit hands, the pig pays the cap, the discard after a kong pays
# for all), `kawu` (no exchange, a 5-fan cap, the passed-win lock) and `tfmj` (the 2024 competition
# standard: a 3-fan cap, call transfer, a fan for a win on a kong seat's discard). The experiment
# `rule-sets` (`experiments/rule-sets.toml`) plays the same seats (`expert` at all four) on the same
# walls under each. Questions: how many points does a hand move and how widely does a seat's net
# spread, which payments carry them, how often does each fan pattern score and what are its wins
# worth, and how often does a hand run to the end of the wall or leave a flower pig?
#
# The cells share their walls but not their play (`expert` reads the rules), so each interval is
# the cell's own: a difference between two cells is not a paired comparison.

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))
EXPERIMENT = RUNS / "rule-sets"

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from experiments.figures import reason_shares, report_of, shares_figure
from experiments.findings import rules_sentences
from simcore.runs import analysis
from simcore.contract.evaluate import PATTERNS

rep = report_of(EXPERIMENT, "rule-sets")
cells = {c["preset"]: c for c in rep["cells"]}
presets = list(cells)
print(f"{rep['hands']:,} hands per cell, seed {rep['seed']}; reproduce with:\n  {rep['command']}")


def errorbars(ax, values, labels, **kw):
    """Points with their 95% intervals: values is a list of (x, low, high)."""
    v = np.array([[np.nan if x is None else x for x in t] for t in values], float)
    ax.errorbar(np.arange(len(v)), v[:, 0], yerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]], fmt="o", capsize=5, **kw)
    ax.set_xticks(np.arange(len(v)), labels)
    ax.set_xlim(-0.5, len(v) - 0.5)


# %% [markdown]
# ## Points moved per hand and the spread of a seat's net
#
# Points moved per hand, net, is half the sum of |net| over the four seats: what the hand's
# losers pay its winners on balance (normal 95% interval over hands). The SD of a seat's net per
# hand has its interval clustered on the hand (the four nets of a hand sum to zero).

# %%
fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.4))
errorbars(a1, [(c["ends"]["net_moved"], c["ends"]["net_moved_low"], c["ends"]["net_moved_high"])
               for c in cells.values()], presets)
a1.set_ylabel("points moved per hand (net)")
a1.set_ylim(bottom=0)
errorbars(a2, [(c["spread"]["sd"], c["spread"]["sd_low"], c["spread"]["sd_high"]) for c in cells.values()], presets)
a2.set_ylabel("SD of a seat's net per hand")
a2.set_ylim(bottom=0)
plt.tight_layout()
plt.show()
pd.DataFrame({p: {"net moved/hand": c["ends"]["net_moved"], "SD of net moved": c["ends"]["net_moved_sd"],
                  "SD of a seat's net": c["spread"]["sd"], "1%": c["spread"]["q01"], "99%": c["spread"]["q99"],
                  "min": c["spread"]["min"], "max": c["spread"]["max"]} for p, c in cells.items()}).T

# %% [markdown]
# A seat's net per hand, read from each cell's `seats/` table:

# %%
cols = {"seats": ["hand", "seat", "net"], "hands": ["hand"], "payments": ["hand"], "wins": ["hand"]}
seats = {p: analysis.load(EXPERIMENT / c["cell"], columns=cols).seats for p, c in cells.items()}
fig, ax = plt.subplots(figsize=(8, 3.5))
bins = np.arange(-80, 161, 2)
for p, s in seats.items():
    ax.hist(s["net"].clip(bins[0], bins[-1]), bins=bins, histtype="step", lw=1.3, density=True,
            label=f"{p}: SD {s['net'].std():.2f}")
ax.set_yscale("log")
ax.set_xlabel("a seat's net in one hand (points; clipped to the axis)")
ax.set_ylabel("share of seat-hands")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## Where the points go: share of all points paid, by payment reason
#
# Every payment counts here (gross), so these shares are of more points than the net moved above.

# %%
reasons = reason_shares(cells)
shares_figure(reasons, height=3, legend_columns=4, legend_gap=0.25)
plt.show()
pd.DataFrame({p: {"points paid/hand": c["reasons"]["points_per_hand"],
                  **{r: x["share"] for r, x in c["reasons"]["reasons"].items() if r in reasons.columns}}
              for p, c in cells.items()}).T.style.format({"points paid/hand": "{:.2f}",
                                                          **{r: "{:.2%}" for r in reasons.columns}})

# %% [markdown]
# ## Fan patterns: how often each scores, and what its wins are worth
#
# Of all wins (several per hand in blood flow), the share in which each pattern scores (Wilson 95%
# over the effective number of wins, clustered on the hand), and the mean base of those wins
# (delta-method 95%, clustered on the hand). Patterns that no rule set scores are left out.

# %%
pats = [p for p in PATTERNS if any(c["patterns"]["patterns"][p]["wins"] for c in cells.values())]
fig, (a1, a2) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
width = 0.8 / len(cells)
for i, (p, c) in enumerate(cells.items()):
    x = np.arange(len(pats)) + (i - (len(cells) - 1) / 2) * width
    pp = c["patterns"]["patterns"]
    share = np.array([pp[k]["share"] for k in pats])
    lo = np.array([pp[k]["share_low"] for k in pats])
    hi = np.array([pp[k]["share_high"] for k in pats])
    a1.bar(x, share, width, yerr=[share - lo, hi - share], capsize=2, label=p)
    base = np.array([np.nan if pp[k]["base"] is None else pp[k]["base"] for k in pats])
    blo = np.array([np.nan if pp[k]["base_low"] is None else pp[k]["base_low"] for k in pats])
    bhi = np.array([np.nan if pp[k]["base_high"] is None else pp[k]["base_high"] for k in pats])
    a2.errorbar(x, base, yerr=[base - blo, bhi - base], fmt="o", ms=4, capsize=2, label=p)
a1.set_ylabel("share of wins it scores in")
a1.legend(fontsize=8, ncol=len(cells))
a2.set_yscale("log", base=2)
a2.set_ylabel("mean base of those wins")
a2.set_xticks(np.arange(len(pats)), pats, rotation=30, ha="right")
plt.tight_layout()
plt.show()
pd.DataFrame({p: {"wins/hand": c["patterns"]["wins_per_hand"], "mean base of a win": c["patterns"]["base"],
                  **{k: c["patterns"]["patterns"][k]["share"] for k in pats}} for p, c in cells.items()}).T

# %% [markdown]
# ## How hands end: the exhausted wall and flower pigs
#
# Blood flow plays every hand to the end of the wall; in the battle variants a hand ends early when
# three seats have won. A flower pig (a seat still holding its void suit when the wall runs out) is
# rare under `expert`'s void policy; `flower-pigs` measures it with more hands.

# %%
fig, ax = plt.subplots(figsize=(6, 3.2))
errorbars(ax, [(c["ends"]["rate"], c["ends"]["rate_low"], c["ends"]["rate_high"]) for c in cells.values()], presets)
ax.set_ylabel("share of hands ending\nwith the wall exhausted")
ax.set_ylim(0, 1.05)
plt.show()
pd.DataFrame({p: {"wall exhausted": c["ends"]["rate"], "low": c["ends"]["rate_low"], "high": c["ends"]["rate_high"],
                  "pigs": c["pigs"]["pigs"], "pig rate": c["pigs"]["rate"], "pig rate high": c["pigs"]["rate_high"],
                  "pig's net": c["pigs"]["pig_net"]} for p, c in cells.items()}).T

# %% [markdown]
# ## Finding

# %%
display(Markdown(f"At {rep['hands']:,} hands per cell (seed {rep['seed']}):\n\n"
                 + "\n".join(f"- {s}" for s in rules_sentences(rep))))
