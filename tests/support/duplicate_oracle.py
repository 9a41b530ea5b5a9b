"""The duplicate report as computed before it streamed (the oracle of tests/experiments/test_experiments.py).

Duplicate comparisons: per-wall scores of each arm and paired differences against a reference
arm (the baseline, or any arm given as ``vs``).

Arm A in rotation r is a normal run with the field at every seat except seat r, where A sits;
every run of the experiment has the same seed and hands, so hand g of every run is dealt from
the same wall by the same dealer (wall g depends only on (seed, g)).

- Score of arm A on wall g: ``s_A(g) = mean over r of A's net at seat r in rotation r``.
- Paired difference: ``d(g) = s_A(g) - s_B(g)`` for the reference B; reported as the mean over
  walls with a normal 95% interval ``mean(d) +- 1.96 sd(d) / sqrt(walls)``.
- Unpaired reference: with the same hands but independent walls, each arm would average 4
  independent seat-hands per wall-equivalent, so ``var_unpaired = (var_A + var_B) / 4`` where
  ``var_X`` is the variance of X's single-seat net per hand, pooled over its rotations.
- Variance removed by pairing: ``1 - var(d) / var_unpaired``.
- Walls needed for a 95% interval of full width W: ``ceil((2 * 1.96 * sd(d) / W) ** 2)``;
  hands needed: ``walls * tables``, the experiment's distinct runs (4 rotations per arm,
  identical runs played once), each of which plays every wall.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.runs.analysis import Z95

from experiments.execute import ExperimentError, read_manifest, run_dirs
from tests.support.summary_oracle import load_complete_run


DEFINITIONS = [
    "score of an arm on a wall = mean over the 4 rotations of the arm's net at its seat (points per hand)",
    "diff = mean over walls of (arm score - reference score), 95% normal interval over walls (paired on the wall); "
    "the reference is the baseline unless --vs names another arm",
    "var removed = 1 - var(diff per wall) / var_unpaired, var_unpaired = (var_arm_seat + var_ref_seat) / 4: "
    "unpaired play with the same hands averages 4 independent seat-hands per arm per wall",
    "walls needed for a 95% interval of full width W = ceil((2 * 1.96 * sd(diff) / W)^2); hands = walls x tables "
    "(4 rotations per arm, identical tables played once: an arm equal to the field plays the field's own table)",
    "hands played = walls x tables, as in the first line: every row's comparison is on the same walls",
    "luck estimator: the same with each net less the seat's luck (sum over the hand's draws and the exchange "
    "direction of V(after) - E[V(after)], V the shipped value model): unbiased for any V, less variance; "
    "plain: nets as they are. Both are given on the same walls; variance factor = var(plain diff) / var(luck diff)",
    "CPU per wall: the CPU seconds (user + system) the experiment's processes used playing it, worker processes "
    "included, / walls, for its estimator; the other estimator's through the luck terms' cost measured on the "
    "field's table (with and without luck, same walls)",
]

_COLS = {"seats": ["hand", "seat", "net", "luck"], "hands": ["hand"], "payments": ["hand"], "wins": ["hand"]}


def _load_seats(run_dir: Path, expect_hands: int) -> pd.DataFrame:
    return load_complete_run(run_dir, _COLS, expect_hands).seats


def seat_nets(exp_dir, manifest: dict | None = None, column: str = "net") -> dict[str, pd.DataFrame]:
    """Per arm: a DataFrame indexed by wall (hand) with columns 0-3, the arm's net at seat r in
    rotation r (``column="corrected"``: net - luck)."""
    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    if manifest["spec"]["kind"] != "duplicate":
        raise ExperimentError(f"{exp_dir} holds a {manifest['spec']['kind']} experiment, not a duplicate one")
    hands = int(manifest["hands"])
    cache: dict[Path, pd.DataFrame] = {}
    out = {}
    for arm, dirs in run_dirs(exp_dir, manifest).items():
        cols = {}
        for r, d in enumerate(dirs):
            if d not in cache:
                cache[d] = _load_seats(d, hands)
            s = cache[d].assign(corrected=lambda t: t["net"] - t["luck"])
            cols[r] = s.loc[s["seat"] == r, ["hand", column]].set_index("hand")[column]
            cols[r] = cols[r].astype(np.int64) if column == "net" else cols[r].astype(np.float64)
        out[arm] = pd.DataFrame(cols).sort_index()
    return out


def scores(exp_dir, manifest: dict | None = None) -> pd.DataFrame:
    """Per-wall scores: index wall (hand), one column per arm (mean over its four rotations)."""
    nets = seat_nets(exp_dir, manifest)
    return pd.DataFrame({arm: df.mean(axis=1) for arm, df in nets.items()})


def _f(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _walls_for(sd: float, width: float) -> int:
    return int(math.ceil((2 * Z95 * sd / width) ** 2)) if sd > 0 else 0


def _walls_with_other_rows(exp_dir: Path, manifest: dict, arm: str) -> int | None:
    """Walls on which some rotation of the arm has a seat row unlike the field's table's (the
    field arm's run, when the spec has one with the same rules): at most the walls on which its
    answers differed (different answers almost always, but not always, change some row)."""
    import pyarrow.parquet as pq

    spec = manifest["spec"]
    field_arm = next((a for a in spec["arms"] if a["seat"] == spec["field"] and
                      a["rules"] == next(b for b in spec["arms"] if b["name"] == arm)["rules"]), None)
    if field_arm is None:
        return None
    skip = {"strategy", "play", "exchange_policy", "void_policy"}

    def rows(run):
        t = pd.concat([pq.read_table(f).to_pandas() for f in sorted((exp_dir / run / "seats").glob("*.parquet"))])
        t = t[[c for c in t.columns if c not in skip]].sort_values(["hand", "seat"])
        return t.astype(object).where(t.notna(), "null").astype(str).to_numpy().reshape(-1, 4 * t.shape[1])

    field = rows(manifest["layout"][field_arm["name"]]["runs"][0])
    differ = np.zeros(len(field), bool)
    for run in manifest["layout"][arm]["runs"]:
        differ |= (rows(run) != field).any(axis=1)
    return int(differ.sum())


def comparison(exp_dir, width: float | None = None, manifest: dict | None = None, vs: str | None = None) -> dict:
    """The comparison table of a duplicate experiment as a JSON-ready dict, every arm against
    ``vs`` (default: the baseline)."""
    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    spec = manifest["spec"]
    assert vs is None or vs in [a["name"] for a in spec["arms"]]
    width = float(width if width is not None else spec.get("width", 0.1))
    nets = seat_nets(exp_dir, manifest)
    sc = pd.DataFrame({arm: df.mean(axis=1) for arm, df in nets.items()})
    cc = pd.DataFrame({arm: df.mean(axis=1) for arm, df in seat_nets(exp_dir, manifest, "corrected").items()})
    luck = manifest.get("estimator") == "luck"
    walls = len(sc)
    n_arms = len(nets)
    tables = len({d for e in manifest["layout"].values() for d in e["runs"]})  # identical runs are shared
    base = spec["baseline"] if vs is None else vs
    var_seat = {arm: float(np.var(df.to_numpy().ravel(), ddof=1)) if walls > 1 else math.nan for arm, df in nets.items()}
    rows = []
    for a in spec["arms"]:
        arm = a["name"]
        s = sc[arm].to_numpy()
        d = s - sc[base].to_numpy()
        mean_s = float(s.mean())
        sd_s = float(s.std(ddof=1)) if walls > 1 else math.nan
        dc = cc[arm].to_numpy() - cc[base].to_numpy()
        mean_p = float(d.mean())
        sd_p = float(d.std(ddof=1)) if walls > 1 else math.nan
        half_p = Z95 * sd_p / math.sqrt(walls) if walls > 1 else math.nan
        mean_c = float(dc.mean())
        sd_c = float(dc.std(ddof=1)) if walls > 1 else math.nan
        half_c = Z95 * sd_c / math.sqrt(walls) if walls > 1 else math.nan
        mean_d, sd_d, half = (mean_c, sd_c, half_c) if luck else (mean_p, sd_p, half_p)
        var_unp = (var_seat[arm] + var_seat[base]) / 4
        half_unp = Z95 * math.sqrt(var_unp / walls) if walls > 1 else math.nan
        removed = 1 - sd_p ** 2 / var_unp if var_unp > 0 else math.nan
        walls_needed = _walls_for(sd_d, width) if walls > 1 else None
        walls_unp = _walls_for(math.sqrt(var_unp), width) if walls > 1 else None
        rows.append({
            "arm": arm, "seat": a["seat"], "rules": a.get("rules_label", a["rules"]["preset"]),
            "sweep": a["sweep"]["name"] if "sweep" in a else None, "value": a["sweep"]["value"] if "sweep" in a else None,
            "baseline": arm == spec["baseline"], "reference": arm == base,
            "score": _f(mean_s), "score_low": _f(mean_s - Z95 * sd_s / math.sqrt(walls)) if walls > 1 else None,
            "score_high": _f(mean_s + Z95 * sd_s / math.sqrt(walls)) if walls > 1 else None,
            "var_seat": _f(var_seat[arm]),
            "diff": _f(mean_d), "diff_low": _f(mean_d - half), "diff_high": _f(mean_d + half),
            "sd_diff": _f(sd_d),
            "diff_plain": _f(mean_p), "diff_plain_low": _f(mean_p - half_p), "diff_plain_high": _f(mean_p + half_p),
            "sd_diff_plain": _f(sd_p),
            "diff_luck": _f(mean_c) if luck else None, "diff_luck_low": _f(mean_c - half_c) if luck else None,
            "diff_luck_high": _f(mean_c + half_c) if luck else None, "sd_diff_luck": _f(sd_c) if luck else None,
            "variance_factor": _f(sd_p ** 2 / sd_c ** 2) if luck and sd_c > 0 else None,
            "var_unpaired": _f(var_unp), "unpaired_half_width": _f(half_unp),
            "variance_removed": _f(removed),
            "walls_needed": walls_needed, "hands_needed": None if walls_needed is None else walls_needed * tables,
            "walls_needed_unpaired": walls_unp,
            "hands_needed_unpaired": None if walls_unp is None else walls_unp * tables,
            "walls_differed_at_least": _walls_with_other_rows(exp_dir, manifest, arm),
        })
    return {
        "kind": "duplicate", "name": spec["name"], "description": spec.get("description", ""),
        "seed": manifest["seed"], "walls": walls, "hands_per_arm": walls * 4, "arms": n_arms, "tables": tables,
        "hands_played": sum(int(c["n"]) for c in manifest["runs"].values()),
        "field": spec["field"], "baseline": spec["baseline"], "reference": base, "width": width,
        "estimator": "luck" if luck else "plain",
        "sweeps": _sweeps(spec["arms"]), "rows": rows, "definitions": DEFINITIONS,
    }


def _sweeps(arms: list[dict]) -> list[dict]:
    names = list(dict.fromkeys(a["sweep"]["name"] for a in arms if "sweep" in a))
    return [{"name": n, "seat": next(a["sweep"]["seat"] for a in arms if a.get("sweep", {}).get("name") == n),
             "values": [a["sweep"]["value"] for a in arms if a.get("sweep", {}).get("name") == n],
             "arms": [a["name"] for a in arms if a.get("sweep", {}).get("name") == n]} for n in names]


def take_walls_differed(got: dict, want: dict) -> None:
    """Check each row's recorded walls differed against the oracle's lower bound (different answers
    almost always change some seat row: at most 2% of the walls more), then drop those keys from
    both reports so the rest compare exactly; the CPU per wall (timings, not results) is checked
    to be positive and dropped too."""
    for g in got["rows"]:
        for k in ("cpu_per_wall_plain", "cpu_per_wall_luck"):
            x = g.pop(k)
            assert x is None or x > 0, (k, x)
        assert g.pop("cpu_measured") is True
    for g, w in zip(got["rows"], want["rows"]):
        least = w.pop("walls_differed_at_least")
        n = g.pop("walls_differed")
        share = g.pop("walls_differed_share")
        if least is not None and n is not None:
            assert least <= n <= least + 0.02 * got["walls"], (g["arm"], least, n)
            assert share == n / got["walls"]
