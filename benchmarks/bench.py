"""Benchmarks: the figures `make bench` measures, checked against the project's targets.

    python -m benchmarks.bench                         # every section; BENCHMARKS.md gains an entry
    python -m benchmarks.bench --only engine,ladder    # some sections (the entry holds only those)
    python -m benchmarks.bench --quick                 # smaller sizes, for a quick look

Sections print their figures as they go (progress on stderr) and return a dict of figures:

- ``evaluator``: ns per shanten and per win test in a jitted loop; warm table load;
- ``engine``: engine-only hands/s (``run_batch``) on one core and on all cores;
- ``ladder``: the strategy ladder (``sichuan ladder`` at its defaults, in a subprocess): every play
  1 vs 3 in duplicate against each field under each preset, its score matrix with intervals, the
  expert's paired differences and per-play statistics (it superseded ``strength``, each play
  against a greedy field in battle, which is its battle / greedy column);
- ``policies``: ``exchange=expert`` against ``shortest`` and ``void=expert`` against ``fewest``
  in duplicate, in the expert and the efficient field, battle and flow;
- ``runs``: ``sichuan simulate`` end to end: throughput, peak memory, cold and warm start;
- ``dask``: the local executor against Dask, and what one more chunk costs;
- ``search``: the search player's speed and strength in duplicate, its exchange and void
  policies, a curve of strength against rollouts, and ``sichuan analyze``'s speed;
- ``precision`` (only when named): a duplicate comparison's efficiency (variance and CPU per
  wall) layer by layer, on the policy cells (``benchmarks.precision``);
- ``coverage`` (only when named): the coverage of ``--until-width`` intervals on a real cell,
  400 runs against a reference of 100 times the walls (``benchmarks.coverage``);
- ``draw-order`` (only when named): the per-seat draw order against the table order, the same
  seeds' hands under both (``benchmarks.draw_order``);
- ``versus`` (only when named): this tree's engine speed against another commit's
  (``--base REV``), measured alternately in one session;
- ``compile`` (only when named): seconds to compile each engine entry point on an empty cache
  (``benchmarks.compile``).

The figures, their targets and the engine's throughput measure live in ``benchmarks/figures.py``,
which the sections in modules of their own share (none of them imports this file).

Every run appends an entry to ``benchmarks/history.json`` (next to the output file), and the
markdown file is regenerated from that history, newest entry first.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np

from simcore.contract.evaluate import is_win, regular_shanten, shanten
from simcore.contract.rules import PRESETS

from benchmarks.figures import (BATCH_HANDS, SEED, Figures, at_least, at_most, fmt_value, hands_per_second, log,
                                seat_fns)

ROOT = Path(__file__).resolve().parent.parent
PLAYS = ("random", "greedy", "efficient", "flush", "defensive", "expert")


@dataclass
class Context:
    """What sections share: the size switch, this run's results so far, the earlier history."""

    quick: bool
    results: dict = field(default_factory=dict)
    history: list = field(default_factory=list)
    base: str = "HEAD~1"    # the commit the ``versus`` section compares this tree with

    def latest(self, section: str, key: str):
        """This run's figure if measured, else the most recent recorded one (or None)."""
        if key in self.results.get(section, {}):
            return self.results[section][key]["value"]
        for entry in reversed(self.history):
            fig = entry["sections"].get(section, {}).get(key)
            if fig and fig.get("value") is not None:
                return fig["value"]
        return None


def all_threads() -> int:
    return int(nb.config.NUMBA_NUM_THREADS)


# -- evaluator ----------------------------------------------------------------------------


@nb.njit(cache=True)
def _random_hands(n, seed, two_suits):
    """n random 14-tile hands from the 108 tiles, and a void for each. With two_suits the
    hand's tiles come from the two suits other than its (random) void, so the win test does
    its full work instead of stopping at a void tile; otherwise the void is the suit the hand
    holds fewest of, as the default void policy picks."""
    np.random.seed(seed)
    hands = np.zeros((n, 27), np.int64)
    voids = np.zeros(n, np.int64)
    pool = np.zeros(108, np.int64)
    for i in range(n):
        v = np.random.randint(0, 3)
        m = 0
        for t in range(27):
            if not two_suits or t // 9 != v:
                for _ in range(4):
                    pool[m] = t
                    m += 1
        for j in range(14):
            r = j + np.random.randint(0, m - j)
            pool[j], pool[r] = pool[r], pool[j]
            hands[i, pool[j]] += 1
        if not two_suits:
            best = 99
            for s in range(3):
                c = 0
                for t in range(s * 9, s * 9 + 9):
                    c += hands[i, t]
                if c < best:
                    best = c
                    v = s
        voids[i] = v
    return hands, voids


# Not cached: numba's cache would not notice a change in simcore.contract.evaluate. ``fn`` is one of the
# evaluator's jitted functions (compiled into its own specialization of the loop).
@nb.njit
def _eval_loop(fn, tab, hands, voids, passes):
    acc = 0
    for _ in range(passes):
        for i in range(hands.shape[0]):
            acc += fn(tab, hands[i], voids[i], 0)
    return acc


def _ns_per_call(fn, tab, hands, voids, calls: int, reps: int = 5) -> float:
    """Best of ``reps`` timings of ``calls`` evaluations of ``fn`` (passes over the hands),
    after one pass that compiles and warms."""
    passes = max(1, calls // len(hands))
    _eval_loop(fn, tab, hands, voids, 1)
    best = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        _eval_loop(fn, tab, hands, voids, passes)
        best = min(best, time.perf_counter() - t0)
    return best / (len(hands) * passes) * 1e9


def _table_load_ms(reps: int = 9) -> float:
    """Best warm load of the cached table file: the in-process memo is cleared before each
    load, so what is timed is reading and checking the file (the OS has it cached)."""
    from simcore.contract import tables

    tables.load_tables()
    kept = tables._TAB
    best = math.inf
    try:
        for _ in range(reps):
            tables._TAB = None
            t0 = time.perf_counter()
            tables.load_tables()
            best = min(best, time.perf_counter() - t0)
    finally:
        tables._TAB = kept
    return best * 1e3


# Distinct hands per set: 4,096 int64 hands (0.9 MB) stay in the core's cache as the hand
# being evaluated does in the engine, so the figure is the evaluator's cost and not the cost of
# streaming a million hands from memory (which alone was about 20 ns a hand). The table
# lookups stay random.
EVAL_HANDS = 4096


def bench_evaluator(ctx: Context) -> Figures:
    """The evaluator's cost per call on one core, in a jitted loop like the engine's."""
    from simcore.contract.tables import load_tables

    nb.set_num_threads(1)
    n = 200_000 if ctx.quick else 1_000_000
    tab = load_tables()
    figs = Figures()
    log(f"evaluator: {n:,} evaluations per figure over {EVAL_HANDS:,} random hands per set")
    hands, voids = _random_hands(EVAL_HANDS, SEED, True)
    figs.add("shanten_ns", "shanten, 14 tiles of two suits, void the third",
             _ns_per_call(shanten, tab, hands, voids, n), "ns", 1, at_most(20, "ns"))
    figs.add("regular_ns", "regular shanten alone (tables, no seven pairs), same hands",
             _ns_per_call(regular_shanten, tab, hands, voids, n), "ns", 1)
    figs.add("win_ns", "win test, same hands", _ns_per_call(is_win, tab, hands, voids, n), "ns", 1)
    hands, voids = _random_hands(EVAL_HANDS, SEED + 1, False)
    figs.add("shanten_dealt_ns", "shanten, 14 tiles of three suits, void the shortest",
             _ns_per_call(shanten, tab, hands, voids, n), "ns", 1, at_most(20, "ns"))
    figs.add("win_dealt_ns", "win test, same hands (void tiles end it early)",
             _ns_per_call(is_win, tab, hands, voids, n), "ns", 1)
    figs.add("table_load_ms", "suit tables, warm load from disk (best of 9)", _table_load_ms(), "ms", 2,
             at_most(50, "ms"))
    return figs


# -- engine -------------------------------------------------------------------------------

ENGINE_CASES = [("battle", p) for p in PLAYS] + [(r, p) for r in PRESETS if r != "battle"
                                                 for p in ("greedy", "efficient")]
ENGINE_TARGETS = {("battle", "greedy"): 100_000, ("battle", "efficient"): 40_000}


def bench_engine(ctx: Context) -> Figures:
    """Hands/s of the jitted engine alone (no Parquet, no processes), per play and preset."""
    from simcore.contract.rules import preset

    min_seconds = 0.5 if ctx.quick else 2.0
    figs = Figures()
    for threads, where in ((1, "1core"), (all_threads(), "all")):
        for rules_name, play in ENGINE_CASES:
            log(f"engine: {play} under {rules_name}, {threads} thread(s)")
            rate, replayed, batches = hands_per_second(preset(rules_name), seat_fns(play), threads, min_seconds)
            bound = ENGINE_TARGETS.get((rules_name, play)) if threads == 1 else None
            label = f"{play}, {rules_name}, {'1 core' if threads == 1 else f'{threads} cores'}"
            note = f"{replayed} of {batches} batches had a hand that outgrew the result slots, replayed alone" if replayed else None
            figs.add(f"{rules_name}_{play}_{where}", label, rate, "hands/s", 0,
                     at_least(bound, "hands/s") if bound else None, note=note)
    # issue 15: the expert (with its own policies) at all four seats plays at least a third of
    # efficient's hands per second, both measured above in this run
    figs.add("expert_vs_efficient", "expert / efficient hands/s, battle, 1 core",
             figs["battle_expert_1core"]["value"] / figs["battle_efficient_1core"]["value"] * 100, "%", 1,
             at_least(100 / 3, "%"))
    return figs


# -- ladder -------------------------------------------------------------------------------

LADDER_WALLS = 20_000        # the ladder's default (experiments/ladder.py); --quick plays this / 10
LADDER_STATS = (("wins_per_hand", "wins/hand", 1, "", 3), ("self_draw_share", "self-drawn", 100, "%", 1),
                ("mean_base", "mean base", 1, "", 2), ("deal_in_rate", "deal-in", 100, "%", 2),
                ("exhausted_share", "exhausted", 100, "%", 1))


def run_ladder_command(walls: int, *extra: str) -> tuple[dict, float]:
    """``sichuan ladder --walls N --seed 1 --json [extra]`` in a subprocess (the core does not import the
    experiments layer that holds it), its progress lines passed on to stderr: (report, seconds)."""
    exe = str(Path(sys.executable).with_name("sichuan"))
    args = [exe, "ladder", "--walls", str(walls), "--seed", str(SEED), "--json", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tail: list[str] = []

    def relay():
        for line in proc.stderr:
            log("  " + line.rstrip())
            tail[:] = (tail + [line.strip()])[-3:]

    relayer = threading.Thread(target=relay, daemon=True)
    relayer.start()
    out = proc.stdout.read()
    proc.wait()
    relayer.join()
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"sichuan ladder --walls {walls} failed ({proc.returncode}): {' | '.join(tail)}")
    return json.loads(out), seconds


def bench_ladder(ctx: Context) -> Figures:
    """The strategy ladder at its defaults (``sichuan ladder``): every play 1 vs 3 in duplicate
    against each field (every play, and the mixed field) under each preset. It supersedes the
    ``strength`` section (each play against a greedy field in battle), whose figures are its
    battle / greedy column; ``random`` is no longer a play of its own (it sits in the mixed field)."""
    walls = LADDER_WALLS // 10 if ctx.quick else LADDER_WALLS
    log(f"ladder: sichuan ladder --walls {walls:,} --seed {SEED} (every play, field and preset)")
    rep, seconds = run_ladder_command(walls)
    figs = Figures()
    figs.add("seconds", f"sichuan ladder --walls {walls:,}: wall time, whole command", seconds, "s", 0)
    figs.add("hands", f"hands played ({rep['tables']:,} tables of {walls:,} walls)", rep["hands"], "", 0)
    figs.add("replayed", "hands replayed with the event log to count discards", rep["replayed"], "", 0)
    figs.add("rate", "hands played per second, replays included", rep["hands"] / seconds, "hands/s", 0)
    for name in rep["presets"]:
        res = rep["results"][name]
        for field in rep["fields"]:
            for play in rep["plays"]:
                c = res["scores"][field][play]
                target = None
                if (name, field, play) == ("battle", "greedy", "efficient"):
                    target = ("interval > 0", lambda _, lo=c["low"]: lo is not None and lo > 0)
                figs.add(f"score_{name}_{field}_{play}", f"{name}, field {field}: {play}", c["mean"], "", 3, target,
                         c["low"], c["high"], note="the field itself" if c["field"] else None,
                         grid=(f"scores, {name} (rows: plays, columns: fields)", play, field))
    if {"defensive", "efficient"} <= set(rep["plays"]) and "greedy" in rep["fields"]:
        d = rep["results"]["battle"]["diffs"]["greedy"]["defensive"]["efficient"] if "battle" in rep["presets"] else None
        if d:
            figs.add("battle_greedy_defensive_minus_efficient", "battle, field greedy: defensive − efficient, paired "
                     "on the walls", d["mean"], "", 3, ("low end > −0.05", lambda _: d["low"] > -0.05), d["low"],
                     d["high"])
    for focus in rep["focus"]:
        for name in rep["presets"]:
            for field in rep["fields"]:
                for other in rep["plays"]:
                    if other == focus:
                        continue
                    d = rep["results"][name]["diffs"][field][focus][other]
                    figs.add(f"diff_{name}_{field}_{focus}_{other}", f"{name}, field {field}: {focus} − {other}",
                             d["mean"], "", 3, None, d["low"], d["high"],
                             grid=(f"{focus} minus each other play, {name} (rows: the other play, columns: fields)",
                                   f"− {other}", field))
    for name in rep["presets"]:
        pooled = rep["results"][name]["stats"]["pooled"]
        for play in rep["plays"]:
            for key, col, scale, unit, digits in LADDER_STATS:
                v = pooled[play][key]
                figs.add(f"stat_{name}_{play}_{key}", f"{name}: {play}, {col}", None if v is None else v * scale,
                         unit, digits, grid=(f"per play, {name}, pooled over the fields", play, col))
    return figs


EXPERT_FIELD = "expert+exchange=expert+void=expert"
EFFICIENT_FIELD = "efficient+exchange=shortest+void=fewest"
# (part, the other policy, its expert-field arm, its efficient-field arm): each arm differs from
# its field in that policy
POLICY_ARMS = (("exchange", "shortest", "expert+exchange=shortest+void=expert", "efficient+exchange=expert+void=fewest"),
               ("void", "fewest", "expert+exchange=expert+void=fewest", "efficient+exchange=shortest+void=expert"))


# The policies differ on few deals and by little: 20,000 walls cannot tell them apart. A flow hand's
# net spreads 2.2 times as wide as a battle hand's (README, Findings), so flow gets five times the
# walls, for intervals about as wide as battle's.
POLICY_WALLS = {"battle": 100_000, "flow": 500_000}


def bench_policies(ctx: Context) -> Figures:
    """Issue 15: ``exchange=expert`` beats ``shortest`` and ``void=expert`` beats ``fewest`` in the
    expert and the efficient field, battle and flow (``sichuan compare``). Each arm differs from
    its field only in that policy, so its duplicate score is the paired difference (the expert
    field's arm plays the other policy: its score is negated)."""
    sizes = {rules: w // 10 if ctx.quick else w for rules, w in POLICY_WALLS.items()}
    where = f"{sizes['battle']:,} walls a battle cell, {sizes['flow']:,} a flow cell"
    log(f"policies: sichuan compare, {where}")
    figs = Figures()
    for rules, walls in sizes.items():
        for part, other, in_expert, in_efficient in POLICY_ARMS:
            for field, spec, arm, sign in (("expert", EXPERT_FIELD, in_expert, -1),
                                           ("efficient", EFFICIENT_FIELD, in_efficient, 1)):
                r = run_compare(arm, spec, rules, walls)
                lo, hi = sorted((sign * r["diff_low"], sign * r["diff_high"]))
                figs.add(f"{rules}_{part}_{field}", f"{rules}, field {field}: {part}=expert − {part}={other}",
                         sign * r["diff"], "", 3, ("interval > 0", lambda _, lo=lo: lo > 0), lo, hi,
                         grid=(f"expert's policy minus the other, in duplicate ({where}; columns: preset / field)",
                               f"{part}=expert − {other}", f"{rules} / {field}"))
    return figs


# -- search (issue 18) --------------------------------------------------------------------------

SEARCH_WALLS = 500          # walls per strength cell (each is four search hands)
SEARCH_TARGET_WALLS = 2_000  # the cells with a target (battle and flow against expert): narrow enough to judge it
SEARCH_SIDE_WALLS = 5_000   # exchange=search and void=search (cheap: two decisions a hand)


def run_compare(a: str, b: str, rules: str, walls: int, *extra: str) -> dict:
    """``sichuan compare A B --rules R --hands W --json [extra]`` in a subprocess: A's row."""
    exe = str(Path(sys.executable).with_name("sichuan"))
    out = subprocess.run([exe, "compare", a, b, "--rules", rules, "--hands", str(walls), "--seed", str(SEED),
                          "--json", "-q", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"sichuan compare {a} {b} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)["rows"][0]


def _search_rate(spec: str, hands: int) -> float:
    from simcore.runs.batch import run_batch
    from simcore.contract.rules import preset

    fns = seat_fns(spec)
    run_batch(preset("battle"), fns, SEED, 0, 4, threads=1)
    t0 = time.perf_counter()
    run_batch(preset("battle"), fns, SEED, 10_000, hands, threads=1)
    return hands / (time.perf_counter() - t0)


def bench_search(ctx: Context) -> Figures:
    """The search player (issue 18): its speed, ``sichuan analyze``'s, and its strength in
    duplicate (``sichuan compare``) against the expert and efficient fields, its exchange and
    void policies, and a curve of strength against rollouts per candidate."""
    from simcore.inspection.review import hand_setup, judge_hand

    walls = max(SEARCH_WALLS // 10, 20) if ctx.quick else SEARCH_WALLS
    target_walls = max(SEARCH_TARGET_WALLS // 10, 20) if ctx.quick else SEARCH_TARGET_WALLS
    side = max(SEARCH_SIDE_WALLS // 10, 50) if ctx.quick else SEARCH_SIDE_WALLS
    figs = Figures()
    n = 40 if ctx.quick else 300
    rate = _search_rate("search,expert,expert,expert", n)
    figs.add("rate_search", "battle: search (defaults) at one seat, three expert: hands/s on one core", rate,
             "hands/s", 1, at_least(20, "hands/s"))
    figs.add("rate_expert", "battle: expert at all four seats: hands/s on one core (same run)",
             _search_rate("expert", 3000), "hands/s", 0)
    h = hand_setup(hand=3, seed=7)
    judge_hand(h, 0, 0, 10)  # compile and warm
    t0 = time.perf_counter()
    rows = judge_hand(h, 0, 0, 1000)
    figs.add("analyze_exchange", f"sichuan analyze: the exchange of hand 3 (seed 7), {len(rows)} candidates x 1,000 "
             "rollouts", time.perf_counter() - t0, "s", 2, at_most(2, "s"))
    log(f"search: duplicate cells of {walls:,} walls ({target_walls:,} where a target is)")
    targets = {("battle", "expert"): 0.3, ("flow", "expert"): 0.5}
    for rules in ("battle", "flow", "kawu"):
        for field in ("expert", "efficient"):
            for play in ("search", "expert") if field == "efficient" else ("search",):
                goal = targets.get((rules, field)) if play == "search" else None
                r = run_compare(play, field, rules, target_walls if goal else walls)
                target = (f"≥ +{goal} and interval > 0", lambda v, lo=r["diff_low"], g=goal: v >= g and lo > 0) if goal else None
                if rules == "kawu" and play == "search" and field == "expert":
                    target = ("low end > −0.05", lambda _, lo=r["diff_low"]: lo > -0.05)
                figs.add(f"score_{rules}_{field}_{play}", f"{rules}, field {field}: {play}" +
                         (f" ({target_walls:,} walls)" if goal else ""), r["diff"], "", 3, target,
                         r["diff_low"], r["diff_high"], grid=(f"search in duplicate ({walls:,} walls a cell, {target_walls:,} where a target is)", f"{play}",
                                                              f"{rules} / {field}"))
    for part in ("exchange", "void"):
        r = run_compare(f"expert+{part}=search", "expert", "battle", side)
        figs.add(f"{part}_search", f"battle, field expert: expert+{part}=search − expert ({side:,} walls)", r["diff"],
                 "", 3, ("interval > 0", lambda _, lo=r["diff_low"]: lo > 0), r["diff_low"], r["diff_high"])
    for k in (8, 32, 128):  # fixed budgets (no doubling), against the default's adaptive one
        w = walls if k < 128 else walls // 2
        spec = f"search[rollouts={k},max_rollouts={k}]"
        r = run_compare(spec, "expert", "battle", w)
        figs.add(f"budget_{k}", f"battle, field expert: {spec} ({w:,} walls), {_search_rate(spec + ',expert,expert,expert', 40 if ctx.quick else 100):.1f} hands/s",
                 r["diff"], "", 3, None, r["diff_low"], r["diff_high"])
    return figs


# -- runs (the CLI end to end) --------------------------------------------------------------


@dataclass
class CliRun:
    seconds: float
    tree_rss: int | None      # bytes: peak of the RSS summed over the process tree
    largest_rss: int | None   # bytes: peak RSS of its largest single process


def _rss_by_process(pid: int) -> list[int]:
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root] + root.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    sizes = []
    for p in procs:
        try:
            sizes.append(p.memory_info().rss)
        except psutil.NoSuchProcess:
            pass
    return sizes


def _sample_memory(proc: subprocess.Popen, peaks: list) -> None:
    """Every 0.1 s until the process ends: peaks = [largest tree sum, largest one process]."""
    while proc.poll() is None:
        sizes = _rss_by_process(proc.pid)
        if sizes:
            peaks[0] = max(peaks[0], sum(sizes))
            peaks[1] = max(peaks[1], max(sizes))
        time.sleep(0.1)


def run_cli(args: list[str], env: dict | None = None) -> CliRun:
    """Run ``sichuan ARGS``, timing the whole command. Memory is sampled with psutil: the
    tree's summed RSS (worker processes included; pages they share are counted in each, so
    it errs high) and its largest process (what ``/usr/bin/time -v`` would report)."""
    exe = str(Path(sys.executable).with_name("sichuan"))
    peaks = [0, 0]
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe, *args], env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        import psutil  # noqa: F401
        sampler = threading.Thread(target=_sample_memory, args=(proc, peaks), daemon=True)
        sampler.start()
    except ImportError:
        sampler = None
    _, err = proc.communicate()
    seconds = time.perf_counter() - t0
    if sampler:
        sampler.join()
    if proc.returncode != 0:
        tail = " | ".join(err.strip().splitlines()[-3:])
        raise RuntimeError(f"sichuan {' '.join(args)} failed ({proc.returncode}): {tail}")
    return CliRun(seconds, peaks[0] or None, peaks[1] or None)


def _mb(size: int | None) -> float | None:
    return size / 2**20 if size else None


class TempDirs:
    """Fresh temporary directories, all removed on exit (outputs of 10M hands are large)."""

    def __enter__(self):
        self.root = Path(tempfile.mkdtemp(prefix="sichuan-bench-"))
        self.n = 0
        return self

    def new(self) -> str:
        self.n += 1
        return str(self.root / f"d{self.n}")

    def __exit__(self, *exc):
        shutil.rmtree(self.root, ignore_errors=True)


def warm_caches(tmp: "TempDirs") -> None:
    """One untimed small run per seat spec used, so no timing pays for compiling (a changed
    source invalidates numba's on-disk cache) or building the tables."""
    for seats in ("greedy", "efficient", "expert"):
        run_cli(simulate_args(tmp.new(), 1000, "--seats", seats))


def simulate_args(out: str, hands: int, *extra: str) -> list[str]:
    return ["simulate", "--hands", str(hands), "--out", out, "--quiet", *extra]


def _big_run(ctx: Context, figs: Figures, tmp: TempDirs) -> None:
    big, small = (1_000_000, 200_000) if ctx.quick else (10_000_000, 1_000_000)
    limit = 90 * big / 10_000_000
    log(f"runs: sichuan simulate --hands {big:,} --seats greedy")
    out = tmp.new()
    r = run_cli(simulate_args(out, big, "--seats", "greedy"))
    rate = big / r.seconds
    figs.add("big_seconds", f"simulate {big:,} greedy hands: wall time", r.seconds, "s", 1, at_most(limit, "s"))
    figs.add("big_rate", f"simulate {big:,} greedy hands: throughput", rate, "hands/s", 0)
    own = json.loads((Path(out) / "run.json").read_text())["timings"]["last_session_hands_per_second"]
    figs.add("big_rate_runner", "the same by the run's own clock (run.json: no interpreter start-up)", own,
             "hands/s", 0)
    engine = _engine_rate("greedy", all_threads())
    figs.add("big_vs_engine", f"throughput / engine-only greedy on all cores ({engine:,.0f} hands/s, measured now)",
             rate / engine * 100, "%", 1, at_least(90, "%"))
    _memory_figures(figs, "big", big, r)
    _summarize_figures(figs, "big", big, out, r.seconds)
    log(f"runs: sichuan simulate --hands {small:,} --seats greedy")
    out = tmp.new()
    r = run_cli(simulate_args(out, small, "--seats", "greedy"))
    _memory_figures(figs, "small", small, r)
    _summarize_figures(figs, "small", small, out, r.seconds)


def _engine_rate(play: str, threads: int) -> float:
    """Engine-only hands/s (``run_batch``) of a play at all four seats, battle, in this process."""
    from simcore.contract.rules import preset

    rate, _, _ = hands_per_second(preset("battle"), seat_fns(play), threads, 2.0)
    return rate


def _summarize_figures(figs: Figures, key: str, hands: int, out: str, simulate_seconds: float) -> None:
    """``sichuan summarize`` of the run just written: wall time against the time simulate took to
    write it, and peak memory (the summary streams shard by shard)."""
    log(f"runs: sichuan summarize of the {hands:,}-hand run")
    r = run_cli(["summarize", out])
    figs.add(f"{key}_summarize_seconds", f"summarize {hands:,} hands: wall time, whole command", r.seconds, "s", 2)
    # the targets are for the big run: a small one's summary is mostly the interpreter's start-up
    figs.add(f"{key}_summarize_share", f"summarize {hands:,} hands / the simulate that wrote them",
             r.seconds / simulate_seconds * 100, "%", 1, at_most(10, "%") if key == "big" else None)
    figs.add(f"{key}_summarize_mb", f"summarize {hands:,} hands: peak memory", _mb(r.largest_rss), "MB", 0,
             at_most(1024, "MB"))


def _one_worker(ctx: Context, figs: Figures, tmp: TempDirs) -> None:
    """One worker, one numba thread: the engine plays a chunk while a writer thread writes the
    previous one, so the run should go nearly at the engine's speed."""
    hands = 600_000 if ctx.quick else 3_000_000
    engine = _engine_rate("greedy", 1)
    log(f"runs: sichuan simulate --hands {hands:,} --seats greedy --workers 1, NUMBA_NUM_THREADS=1")
    out = tmp.new()
    r = run_cli(simulate_args(out, hands, "--seats", "greedy", "--workers", "1"), env={"NUMBA_NUM_THREADS": "1"})
    figs.add("one_worker_rate", f"simulate {hands:,} greedy hands, 1 worker, 1 numba thread: throughput",
             hands / r.seconds, "hands/s", 0)
    figs.add("one_worker_vs_engine", f"the same / engine-only greedy on 1 thread ({engine:,.0f} hands/s, measured now)",
             hands / r.seconds / engine * 100, "%", 1, at_least(90, "%"))


def _write_share(ctx: Context, figs: Figures) -> None:
    """CPU spent building and writing a chunk's tables against the CPU spent playing it (greedy,
    the fastest player, 100,000-hand chunks, one thread): what several workers pay on top of
    play when every core is busy."""
    from simcore.runs import shards as rio
    from simcore.runs.batch import run_batch
    from simcore.contract.rules import preset

    rio.keep_freed_memory()
    nb.set_num_threads(1)
    fns, rules = seat_fns("greedy"), preset("battle")
    names = ["greedy+exchange=shortest+void=fewest"] * 4
    chunks = 3 if ctx.quick else 8
    run_batch(rules, fns, SEED, 0, 2_000)
    play = build = write = 0.0
    with tempfile.TemporaryDirectory(prefix="sichuan-bench-") as d:
        for c in range(chunks + 1):
            t0 = time.thread_time()
            res = run_batch(rules, fns, SEED, c * BATCH_HANDS, BATCH_HANDS)
            t1 = time.thread_time()
            tables = rio.batch_tables(res, names)
            del res
            t2 = time.thread_time()
            rio.write_shards(Path(d), c, tables, {}, c * BATCH_HANDS, BATCH_HANDS)
            t3 = time.thread_time()
            del tables
            if c:  # the first chunk warms the output arrays
                play, build, write = play + t1 - t0, build + t2 - t1, write + t3 - t2
    figs.add("write_build_ms", "building a chunk's tables (CPU per 100,000 hands)", build / chunks * 1e3, "ms", 1)
    figs.add("write_encode_ms", "encoding and writing its shards (CPU per 100,000 hands)", write / chunks * 1e3, "ms", 1)
    figs.add("write_share", "building and writing / playing (CPU, greedy)", (build + write) / play * 100, "%", 1,
             at_most(10, "%"))


def _memory_figures(figs: Figures, key: str, hands: int, r: CliRun) -> None:
    figs.add(f"{key}_peak_mb", f"simulate {hands:,}: peak memory, process tree (summed RSS)", _mb(r.tree_rss),
             "MB", 0, at_most(1536, "MB"))
    figs.add(f"{key}_largest_mb", f"simulate {hands:,}: peak memory, largest process", _mb(r.largest_rss), "MB", 0)


def _cold_start(figs: Figures, tmp: TempDirs) -> None:
    """A first run after a fresh install: numba's cache and the suit tables' cache both in
    new empty directories, so everything compiles and the tables are built."""
    numba_cache, tables_cache = tmp.new(), tmp.new()
    log("runs: cold start (empty NUMBA_CACHE_DIR and SICHUAN_CACHE), simulate --hands 1000")
    r = run_cli(simulate_args(tmp.new(), 1000), env={"NUMBA_CACHE_DIR": numba_cache, "SICHUAN_CACHE": tables_cache})
    written = sum(1 for p in Path(numba_cache).rglob("*.nbi"))
    figs.add("cold_seconds", "first run after install (compile from empty caches), 1,000 hands", r.seconds, "s", 1,
             at_most(60, "s"))
    figs.add("cold_cache_entries", "functions compiled into the empty numba cache", written, "", 0,
             ("> 0 (the run was cold)", lambda v: v > 0))


def _warm_start(figs: Figures, tmp: TempDirs) -> None:
    log("runs: warm simulate --hands 1000, 3 times")
    times = [run_cli(simulate_args(tmp.new(), 1000)).seconds for _ in range(3)]
    figs.add("warm_seconds", "warm run, 1,000 hands, whole command (median of 3)", statistics.median(times), "s", 2,
             at_most(3, "s"))


def _make_run(figs: Figures, tmp: TempDirs) -> None:
    """What ``make run`` plays once installed: the default simulation (default seats, one million
    hands of blood battle, the summary at the end)."""
    log("runs: make run's simulation, sichuan simulate --hands 1000000 (default seats)")
    r = run_cli(["simulate", "--hands", "1000000", "--out", tmp.new()])
    figs.add("make_run_seconds", "make run (installed): simulate 1,000,000 hands, default seats, with the summary",
             r.seconds, "s", 1, at_most(120, "s"))


def bench_runs(ctx: Context) -> Figures:
    """``sichuan simulate`` as a user runs it: throughput, memory, cold and warm start, and the
    default simulation ``make run`` plays."""
    figs = Figures()
    with TempDirs() as tmp:
        warm_caches(tmp)
        _make_run(figs, tmp)
        _warm_start(figs, tmp)
        _write_share(ctx, figs)
        _one_worker(ctx, figs, tmp)
        _big_run(ctx, figs, tmp)
        _cold_start(figs, tmp)
    return figs


# -- dask ---------------------------------------------------------------------------------


def _best_seconds(tmp: TempDirs, hands: int, chunk: int, kind: str, tries: int = 2) -> float:
    """Best wall time of ``tries`` identical runs (other processes only ever slow one down)."""
    args = ["--seats", "greedy", "--chunk-hands", str(chunk), "--executor", kind]
    return min(run_cli(simulate_args(tmp.new(), hands, *args)).seconds for _ in range(tries))


def bench_dask(ctx: Context) -> Figures:
    """The local executor against a Dask LocalCluster on the same greedy hands, and the wall
    time one more chunk adds: (t_small_chunks - t_default_chunks) / (extra chunks). Fixed
    costs (start-up, the cluster) cancel in the difference."""
    from simcore.runs.runner import DEFAULT_CHUNK_HANDS as large

    hands = 400_000 if ctx.quick else 2_000_000
    small = hands // 200
    extra = hands // small - hands // large
    figs = Figures()
    with TempDirs() as tmp:
        warm_caches(tmp)
        for kind in ("local", "dask"):
            log(f"dask: {kind} executor, {hands:,} greedy hands in chunks of {large:,}, then of {small:,}")
            t_large = _best_seconds(tmp, hands, large, kind)
            t_small = _best_seconds(tmp, hands, small, kind)
            figs.add(f"{kind}_rate", f"{kind}: {hands:,} greedy hands, chunks of {large:,} (best of 2)",
                     hands / t_large, "hands/s", 0)
            per_chunk = (t_small - t_large) / extra
            note = "below resolution: small chunks save about as much per hand" if per_chunk <= 0 else None
            figs.add(f"{kind}_chunk_ms", f"{kind}: wall time per extra chunk ({small:,} vs {large:,} hands a chunk)",
                     per_chunk * 1e3, "ms", 1, note=note)
        figs.add("dask_vs_local", "dask / local throughput", figs["dask_rate"]["value"] / figs["local_rate"]["value"]
                 * 100, "%", 1)
    return figs


# -- versus: this tree against another commit, in one session ------------------------------

# Run in a subprocess with PYTHONPATH at one source tree: only APIs that every tree has since the
# engine bench began (run_batch, preset, the registry), so an older commit measures the same way;
# the flat layout (simcore.batch) and the layers as folders (simcore.runs.batch) are both known.
# (``simcore.rules`` imports in both: an alias of simcore.contract.rules since the move.)
_VERSUS_SCRIPT = """
import json, sys, time
import numba
import simcore  # noqa: F401  (the tree's numba cache)
try:  # the layers as folders
    from simcore.runs.batch import run_batch
    from simcore.contract.rules import preset
except ImportError:  # the flat package before them
    from simcore.batch import run_batch
    from simcore.rules import preset
from strategies.registry import parse_seats, seat_functions
numba.set_num_threads(1)
cases, batches, hands = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = {}
for rules_name, play, *share in cases:
    hands_now = max(int(hands * share[0]), 20) if share else hands   # a slow play plays fewer hands
    fns, rules = seat_functions(parse_seats(play)), preset(rules_name)
    run_batch(rules, fns, 1, 0, min(2000, hands_now))
    best, first = 0.0, 0
    for _ in range(batches):
        t0 = time.perf_counter()
        res = run_batch(rules, fns, 1, first, hands_now)
        best = max(best, hands_now / (time.perf_counter() - t0))
        del res
        first += hands_now
    out[rules_name + ":" + play] = best
print(json.dumps(out))
"""


def _tree_of(rev: str, dest: Path) -> Path:
    """The source tree of commit ``rev`` (git archive), for PYTHONPATH."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "simcore", "strategies"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def _versus_rates(tree: Path, cases, batches: int, hands: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _VERSUS_SCRIPT, json.dumps(cases), str(batches), str(hands)],
                         cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"engine bench in {tree} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


VERSUS_TARGET = 0.95           # no case slower than this
VERSUS_GEOMEAN_TARGET = 0.98   # nor the cases together
# slower plays the versus section measures too, each on a share of the hands (expert, and a searching
# seat at every seat: the search's rollouts resume sampled states through the engine)
VERSUS_SLOW_CASES = [["battle", "expert", 0.1], ["flow", "expert", 0.1], ["battle", "search[rollouts=8]", 0.002]]


def bench_versus(ctx: Context) -> Figures:
    """Engine-only hands/s on one core of this tree against commit ``ctx.base``, the two measured
    alternately in one session (machines differ by a third from one session to the next, so only
    ratios measured together compare), best of the rounds for each."""
    commit = _sh("git", "rev-parse", "--short", ctx.base)
    if not commit:
        raise RuntimeError(f"--base {ctx.base}: not a commit of this repository")
    rounds, batches, hands = (1, 1, 50_000) if ctx.quick else (3, 2, BATCH_HANDS)
    figs = Figures()
    with tempfile.TemporaryDirectory(prefix="sichuan-versus-") as tmp:
        base = _tree_of(ctx.base, Path(tmp))
        # plays and presets every compared tree has (a newer tree may add presets)
        theirs = subprocess.run([sys.executable, "-c", "from simcore.rules import PRESETS; print(','.join(PRESETS))"],
                                cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": str(base)},
                                capture_output=True, text=True).stdout.strip().split(",")
        cases = [c for c in ENGINE_CASES if c[1] != "expert" and c[0] in theirs] + VERSUS_SLOW_CASES
        log(f"versus: this tree against {commit} ({ctx.base}); compiling both")
        _versus_rates(base, cases[:1], 1, 2000)
        _versus_rates(ROOT, cases[:1], 1, 2000)
        best_old, best_new = {}, {}
        for r in range(rounds):
            log(f"versus: round {r + 1} of {rounds}")
            for tree, best in ((base, best_old), (ROOT, best_new)):
                for k, v in _versus_rates(tree, cases, batches, hands).items():
                    best[k] = max(best.get(k, 0.0), v)
    for rules_name, play, *_ in cases:
        k = f"{rules_name}:{play}"
        figs.add(f"{rules_name}_{play}_ratio", f"{play}, {rules_name}, 1 core: new/old "
                 f"({best_new[k]:,.0f} against {best_old[k]:,.0f} hands/s at {commit})", best_new[k] / best_old[k], "", 3,
                 at_least(VERSUS_TARGET))
    ratios = [best_new[k] / best_old[k] for k in best_new]
    figs.add("geomean_ratio", f"geometric mean of new/old over the {len(ratios)} cases",
             math.exp(sum(math.log(r) for r in ratios) / len(ratios)), "", 3, at_least(VERSUS_GEOMEAN_TARGET))
    return figs


def bench_draw_order(ctx: Context) -> Figures:
    """Issue 36: the per-seat draw order plays the same game (``benchmarks.draw_order``)."""
    from benchmarks.draw_order import bench_draw_order as run

    return run(ctx, Figures, log)


def bench_precision(ctx: Context) -> Figures:
    """Issue 36: precision per CPU, layer by layer, on the policy cells (``benchmarks.precision``)."""
    from benchmarks.precision import bench_precision as run

    cells = [(rules, f"{part} {'expert' if field == EXPERT_FIELD else 'efficient'} field", arm, field)
             for rules in ("battle", "flow") for part, _, in_expert, in_efficient in POLICY_ARMS
             for field, arm in ((EXPERT_FIELD, in_expert), (EFFICIENT_FIELD, in_efficient))]
    return run(ctx, Figures, log, cells)


def bench_coverage(ctx: Context) -> Figures:
    """Issue 44: a run that stops at a precision keeps its intervals' coverage on the engine
    (``benchmarks.coverage``)."""
    from benchmarks.coverage import bench_coverage as run

    return run(ctx, Figures, log)


def bench_luck(ctx: Context) -> Figures:
    """Issue 36: the luck-corrected estimate is unbiased, and what it buys (``benchmarks.luck``)."""
    from benchmarks.luck import bench_luck as run

    return run(ctx, Figures, log)


def bench_env(ctx: Context) -> Figures:
    """Issue 37: the Python agents' environments and decision datasets (``benchmarks.env``)."""
    from benchmarks.env import bench_env as run

    return run(ctx, Figures, log)


def bench_learned(ctx: Context) -> Figures:
    """Issue 45: the learned player's speed and strength (``benchmarks.learned``)."""
    from benchmarks.learned import bench_learned as run

    return run(ctx, Figures, log, run_ladder_command, run_compare)


def bench_compile(ctx: Context) -> Figures:
    """Issue 43: seconds to compile each engine entry point cold (``benchmarks.compile``)."""
    from benchmarks.compile import bench_compile as run

    return run(ctx, Figures, log)


SECTIONS = {"evaluator": bench_evaluator, "engine": bench_engine, "ladder": bench_ladder, "policies": bench_policies,
            "runs": bench_runs, "dask": bench_dask, "search": bench_search, "versus": bench_versus,
            "draw-order": bench_draw_order, "precision": bench_precision, "luck": bench_luck, "env": bench_env,
            "compile": bench_compile, "coverage": bench_coverage, "learned": bench_learned}
# versus, draw-order, precision, luck, compile, coverage and learned: on request
DEFAULT_SECTIONS = ("evaluator", "engine", "ladder", "policies", "runs", "dask", "search", "env")


# -- other processes ---------------------------------------------------------------------


def _busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (all processes)."""
    vals = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class OtherLoad:
    """Cores used by processes other than this one and its finished children, over a span:
    on a shared machine this says whether the timings in that span were disturbed."""

    def __enter__(self):
        self.t, self.busy, self.own = time.perf_counter(), _busy_seconds(), _own_seconds()
        return self

    def cores(self) -> float:
        busy, own = _busy_seconds() - self.busy, _own_seconds() - self.own
        return max(0.0, busy - own) / max(time.perf_counter() - self.t, 1e-9)

    def __exit__(self, *exc):
        pass


def wait_quiet(max_wait: float = 300.0, threshold: float = 0.1) -> None:
    """Wait (up to max_wait s) until other processes leave the cores alone for 2 s."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < max_wait:
        with OtherLoad() as load:
            time.sleep(2)
        if load.cores() < threshold:
            return
        log(f"  other processes use {load.cores():.2f} cores; waiting for a quiet machine")
    log("  machine still busy; measuring anyway")


# -- history and markdown ----------------------------------------------------------------


def _sh(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def git_commit() -> str:
    """Short commit, marked when the measured code differs from it (someone's edits)."""
    commit = _sh("git", "rev-parse", "--short", "HEAD") or "unknown"
    dirty = _sh("git", "status", "--porcelain", "--untracked-files=no", "--", "simcore", "strategies",
                "experiments", "pyproject.toml", ":(exclude)simcore/bench.py")
    return commit + (" (modified)" if dirty else "")


def machine() -> dict:
    from simcore import __version__

    cpu = next((line.split(":", 1)[1].strip() for line in _sh("lscpu").splitlines()
                if line.startswith("Model name")), platform.processor() or "unknown")
    ram_kb = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal")), 0) if Path("/proc/meminfo").exists() else 0
    return {"cpu": cpu, "cores": len(os.sched_getaffinity(0)), "ram_gb": round(ram_kb / 2**20, 1),
            "python": platform.python_version(), "numba": nb.__version__, "package": __version__}


def load_history(path: Path) -> list:
    if not path.exists():
        return []
    return json.loads(path.read_text())["entries"]


def save_history(path: Path, entries: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({"entries": entries}, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


INTRO = """# Benchmarks

`make bench` (that is, `.venv/bin/python -m benchmarks.bench --record`) measures the simulator and
records the figures here, newest run first, against the project's targets. One section alone:
`.venv/bin/python -m benchmarks.bench --only engine` (sections: `evaluator`, `engine`, `ladder`,
`policies`, `runs`, `dask`, `search`, `env`, and on request `versus`, `precision`, `luck`, `draw-order`,
`coverage`, `compile` and `learned`; `--quick` for smaller sizes; `--no-wait` to start without
waiting for other processes to go quiet; `--help`). Without `--record` a run prints its figures
and writes nothing tracked; with it, the run appends an entry to `benchmarks/history.json`, from
which this file is regenerated; "previous" is the most recent earlier entry of the same size
(full or quick) that has the figure.

- **evaluator**: ns per call of `simcore.contract.evaluate.shanten` (regular and seven pairs; what
  `simcore.inspection.hand.shanten` reduces to without melds), its table-only part `regular_shanten`, and
  `is_win`, in a jitted loop of 1M calls over 4,096 pre-generated random 14-tile hands with no
  melds (they stay in cache, as the engine's hand does; streaming 1M hands from memory, as the
  first entry below did, cost about 20 ns a hand by itself), one core, best of 5. Two hand sets: tiles of two suits with the third void (the win test does all
  its work), and tiles of all three suits with the shortest suit void. Then the warm load of the
  cached suit tables (`simcore.contract.tables.load_tables`, its in-process memo cleared), best of 9.
- **engine**: hands/s of `simcore.runs.batch.run_batch` alone (no Parquet, no worker processes) after
  a warm-up: whole batches of 100,000 hands (the default chunk) for at least 2 s, best of two
  such timings, on one numba thread and on all; `expert` is the play with its own exchange and
  void policies, and its one-core rate is also given as a share of `efficient`'s (target: a third).
- **ladder**: `sichuan ladder --walls 20000 --seed 1 --json` (2,000 walls with `--quick`) in a
  subprocess, timed as a whole command: every play (greedy, efficient, flush, defensive, expert)
  1 vs 3 in duplicate against each field (each play, and the mixed field of random, greedy and
  efficient) under each preset (battle, flow, kawu, chengdu), hands 0..walls-1 of seed 1 at every
  table. Score against a uniform field: the play's net at seat r minus the net at seat r of the
  table of four of the field, averaged over r = 0..3; against the mixed field its mean net per
  hand; 95% normal intervals over walls (README.md, "The ladder"). Its matrices: the scores per
  preset (rows plays, columns fields), the expert's paired differences from every other play, and
  per-play statistics pooled over the fields (wins per hand, self-drawn share, mean base, deal-in
  rate per discard, hands ending with the wall exhausted). Entries before it had **strength**
  instead: each play (random included) 1 vs 3 against three greedy seats in battle, 60,000 walls.
- **policies**: the expert's exchange and void policies against `shortest` and `fewest` in
  duplicate (`sichuan compare`, seed 1, 100,000 walls a battle cell and 500,000 a flow cell, whose
  hands spread 2.2 times as wide; a tenth with `--quick`), in the
  expert field (`expert+exchange=expert+void=expert`, the arm plays the other policy, its score
  negated) and the efficient field (`efficient+exchange=shortest+void=fewest`, the arm plays the
  expert's policy), under battle and flow. Each arm differs from its field in that one policy,
  so its score is the paired difference. The policies agree on most deals (95% or more of the
  variance cancels), so a cell needs many walls.
- **runs**: `sichuan simulate --quiet` (no summary) in a subprocess after an untimed warm-up run;
  wall time of the whole command. `make run` is timed as the simulation it plays once installed
  (one million hands, default seats, summary included; target 2 minutes). Its ratios to the engine alone use engine-only figures measured
  in the same section (one numba thread for the one-worker run, all for the big one); the write
  share is the CPU time (``time.thread_time``) of building and writing a 100,000-hand chunk's
  tables against that of playing it, greedy, one thread, over 8 chunks. `sichuan summarize` of
  the big and the small run is timed as a whole command, against the simulate that wrote it. Memory is sampled every 0.1 s with psutil: the summed RSS of the
  process tree (main process and workers; shared pages count in each, so it errs high) and the
  largest single process. The cold run (default seats) points `NUMBA_CACHE_DIR` and
  `SICHUAN_CACHE` at empty directories, so everything compiles and the tables are built.
- **search** (the search player, issue 18): hands/s of one `search` seat (defaults) against three
  `expert`, one core; the time `sichuan analyze` takes to judge one exchange at 1,000 rollouts a
  candidate; `search` 1 vs 3 in duplicate (`sichuan compare`, seed 1) against the expert and the
  efficient field under battle, flow and kawu, 500 walls a cell and 2,000 where the issue sets a
  target (battle and flow against expert), with `expert` against the efficient field on the same
  walls for reference; `expert+exchange=search` and `expert+void=search` against the expert field,
  5,000 walls; a curve of strength against fixed budgets (8, 32 and 128 rollouts a candidate).
- **env** (issue 37): the vector env of 1,024 tables, one agent seat against three `expert`, a
  random masked agent in numpy: agent decisions a second on one core without the agent's own time
  (the jitted step's share and Python's), the single-table env through `gymnasium.make`, and
  `sichuan dataset` of four expert seats against the engine's own expert hands a second. A
  client's own cost comes on top: `examples/maskable_ppo.py` prints the rollout steps a second
  inside Stable-Baselines3 beside the env's own (README: Python agents).
- **versus** (only with `--only versus --base REV`): engine-only hands/s on one core of this tree
  against commit REV (its `simcore/` and `strategies/` from `git archive`), each play and preset
  of **engine**, the two trees measured alternately in one session, three rounds of two
  100,000-hand batches, best of each; the figure is new/old. A change not meant to change play
  keeps it at 0.97 or more.
- **precision** (only with `--only precision`; issue 36): on the eight policy cells of
  **policies** (seed 1, 40,000 walls a cell; 5,000 with `--quick`), `sichuan compare` five ways on
  the same walls: plain duplicate (`--estimator plain --draw-order table --full-tables`), the
  per-seat draw order alone, playing only where the arm differs alone, the luck-corrected
  estimate alone, and all three (the defaults). Efficiency = (variance
  of the per-wall difference, plain / new) x (CPU seconds of the comparison's process per wall,
  plain / new); the flow void cell in the expert field also gives the 2-core minutes a 95%
  interval of full width 0.004 costs and the width 10 minutes buy.
- **coverage** (only with `--only coverage`; issue 44): the void policy in battle against the
  efficient field (`efficient+exchange=shortest+void=expert` against
  `efficient+exchange=shortest+void=fewest`), luck-corrected, compared 400 times (20 with
  `--quick`) with seeds 1000, 1001, ... as `--hands 300 --until-width 0.05` (a pilot of 300 walls,
  then the second stage it plans: about 1,200 walls; width 0.1 would need under 300), then once
  on seed 1 with 100 times the walls of the largest run for reference. The coverage is the share
  of the runs whose 95% interval holds the reference difference, with its Wilson 95% interval,
  which should hold 0.95; the section should take at most 20 minutes.
- **learned** (only with `--only learned`; issue 45): hands/s of `learned` at all four seats
  against `expert` at all four (battle, one core, alternated in one process, best of three; target
  a third); `sichuan ladder --plays learned,expert --fields expert,efficient,mixed --presets
  battle,flow --focus learned --seed 1`, 20,000 walls a cell (2,000 with `--quick`): learned's
  paired difference from expert in each field (targets: +0.35 in battle and +1.4 in flow against
  expert; at least expert's against the others); and `search[policy=learned]` against `search`
  in the expert field, 1,000 walls (100 with `--quick`; target: interval above 0). The shipped
  models were trained on seed 102's walls, never seed 1's.
- **luck** (only with `--only luck`; issue 36): per preset, each seat's mean luck over 1M hands of
  `expert` in standard errors (100,000 with `--quick`); on six cells (`expert+void=random`,
  `expert+exchange=random`, `random` play, `expert+void=fewest`, the example user strategy,
  `efficient`, against `expert`) the luck-corrected and plain differences on the same 200,000
  walls (20,000), their gap against its paired 95% half-width, and the variance factor, with the
  shipped value model and with random weights.
- **draw-order** (only with `--only draw-order`; issue 36): per preset, `greedy` and
  `expert+void=random` on the same seeds under both draw orders (1M hands each; 100,000 with
  `--quick`): the largest |z| of table minus seat over the summary figures (win rate, self-drawn
  wins, fan, turns, pig rate, winners, each seat's net), and the smallest chi-square p of the tile
  drawn at each of the first 40 draw indices in seat order (20,000 traced greedy hands).
- **dask**: the same greedy hands through the local executor and `--executor dask` (a LocalCluster
  of one single-threaded worker per core), best of two runs each; the wall time one more chunk
  adds, from 200 small chunks against the default 100,000-hand chunks (fixed costs cancel).

The machine may be shared: each section first waits (up to 5 minutes) until other processes
leave the cores alone, and reports the CPU other processes used while it ran; above 0.1 cores
its timings are likely low.
"""


def _previous(entries: list, i: int, section: str, key: str) -> dict | None:
    quick = entries[i]["quick"]
    for entry in reversed(entries[:i]):
        fig = entry["sections"].get(section, {}).get(key)
        if fig is not None and entry["quick"] == quick:
            return fig
    return None


def _prev_text(fig: dict, prev: dict | None) -> str:
    if prev is None:
        return ""
    text = fmt_value(prev)
    v, p = fig["value"], prev["value"]
    if isinstance(v, (int, float)) and isinstance(p, (int, float)) and not isinstance(v, bool) and p:
        text += f" ({(v - p) / abs(p) * 100:+.0f}%)".replace("-", "−")
    return text


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"


def entry_markdown(entries: list, i: int) -> str:
    e = entries[i]
    m = e["machine"]
    lines = [f"## {e['date']} — {e['commit']}", "",
             f"`{e['command']}`{' (quick)' if e['quick'] else ''}, {_duration(e['seconds'])}. "
             f"{m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, numba {m['numba']}, "
             f"sichuan-sim {m['package']}.", ""]
    lines += [f"- {note}" for note in e.get("notes", [])] + ([""] if e.get("notes") else [])
    for section, figs in e["sections"].items():
        lines += [f"### {section}", "", "| figure | value | target | met | previous |", "|---|---|---|---|---|"]
        for key, fig in figs.items():
            if fig.get("grid"):
                continue
            met = "" if fig["pass"] is None else ("yes" if fig["pass"] else "**no**")
            label = (fig["label"] + (f" ({fig['note']})" if fig.get("note") else "")).replace("|", "\\|")
            lines.append(f"| {label} | {fmt_value(fig)} | {fig['target'] or ''} | {met} | "
                         f"{_prev_text(fig, _previous(entries, i, section, key))} |")
        lines.append("")
        lines += grid_markdown(figs)
    for section, err in e.get("errors", {}).items():
        lines += [f"### {section}", "", f"Failed: `{err}`", ""]
    return "\n".join(lines)


def _grid_cell(fig: dict) -> str:
    if fig.get("note") == "the field itself" and fig["value"] == 0:
        return "0 (the field)"
    return fmt_value(fig).replace(" %", "%")


def grid_markdown(figs: dict) -> list[str]:
    """The figures that carry a ``grid`` as matrices, one per table name, rows and columns in the
    order the figures were added; a target a cell misses is marked **no**."""
    tables: dict[str, dict] = {}
    for fig in figs.values():
        if fig.get("grid"):
            table, row, col = fig["grid"]
            t = tables.setdefault(table, {"rows": {}, "cols": {}})
            t["cols"].setdefault(col, None)
            cell = _grid_cell(fig) + (" **no**" if fig["pass"] is False else "")
            t["rows"].setdefault(row, {})[col] = cell
    lines = []
    for table, t in tables.items():
        cols = list(t["cols"])
        lines += [f"{table}:", "", "| | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
        lines += [f"| {row} | " + " | ".join(cells.get(c, "") for c in cols) + " |" for row, cells in t["rows"].items()]
        lines.append("")
    return lines


def render(entries: list) -> str:
    parts = [INTRO] + [entry_markdown(entries, i) for i in reversed(range(len(entries)))]
    return "\n".join(parts).rstrip() + "\n"


# -- command line ---------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="sections: " + ", ".join(SECTIONS))
    p.add_argument("--only", metavar="SECTION[,SECTION...]",
                   help="run only these sections (versus runs only when named here)")
    p.add_argument("--base", default="HEAD~1", metavar="REV",
                   help="versus: the commit to compare this tree with [HEAD~1]")
    p.add_argument("--quick", action="store_true", help="smaller sizes (2,000 ladder walls, 1M-hand run, ...)")
    p.add_argument("--no-wait", action="store_true", help="do not wait for other processes to go quiet first")
    p.add_argument("--note", action="append", default=[], help="a remark to keep with the entry (repeatable)")
    p.add_argument("--record", action="store_true",
                   help="append the entry to benchmarks/history.json and rewrite BENCHMARKS.md (make bench does); "
                        "without it the figures are printed only")
    p.add_argument("--render-only", action="store_true", help="only regenerate the markdown from the history")
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="markdown file to update [BENCHMARKS.md]")
    args = p.parse_args(argv)
    names = [s.strip() for s in args.only.split(",")] if args.only else list(DEFAULT_SECTIONS)
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        p.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    args.sections = names
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    hist_path = out.resolve().parent / "benchmarks" / "history.json"
    ctx = Context(quick=args.quick, history=load_history(hist_path), base=args.base)
    if args.render_only:
        out.write_text(render(ctx.history))
        return 0
    started = _dt.datetime.now(_dt.timezone.utc)
    t0 = time.perf_counter()
    errors = {}
    for name in args.sections:
        print(f"{name}:", flush=True)
        s0 = time.perf_counter()
        if not args.no_wait:
            wait_quiet()
        try:
            with OtherLoad() as load:
                figs = SECTIONS[name](ctx)
            figs.add("other_load", "CPU used by other processes meanwhile", load.cores(), "cores", 2,
                     ("≤ 0.10 (else disturbed)", lambda v: v <= 0.10))
            ctx.results[name] = dict(figs)
        except Exception as exc:  # one broken section should not lose the others' figures
            errors[name] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
            log(f"{name} failed: {errors[name]}")
        log(f"{name}: {time.perf_counter() - s0:.0f} s")
    entry = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "commit": git_commit(),
             "command": " ".join(["python -m benchmarks.bench", *(argv if argv is not None else sys.argv[1:])]),
             "quick": args.quick, "seconds": round(time.perf_counter() - t0, 1), "machine": machine(),
             "sections": ctx.results, "errors": errors, "notes": args.note}
    entries = ctx.history + [entry]
    if args.record:
        save_history(hist_path, entries)
        out.write_text(render(entries))
        log(f"wrote {out} and {hist_path} ({entry['seconds']:.0f} s)")
    else:
        print(entry_markdown(entries, len(entries) - 1))
        log(f"not recorded ({entry['seconds']:.0f} s): --record appends it to {hist_path.name} and rewrites {out.name}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
