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
# # Exchange three and void suit: which policy?
#
# Two questions with one analysis. **Exchange**: which three tiles to pass before play.
# **Void**: which suit to declare missing after it. Each shipped experiment (`exchange`,
# `exchange-efficient`, `exchange-learned`, `void`, `void-efficient`, `void-learned`) compares
# policies with everything else fixed;
# set `SICHUAN_EXPERIMENT` (or `NAME` below) to the one to read (`make notebooks` writes a report
# for `exchange` and one for `void`).
#
# Each arm sits at one seat against three players of the field (with their own policies), in all
# four rotations, on the same walls as every other arm (duplicate). An arm's score on a wall is
# its mean net over the four rotations; the comparison is the per-wall difference from the
# baseline, paired on the wall.

# %% tags=["parameters"]
import os
from pathlib import Path

# Where the experiment directories are: `make notebooks` writes runs/notebooks/<experiment>.
RUNS = Path(os.environ.get("SICHUAN_RUNS", "../runs/notebooks"))
NAME = os.environ.get("SICHUAN_EXPERIMENT", "exchange")   # exchange or void, each with -efficient or -learned
EXPERIMENT = RUNS / NAME

# %%
QUESTIONS = {
    "exchange": {"title": "Exchange policy vs the baseline", "intro": """Before play every seat passes three tiles of one suit. The experiment `exchange`
(`experiments/exchange.toml`) compares four policies with everything else fixed (play and
void `expert`): **expert** (the three whose passing leaves the best plan, the field's own
policy and the baseline), **shortest** (three of the shortest suit), **random** (a random
suit) and **keep-pairs**; `exchange-efficient` asks the same of an efficient field,
`exchange-learned` of a learned one."""},
    "void": {"title": "Void policy vs the baseline", "intro": """After the exchange every seat names a suit it will not win with; it must discard every tile of
that suit first, and one still holding such a tile when the wall runs out is a flower pig. The
experiment `void` (`experiments/void.toml`) compares four void policies with everything else
fixed (play and exchange `expert`): **expert** (the suit whose voiding leaves the best plan,
the field's own policy and the baseline), **fewest** (the suit with the fewest tiles),
**weakest** and **random**; `void-efficient` asks the same of an efficient field, `void-learned`
of a learned one."""},
}
QUESTION = NAME.split("-")[0]
display_intro = QUESTIONS[QUESTION]["intro"]

# %%
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from experiments.figures import comparison_table, diff_figure, pairing_figure, pairing_variances, per_wall, report_of
from experiments.findings import duplicate_sentences

rep = report_of(EXPERIMENT, NAME)          # recomputed from the runs
base = rep["baseline"]
display(Markdown(f"## {QUESTIONS[QUESTION]['title']}\n\n{display_intro}"))
print(f"{rep['walls']:,} walls, seed {rep['seed']}; reproduce with:\n  {rep['command']}")

# %% [markdown]
# ## Per-wall scores, from the runs' Parquet tables
#
# `seat_nets` reads each rotation's `seats/` table with pandas and keeps the arm's own seat:
# one column per rotation, one row per wall. The arm's score is the row mean.

# %%
nets, scores, diffs = per_wall(EXPERIMENT, base)   # arm -> DataFrame (wall x rotation); score and diff per wall
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
table = comparison_table(rep)
table

# %%
diff_figure(rep, QUESTIONS[QUESTION]["title"])
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
pairing_figure(nets, diffs, base)
plt.show()
pairing_variances(nets, diffs, base, table, rep["walls"])

# %% [markdown]
# ## Finding

# %%
display(Markdown(f"At {rep['walls']:,} walls (seed {rep['seed']}):\n\n"
                 + "\n".join(f"- {s}" for s in duplicate_sentences(rep))))
