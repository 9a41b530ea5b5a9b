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
# # Overview: what the shipped experiments say
#
# Nine experiments (`sichuan experiment list` also gives `expert-pigs`, a run that pins expert's
# pig rate, run on its own); the exchange and void questions are asked of an `expert`, an
# `efficient` and a `learned` field:
#
# | experiment | notebook | question |
# |---|---|---|
# | `exchange` | `policies.py` | which three tiles to pass (duplicate, against an `expert` field) |
# | `exchange-efficient` | (`policies.py` with `SICHUAN_EXPERIMENT=exchange-efficient`) | the same against an `efficient` field |
# | `exchange-learned` | (`policies.py` with `SICHUAN_EXPERIMENT=exchange-learned`) | the same against a `learned` field |
# | `void` | `policies.py` with `SICHUAN_EXPERIMENT=void` | which suit to declare void (duplicate, against an `expert` field) |
# | `void-efficient` | (`policies.py` with `SICHUAN_EXPERIMENT=void-efficient`) | the same against an `efficient` field |
# | `void-learned` | (`policies.py` with `SICHUAN_EXPERIMENT=void-learned`) | the same against a `learned` field |
# | `flower-pigs` | `flower_pigs.py` | how often a seat ends as a flower pig, by void policy x play x preset, and the cost |
# | `battle-vs-flow` | `battle_vs_flow.py` | spread and tails per hand and per 8-hand match, and where the points go |
# | `rule-sets` | `rule_sets.py` | what each of the five presets rewards: points moved, payment reasons, fan patterns, exhausted walls |
#
# Duplicate comparisons are paired on the wall: each arm plays every wall at every seat against
# the same field, and the difference from the baseline is taken wall by wall. This notebook reads
# every experiment directory under `SICHUAN_RUNS` and puts the headline numbers side by side.

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

import experiments
from experiments.figures import legend_beside
from experiments.findings import TITLES, sentences

missing = [n for n in experiments.SURVEY if not (RUNS / n / "experiment.json").is_file()]
if missing:
    raise FileNotFoundError(f"no experiment in {', '.join(str(RUNS / n) for n in missing)}: run `make notebooks`")
reports = {n: experiments.load_report(RUNS / n) for n in experiments.SURVEY}
pd.DataFrame([{"experiment": n, "kind": r["kind"], "seed": r["seed"], "hands played": r["hands_played"],
               "command": r["command"]} for n, r in reports.items()]).set_index("experiment")

# %% [markdown]
# ## Strategy choices in duplicate: every arm against its baseline

# %%
rows = [(n, r) for n in ("exchange", "exchange-efficient", "exchange-learned", "void", "void-efficient", "void-learned")
        if n in reports
        for r in reports[n]["rows"] if not r["baseline"]]
# An arm far from its baseline (a random policy, several points a hand) would squash the close ones
# (hundredths) into a dot: those get a panel of their own, on their own scale.
far = [abs(r["diff"]) > 0.5 for _, r in rows]
panels = [[row for row, f in zip(rows, far) if not f], [row for row, f in zip(rows, far) if f]]
panels = [p for p in panels if p]
fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 1 + 0.7 * max(len(p) for p in panels)), squeeze=False)
for ax, part in zip(axes[0], panels):
    y = np.arange(len(part))
    d = np.array([r["diff"] for _, r in part])
    ax.errorbar(d, y, xerr=[d - [r["diff_low"] for _, r in part], [r["diff_high"] for _, r in part] - d], fmt="o",
                capsize=4)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [f"{n}: {r['arm']} vs {reports[n]['baseline']}" for n, r in part])
    ax.set_xlabel("net per hand against the baseline (points), paired 95% interval")
if len(panels) == 2:
    axes[0][0].set_title("close to the baseline")
    axes[0][1].set_title("far from it (its own scale)")
plt.tight_layout()
plt.show()
pd.DataFrame([{"experiment": n, "arm": r["arm"], "diff": r["diff"], "low": r["diff_low"], "high": r["diff_high"],
               "variance removed": r["variance_removed"], "walls for the target width": r["walls_needed"]}
              for n, r in rows])

# %% [markdown]
# ## Flower pigs and the variance of the two variants

# %%
pig = pd.DataFrame([{**c["labels"], **c["pigs"]} for c in reports["flower-pigs"]["cells"]])
pig = pig[pig["play"] == "expert"] if "play" in pig and (pig["play"] == "expert").any() else pig
bvf = {(c["preset"], c["mode"]): c for c in reports["battle-vs-flow"]["cells"]}
fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 3.4), layout="constrained")
voids = list(dict.fromkeys(pig["void"]))
for i, (preset, g) in enumerate(pig.groupby("rules", sort=False)):
    g = g.set_index("void").loc[voids]
    x = np.arange(len(voids)) + (i - 1.5) * 0.12
    has = g["pigs"].to_numpy() > 0
    r, lo, hi = (g[k].to_numpy(float) for k in ("rate", "rate_low", "rate_high"))
    line = a1.errorbar(x[has], r[has], yerr=[r[has] - lo[has], hi[has] - r[has]], fmt="o", capsize=3, label=preset)
    a1.scatter(x[~has], hi[~has], marker="v", facecolors="none", color=line[0].get_color())
a1.set_yscale("log")
a1.set_xticks(np.arange(len(voids)), voids)
a1.set_xlabel("void policy (expert play)")
a1.set_ylabel("flower pigs per seat-hand (Wilson 95%)")
legend_beside(a1, no_pig=bool((pig["pigs"] == 0).any()), fontsize=8)
sd = [(f"{p}\nper hand", bvf[(p, "hands")]["spread"]) for p in ("battle", "flow")] + \
     [(f"{p}\nper match", bvf[(p, "matches")]["matches"]) for p in ("battle", "flow")]
v = np.array([(s["sd"], s["sd_low"], s["sd_high"]) for _, s in sd], float)
a2.errorbar(np.arange(len(v)), v[:, 0], yerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]], fmt="o", capsize=5)
a2.set_xticks(np.arange(len(v)), [s for s, _ in sd])
a2.set_ylabel("SD of a seat's net (points)")
plt.show()

# %% [markdown]
# ## Findings

# %%
text = []
for n, rep in reports.items():
    text.append(f"**{TITLES[n]}** (`{rep['command']}`)\n")
    text += [f"- {s}" for s in sentences(n, rep)]
    text.append("")
display(Markdown("\n".join(text)))
