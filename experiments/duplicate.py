"""Duplicate comparisons: per-wall scores of each arm and paired differences against a reference
arm (the spec's baseline, or any arm: ``sichuan experiment report DIR --vs ARM``).

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
  hands needed: ``walls * tables``, where tables is the experiment's runs, each playing every
  wall once: 4 rotations per arm, identical runs shared (an arm equal to the field plays one
  table, the field's own), so it counts hands as the hands played do.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.runs.analysis import Z95

from experiments.execute import ExperimentError, check_complete, read_manifest, run_dirs


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

def _arm_runs(exp_dir, manifest: dict) -> dict[str, list[Path]]:
    if manifest["spec"]["kind"] != "duplicate":
        raise ExperimentError(f"{exp_dir} holds a {manifest['spec']['kind']} experiment, not a duplicate one")
    dirs = run_dirs(exp_dir, manifest)
    hands = int(manifest["hands"])
    for d in {d for ds in dirs.values() for d in ds}:
        check_complete(d, hands)
    return dirs


def _seat_net_matrix(seats, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hands, net at seat r, luck at seat r: NaN where not measured) of one shard's seat rows."""
    seat = seats.column("seat").to_numpy()
    mine = seat == r
    luck = (seats.column("luck").to_numpy(zero_copy_only=False)[mine].astype(np.float64)
            if "luck" in seats.column_names else np.full(int(mine.sum()), np.nan))
    return seats.column("hand").to_numpy()[mine], seats.column("net").to_numpy()[mine].astype(np.int64), luck


def _chunk_nets(tables: dict, dirs: dict, with_luck: bool = False):
    """One chunk: its walls and, per arm, a (walls, 4) array of the arm's net at seat r in
    rotation r (and, ``with_luck``, another of its luck there)."""
    walls, out, lucks = None, {}, {}
    for arm, ds in dirs.items():
        cols, lcols = [], []
        for r, d in enumerate(ds):
            hands, net, luck = _seat_net_matrix(tables[d]["seats"], r)
            if walls is None:
                walls = hands
            elif not np.array_equal(hands, walls):
                raise ExperimentError(f"run {d} holds other hands than the experiment's other runs")
            cols.append(net)
            lcols.append(luck)
        out[arm] = np.stack(cols, axis=1)
        lucks[arm] = np.stack(lcols, axis=1)
    return (walls, out, lucks) if with_luck else (walls, out)


def seat_nets(exp_dir, manifest: dict | None = None, corrected: bool = False) -> dict[str, pd.DataFrame]:
    """Per arm: a DataFrame indexed by wall (hand) with columns 0-3, the arm's net at seat r in
    rotation r (``corrected``: net - luck, NaN where luck was not measured). Whole in memory (for
    notebooks at the shipped sizes); :func:`comparison` streams."""
    from simcore.runs.scan import scan_runs

    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    dirs = _arm_runs(exp_dir, manifest)

    def one(c, t):
        walls, nets, lucks = _chunk_nets(t, dirs, with_luck=True)
        return walls, ({a: nets[a] - lucks[a] for a in nets} if corrected else nets)

    parts = list(scan_runs([d for ds in dirs.values() for d in ds], {"seats": SEAT_COLUMNS}, one))
    walls = np.concatenate([w for w, _ in parts]) if parts else np.zeros(0, np.int64)
    return {arm: pd.DataFrame(np.concatenate([n[arm] for _, n in parts]) if parts else np.zeros((0, 4), np.int64),
                              index=pd.Index(walls, name="hand"), columns=range(4)).sort_index()
            for arm in dirs}


def scores(exp_dir, manifest: dict | None = None, corrected: bool = False) -> pd.DataFrame:
    """Per-wall scores: index wall (hand), one column per arm (mean over its four rotations);
    ``corrected``: of net - luck."""
    nets = seat_nets(exp_dir, manifest, corrected)
    return pd.DataFrame({arm: df.mean(axis=1) for arm, df in nets.items()})


SEAT_COLUMNS = ["hand", "seat", "net", "luck"]


def paired_moments(exp_dir, manifest: dict | None = None, threads: int | None = None, limit: int | None = None) -> dict:
    """Streamed over the experiment's runs chunk by chunk: per arm the moments of its per-wall
    score (``score``) and of its single-seat nets (``seat``), and per ordered pair of arms the
    moments of their per-wall difference (``diff[(a, b)]``); the same of the luck-corrected
    nets, net - luck (``score_luck``, ``diff_luck``), where every hand measured luck (else None).
    ``limit``: of walls 0..limit-1 only."""
    from simcore.runs.analysis import Moments
    from simcore.runs.scan import scan_runs

    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    dirs = _arm_runs(exp_dir, manifest)
    arms = list(dirs)

    def one(chunk, tables):
        walls, nets, lucks = _chunk_nets(tables, dirs, with_luck=True)
        if limit is not None:
            keep = walls < limit
            nets, lucks = {a: x[keep] for a, x in nets.items()}, {a: x[keep] for a, x in lucks.items()}
        sc = {a: nets[a].mean(axis=1) for a in arms}
        measured = all(not np.isnan(lucks[a]).any() for a in arms)
        cc = {a: (nets[a] - lucks[a]).mean(axis=1) for a in arms} if measured else None
        return ({a: Moments.of(sc[a]) for a in arms}, {a: Moments.of(nets[a].ravel().astype(float)) for a in arms},
                {(a, b): Moments.of(sc[a] - sc[b]) for a in arms for b in arms if a != b},
                None if cc is None else ({a: Moments.of(cc[a]) for a in arms},
                                         {(a, b): Moments.of(cc[a] - cc[b]) for a in arms for b in arms if a != b}))

    score = {a: Moments() for a in arms}
    seat = {a: Moments() for a in arms}
    diff = {(a, b): Moments() for a in arms for b in arms if a != b}
    score_l = {a: Moments() for a in arms}
    diff_l = {k: Moments() for k in diff}
    measured = True
    only = None
    if limit is not None and arms:
        cfg = manifest["runs"][manifest["layout"][arms[0]]["runs"][0]]
        only = range(math.ceil(min(limit, int(cfg["n"])) / int(cfg["chunk_hands"])))
    for s_, t_, d_, l_ in scan_runs([d for ds in dirs.values() for d in ds], {"seats": SEAT_COLUMNS}, one,
                                    threads=threads, only=only):
        for a in arms:
            score[a] = score[a] + s_[a]
            seat[a] = seat[a] + t_[a]
        for k in diff:
            diff[k] = diff[k] + d_[k]
        if l_ is None:
            measured = False
        elif measured:
            for a in arms:
                score_l[a] = score_l[a] + l_[0][a]
            for k in diff:
                diff_l[k] = diff_l[k] + l_[1][k]
    zero = Moments(score[arms[0]].n, 0.0, 0.0) if arms else Moments()
    for a in arms:
        diff[(a, a)] = zero
        diff_l[(a, a)] = zero
    return {"score": score, "seat": seat, "diff": diff,
            "score_luck": score_l if measured and arms else None, "diff_luck": diff_l if measured and arms else None}


def _f(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _walls_for(sd: float, width: float) -> int:
    return int(math.ceil((2 * Z95 * sd / width) ** 2)) if sd > 0 else 0


def reference_arm(exp_dir, manifest: dict, vs: str | None) -> str:
    """The arm the differences are taken against: ``vs``, checked to be an arm, or the baseline."""
    spec = manifest["spec"]
    if spec["kind"] != "duplicate":
        if vs is not None:
            raise ExperimentError(f"--vs compares the arms of a duplicate experiment; {exp_dir} holds a "
                                  f"{spec['kind']} experiment")
        raise ExperimentError(f"{exp_dir} holds a {spec['kind']} experiment, not a duplicate one")
    if vs is None:
        return spec["baseline"]
    names = [a["name"] for a in spec["arms"]]
    if vs not in names:
        raise ExperimentError(f"--vs {vs!r} is not an arm of {exp_dir} (arms: {', '.join(names)})")
    return vs


def sweeps(spec_json: dict) -> list[dict]:
    """The sweeps of a duplicate spec's JSON, in arm order: name, seat template, values, arms."""
    out: dict = {}
    for a in spec_json["arms"]:
        sw = a.get("sweep")
        if sw:
            e = out.setdefault(sw["name"], {"name": sw["name"], "seat": sw["seat"], "values": [], "arms": []})
            e["values"].append(sw["value"])
            e["arms"].append(a["name"])
    return list(out.values())


RARELY = 0.01   # an arm that changes play on fewer walls than this is flagged


def walls_differed(manifest: dict, arm: str, walls: int) -> dict:
    """The walls on which any of the arm's rotations answered a question differently from the field
    (recorded by the shadowed play, ``experiments.execute.shadow_groups``): 0 for the field's own
    arm, None where its tables were played in full (``--full-tables``)."""
    entry = manifest["layout"][arm]
    spec = manifest["spec"]
    if entry.get("seat") == spec["field"]:
        return {"walls_differed": 0, "walls_differed_share": 0.0}
    counts = entry.get("differed") or {}
    run = manifest["runs"][entry["runs"][0]]
    n_chunks = math.ceil(int(run["n"]) / int(run["chunk_hands"]))
    if len(counts) != n_chunks:   # some chunks were played in full
        return {"walls_differed": None, "walls_differed_share": None}
    n = sum(v[0] for v in counts.values())
    return {"walls_differed": n, "walls_differed_share": n / walls if walls else None}


def _interval(mo, walls: int) -> tuple[float, float, float, float]:
    """(mean, low, high, sd) of a per-wall difference: the normal 95% interval over walls."""
    if walls < 2:
        return (mo.mean if walls else math.nan), math.nan, math.nan, math.nan
    sd = math.sqrt(mo.var)
    half = Z95 * sd / math.sqrt(walls)
    return mo.mean, mo.mean - half, mo.mean + half, sd


def cpu_per_wall(manifest: dict, walls: int) -> dict:
    """CPU seconds per wall of each estimator: the CPU the experiment's processes used in its
    sessions (user and system time, worker processes included: ``execute.cpu_seconds``) per wall
    for the one it used; the other through the measured cost of the luck terms
    (``execute.luck_cost``); None where unknown (luck not measured, or no timing). Experiments
    from before CPU was measured give their sessions' seconds times their cores
    (``cpu_measured`` False), which a busy machine inflates."""
    t = manifest.get("timings") or {}
    measured = "cpu_seconds" in t
    secs = float(t["cpu_seconds"]) if measured else float(t.get("seconds") or 0.0) * int(manifest.get("cores") or 1)
    used = secs / walls if walls and secs > 0 else None
    if manifest.get("estimator", "plain") != "luck":
        return {"cpu_per_wall_plain": used, "cpu_per_wall_luck": None, "cpu_measured": measured}
    cost = manifest.get("luck_cost") or {}
    ratio = cost["plain_seconds"] / cost["luck_seconds"] if cost.get("luck_seconds") else None
    return {"cpu_per_wall_plain": None if used is None or ratio is None else used * ratio, "cpu_per_wall_luck": used,
            "cpu_measured": measured}


def comparison(exp_dir, width: float | None = None, manifest: dict | None = None, vs: str | None = None,
               limit: int | None = None) -> dict:
    """The comparison table of a duplicate experiment as a JSON-ready dict: every arm against the
    reference arm ``vs`` (default: the spec's baseline), paired on the wall (``limit``: on walls
    0..limit-1 only)."""
    exp_dir = Path(exp_dir)
    manifest = manifest or read_manifest(exp_dir)
    spec = manifest["spec"]
    base = reference_arm(exp_dir, manifest, vs)
    width = float(width if width is not None else spec.get("width", 0.1))
    m = paired_moments(exp_dir, manifest, limit=limit)
    n_arms = len(m["score"])
    walls = m["score"][base].n
    tables = len(manifest["runs"])  # every run plays every wall once, identical runs shared
    played = sum(int(c["n"]) for c in manifest["runs"].values())
    var_seat = {arm: mo.var if walls > 1 else math.nan for arm, mo in m["seat"].items()}
    estimator = manifest.get("estimator", "plain")
    if m["diff_luck"] is None:
        estimator = "plain"
    cpu = cpu_per_wall(manifest, walls)
    rows = []
    for a in spec["arms"]:
        arm = a["name"]
        mean_s = m["score"][arm].mean if walls else math.nan
        sd_s = math.sqrt(m["score"][arm].var) if walls > 1 else math.nan
        plain = _interval(m["diff"][(arm, base)], walls)
        luck = _interval(m["diff_luck"][(arm, base)], walls) if m["diff_luck"] is not None else None
        mean_d, low, high, sd_d = luck if estimator == "luck" else plain
        half = Z95 * sd_d / math.sqrt(walls) if walls > 1 else math.nan
        factor = plain[3] ** 2 / luck[3] ** 2 if luck is not None and walls > 1 and luck[3] > 0 else math.nan
        var_unp = (var_seat[arm] + var_seat[base]) / 4
        half_unp = Z95 * math.sqrt(var_unp / walls) if walls > 1 else math.nan
        removed = 1 - plain[3] ** 2 / var_unp if var_unp > 0 else math.nan
        walls_needed = _walls_for(sd_d, width) if walls > 1 else None
        walls_unp = _walls_for(math.sqrt(var_unp), width) if walls > 1 else None
        sw = a.get("sweep") or {}
        rows.append({
            "arm": arm, "seat": a["seat"], "rules": a.get("rules_label", a["rules"]["preset"]),
            "sweep": sw.get("name"), "value": sw.get("value"),
            "baseline": arm == spec["baseline"], "reference": arm == base,
            "score": _f(mean_s), "score_low": _f(mean_s - Z95 * sd_s / math.sqrt(walls)) if walls > 1 else None,
            "score_high": _f(mean_s + Z95 * sd_s / math.sqrt(walls)) if walls > 1 else None,
            "var_seat": _f(var_seat[arm]),
            "diff": _f(mean_d), "diff_low": _f(low), "diff_high": _f(high), "sd_diff": _f(sd_d),
            "diff_plain": _f(plain[0]), "diff_plain_low": _f(plain[1]), "diff_plain_high": _f(plain[2]),
            "sd_diff_plain": _f(plain[3]),
            **({"diff_luck": _f(luck[0]), "diff_luck_low": _f(luck[1]), "diff_luck_high": _f(luck[2]),
                "sd_diff_luck": _f(luck[3])} if luck is not None else
               {"diff_luck": None, "diff_luck_low": None, "diff_luck_high": None, "sd_diff_luck": None}),
            "variance_factor": _f(factor), **cpu,
            "var_unpaired": _f(var_unp), "unpaired_half_width": _f(half_unp),
            "variance_removed": _f(removed),
            "walls_needed": walls_needed, "hands_needed": None if walls_needed is None else walls_needed * tables,
            "walls_needed_unpaired": walls_unp,
            "hands_needed_unpaired": None if walls_unp is None else walls_unp * tables,
            **walls_differed(manifest, arm, walls),
        })
    return {
        "kind": "duplicate", "name": spec["name"], "description": spec.get("description", ""),
        "seed": manifest["seed"], "walls": walls, "hands_per_arm": walls * 4, "arms": n_arms, "tables": tables,
        "hands_played": played,
        "field": spec["field"], "baseline": spec["baseline"], "reference": base, "width": width,
        "estimator": estimator,
        "sweeps": sweeps(spec), "rows": rows, "definitions": DEFINITIONS,
    }
