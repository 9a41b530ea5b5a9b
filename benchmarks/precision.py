"""The ``precision`` bench section (issue 36): what a duplicate comparison's precision costs, per
layer. On the bench's eight policy cells (exchange and void, battle and flow, expert and
efficient fields), each arm is compared with its field four ways on the same walls:

- plain: ``--estimator plain --draw-order table --full-tables`` (duplicate as it was);
- draw order: ``--draw-order seat`` alone;
- play where arms differ: the shadowed play alone;
- luck: the luck-corrected estimate alone (its CPU includes measuring luck);
- all: ``--draw-order seat --estimator luck``, shadowed (the defaults).

Efficiency = (variance plain / variance new) x (CPU per wall plain / CPU per wall new), the CPU
being the comparison's own (its process's user and system time, so the machine's other load
and the number of cores do not enter). The flow void cell also gives the CPU a 95% interval of
full width 0.004 costs, and the width 10 CPU-minutes on two cores buy.

    python -m benchmarks.bench --only precision             # 40,000 walls a cell and layer
    python -m benchmarks.bench --only precision --quick     # 5,000
"""

from __future__ import annotations

import json
import math
import resource
import statistics
import subprocess
import sys
from pathlib import Path

# layer: (draw order, full tables, estimator)
LAYERS = {"plain": ("table", True, "plain"), "draw order": ("seat", True, "plain"),
          "play where arms differ": ("table", False, "plain"), "luck": ("table", True, "luck"),
          "all": ("seat", False, "luck")}
SEED = 1
TARGET_WIDTH = 0.004
Z95 = 1.959963984540054


def compare_cpu(a: str, b: str, rules: str, walls: int, order: str, full: bool,
                estimator: str = "plain") -> tuple[dict, float]:
    """``sichuan compare`` in a subprocess: A's row and the CPU seconds it used."""
    exe = str(Path(sys.executable).with_name("sichuan"))
    args = [exe, "compare", a, b, "--rules", rules, "--hands", str(walls), "--seed", str(SEED), "--json", "-q",
            "--draw-order", order, "--estimator", estimator] + (["--full-tables"] if full else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(args, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"sichuan compare {a} {b} failed: {out.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(out.stdout)["rows"][0], cpu


def bench_precision(ctx, figures_cls, log, cells) -> dict:
    walls = 5_000 if ctx.quick else 40_000
    log(f"precision: {len(cells)} cells x {len(LAYERS)} layers, {walls:,} walls each")
    figs = figures_cls()
    effs = {name: [] for name in LAYERS if name != "plain"}
    table = f"efficiency over plain duplicate, (var ratio) x (CPU ratio) ({walls:,} walls a cell; columns: layer)"
    warm = cells[0]
    compare_cpu(warm[2], warm[3], warm[0], 200, "seat", False, "luck")   # compile once before anything is timed
    flow_void = {}
    for rules, label, arm, field in cells:
        got = {name: compare_cpu(arm, field, rules, walls, *layer) for name, layer in LAYERS.items()}
        var_p = got["plain"][0]["sd_diff"] ** 2
        cpu_p = got["plain"][1] / walls
        for name, (row, cpu) in got.items():
            if name == "plain":
                continue
            eff = (var_p / row["sd_diff"] ** 2) * (cpu_p / (cpu / walls))
            effs[name].append(eff)
            figs.add(f"{rules}_{label}_{name}", f"{rules}, {label}: {name}", eff, "x", 2,
                     note=f"var ×{var_p / row['sd_diff'] ** 2:.2f}, CPU ×{cpu_p / (cpu / walls):.2f}"
                          + (f", walls differed {row['walls_differed_share']:.1%}"
                             if row.get("walls_differed_share") is not None else ""),
                     grid=(table, f"{rules}, {label}", name))
        if label.startswith("void") and label.endswith("expert field") and rules == "flow":
            flow_void = got
    for name, values in effs.items():
        figs.add(f"median_{name}", f"median efficiency: {name}", statistics.median(values), "x", 2,
                 target=("≥ 10", (lambda v: v >= 10)) if name == "all" else None)
    if flow_void:
        row, cpu = flow_void["all"]
        per_wall = cpu / walls
        need = math.ceil((2 * Z95 * row["sd_diff"] / TARGET_WIDTH) ** 2)
        figs.add("flow_void_minutes", f"flow void cell: 2-core minutes to a 95% interval of full width {TARGET_WIDTH}",
                 need * per_wall / 2 / 60, "min", 1, ("≤ 3", lambda v: v <= 3),
                 note=f"{need:,} walls at {per_wall * 1e3:.2f} CPU-ms a wall; plain: "
                      f"{math.ceil((2 * Z95 * flow_void['plain'][0]['sd_diff'] / TARGET_WIDTH) ** 2) * flow_void['plain'][1] / walls / 2 / 60:.1f} min")
        ten = 10 * 60 * 2 / per_wall
        figs.add("flow_void_width_10min", "flow void cell: full width reached in 10 minutes on 2 cores",
                 2 * Z95 * row["sd_diff"] / math.sqrt(ten), "", 4)
    return figs
