"""Running an experiment: plan its runs, play them with :func:`simcore.runs.runner.run`, record them.

An experiment directory holds ``experiment.json`` (the spec, seed, size and, per arm or cell,
its run directories), the runs in subdirectories (``DIR/<arm>/rot-<r>/``, ``DIR/<cell>/``) and
``report.json`` (the comparison, rewritten after every run). Runs with the same configuration
are played once and shared (an arm equal to the field plays the same run in all four
rotations). Rerunning resumes (every run resumes by itself); a larger ``--hands`` extends.

The runs are played in small chunks (``DUPLICATE_CHUNK`` walls, ``CELLS_CHUNK`` hands), so a
process holds a few seconds' play at a time whatever the size, and an interrupt loses at most
the chunks in flight; runs made before keep the chunk size they recorded. Each session adds the
CPU its processes used (``cpu_seconds``: user and system time of this process and of its worker
processes) to ``experiment.json``'s timings, which the reports' CPU per wall divides.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import resource
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from simcore.runs import files

from experiments.spec import Spec, SpecError

MANIFEST = "experiment.json"
DUPLICATE_CHUNK = 5_000   # walls a chunk of a duplicate run: five tables' worth is a few seconds and tens of MB
CELLS_CHUNK = 20_000      # hands a chunk of a cells run (one table a chunk, several played at once)
SEARCH_CHUNK = 100        # a run where a seat searches: a search plays few hands a second
REPORT = "report.json"
FORMAT = "sichuan-experiment"
VERSION = 1


class ExperimentError(RuntimeError):
    """An experiment that cannot start, continue or be read; the message is one line."""


@dataclass(frozen=True)
class PlannedRun:
    reldir: str
    config: object   # simcore.runs.runner.RunConfig
    label: str


def duplicate_seats(field, arm_seat, rotation: int) -> tuple:
    """The four seats (SeatSpecs) of an arm's rotation: the arm at seat ``rotation``, the field elsewhere."""
    seats = [field] * 4
    seats[rotation] = arm_seat
    return tuple(seats)


def plan(spec: Spec, hands: int, seed: int, options=None,
         estimator: str | None = None, chunk_hands: int | None = None) -> tuple[list[PlannedRun], dict]:
    """The unique runs of an experiment and, per arm (rotation order) or cell, their directories.
    With the luck estimator (duplicate experiments' default) every run measures luck with the
    shipped value model of its rules. ``options``: the draw order (``simcore.engine.RunOptions``; the
    spec's when None). ``chunk_hands``: every run's chunk (default
    ``DUPLICATE_CHUNK`` or ``CELLS_CHUNK``; an existing experiment's runs keep theirs)."""
    from simcore.runs.runner import RunConfig
    from simcore.runs.value_model import shipped

    runs: list[PlannedRun] = []
    by_identity: dict[str, str] = {}
    order = options.draw_order if options is not None else spec.draw_order
    luck = spec.kind == "duplicate" and (estimator or spec.estimator) == "luck"
    chunk = chunk_hands or (DUPLICATE_CHUNK if spec.kind == "duplicate" else CELLS_CHUNK)

    def model(rules):
        if not luck:
            return None
        try:
            return shipped(rules)[1]
        except ValueError as exc:
            raise ExperimentError(str(exc)) from None

    def add(reldir: str, cfg, label: str) -> str:
        key = json.dumps(cfg.to_json(), sort_keys=True)
        if key in by_identity:
            return by_identity[key]
        by_identity[key] = reldir
        runs.append(PlannedRun(reldir, cfg, label))
        return reldir

    layout: dict = {}
    if spec.kind == "duplicate":
        for arm in spec.arms:
            dirs = []
            for r in range(4):
                cfg = RunConfig(arm.rules.rules, duplicate_seats(spec.field, arm.seat, r), seed, "hands", hands,
                                chunk, draw_order=order, value_model=model(arm.rules.rules))
                dirs.append(add(f"{arm.name}/rot-{r}", cfg, f"arm {arm.name} rotation {r}"))
            layout[arm.name] = {"seat": arm.seat.canonical, "rules": arm.rules.to_json(), "rules_label": arm.rules.label,
                                "runs": dirs}
    else:
        for cell in spec.cells:
            cfg = RunConfig(cell.rules.rules, cell.seats, seed, cell.mode, cell.n_for(hands), chunk, draw_order=order)
            d = add(cell.name, cfg, f"cell {cell.name}")
            layout[cell.name] = {"run": d, "hands": cell.hands_for(hands), "mode": cell.mode}
    return runs, layout


def read_manifest(exp_dir) -> dict:
    exp_dir = Path(exp_dir)
    if not exp_dir.is_dir():
        raise ExperimentError(f"{exp_dir} does not exist or is not a directory")
    path = exp_dir / MANIFEST
    if not path.is_file():
        raise ExperimentError(f"{exp_dir} is not an experiment directory (no {MANIFEST}); "
                              "`sichuan experiment run SPEC --out DIR` makes one")
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ExperimentError(f"{path} is unreadable or not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ExperimentError(f"{path} is not an experiment manifest of version {VERSION}")
    return data


def check_complete(run_dir: Path, expect_hands: int) -> dict:
    """The manifest of one of the experiment's runs, after checking that its complete chunks hold
    ``expect_hands`` hands; else an error that says how to finish it."""
    from simcore.runs import shards as rio
    from simcore.runs.runner import RunConfig

    try:
        manifest = rio.read_manifest(run_dir)
        cfg = RunConfig.from_json(manifest["config"])
    except (ValueError, KeyError) as exc:
        raise ExperimentError(str(exc)) from None
    done = rio.complete_chunks(Path(run_dir))
    have = sum(count for c, _, count in cfg.chunks() if c in done) * cfg.hands_per_item
    if not manifest.get("complete") or have != expect_hands:
        raise ExperimentError(f"run {run_dir} is incomplete ({have:,} of {expect_hands:,} hands): "
                              "rerun the `sichuan experiment run` command to finish it")
    return manifest


def load_complete_run(run_dir: Path, columns: dict, expect_hands: int):
    """One of the experiment's runs, loaded whole with ``columns`` (for notebooks at the
    shipped sizes; the reports stream), after :func:`check_complete`."""
    from simcore.runs import analysis

    check_complete(run_dir, expect_hands)
    try:
        return analysis.load(run_dir, columns=columns)
    except ValueError as exc:
        raise ExperimentError(str(exc)) from None


def write_json(path: Path, data: dict) -> None:
    """Experiment files are strict JSON (no NaN), written atomically."""
    files.write_json(path, data, allow_nan=False)


def _check_existing(d: files.ManagedDir, spec: Spec, hands: int, seed: int, options,
                    estimator: str) -> dict | None:
    exp_dir = d.path
    old = d.existing(read_manifest)
    if old is None:
        return None
    if old["spec"].get("name") != spec.name or _identity(old["spec"]) != spec.identity():
        if old["spec"].get("name") == spec.name and (_identity(old["spec"], rules=False)
                                                     == _identity(spec.to_json(), rules=False)):
            had, now = rules_text(old["spec"]), rules_text(spec.to_json())
            given = old["spec"].get("rules_override")
            hint = (f"give {override_options(given)} to resume or extend it, " if given
                    else "run it without --rules and --set to resume or extend it, "
                    if spec.rules_override and not spec.compare else "")
            raise ExperimentError(f"{exp_dir} holds experiment {spec.name!r} under rules {had}, not {now}; "
                                  f"{hint + 'or ' if hint else ''}use a new --out directory")
        hint = "use a new --out directory"
        if old["spec"].get("name") == spec.name and _identity(old["spec"]) == _written_before(spec.identity()):
            hint = ("its user plays were run with exchange=shortest and void=fewest, which a user file's play got "
                    "where its spec named none, and now gets exchange=expert and void=expert: add "
                    "+exchange=shortest+void=fewest to those seat specs to resume it, or use a new --out directory")
        raise ExperimentError(f"{exp_dir} holds experiment {old['spec'].get('name')!r} with a different spec; {hint}")
    if old["seed"] != seed:
        raise ExperimentError(f"{exp_dir} holds this experiment with seed {old['seed']}, not {seed}; "
                              "use a new --out directory")
    if old.get("draw_order", "table") != options.draw_order:   # experiments before draw orders drew in table order
        raise ExperimentError(f"{exp_dir} holds this experiment drawn in {old.get('draw_order', 'table')} order, "
                              f"not {options.draw_order}; use a new --out directory")
    had = old.get("estimator", "plain") if spec.kind == "duplicate" else estimator   # before luck: plain
    if had != estimator:
        raise ExperimentError(f"{exp_dir} holds this experiment with the {had} estimator, not {estimator}; "
                              f"add --estimator {had} to resume or extend it, or use a new --out directory")
    if hands < old["hands"]:
        plan = old.get("until_plan")
        if plan:
            goal = (f"--until-width {plan['width']:g}" if plan["rule"] == "width"
                    else f"until_relative {plan['relative']:g}")
            raise ExperimentError(f"{exp_dir} holds a run planned to {old['hands']:,} {_unit(spec)} by {goal} from a "
                                  f"pilot of {plan['pilot']:,}: give {goal} and --hands {plan['pilot']} to resume or "
                                  "extend it (`sichuan experiment report` prints it), or use a new --out directory")
        raise ExperimentError(f"{exp_dir} already holds {old['hands']:,} {_unit(spec)}; --hands may only grow "
                              "(it extends the experiment); `sichuan experiment report` prints it")
    return old


def _written_before(value):
    """A spec's identity with each seat as its spec gave it before a user file's play got expert's
    policies (``strategies.names.as_written_before``)."""
    from strategies.names import as_written_before

    if isinstance(value, dict):
        return {k: _written_before(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_written_before(v) for v in value]
    if isinstance(value, str) and ".py:" in value and "+exchange=" in value:
        return as_written_before(value)
    return value


def _identity(spec_json: dict, rules: bool = True) -> dict:
    """What of a spec must match to resume (``Spec.identity``), from its JSON; ``rules=False``:
    all of it but the rules of its arms or cells."""
    keys = ("name", "kind", "field", "baseline", "arms", "cells")
    d = {k: spec_json[k] for k in keys if k in spec_json}
    drop = ("rules_label", "sweep") if rules else ("rules_label", "sweep", "rules")
    for k in ("arms", "cells"):
        if k in d:
            d[k] = [{kk: vv for kk, vv in x.items() if kk not in drop} for x in d[k]]
    return d


def override_options(given: dict) -> str:
    """``--rules R --set K=V ...`` as ``sichuan experiment run`` was given them."""
    import shlex

    words = ([f"--rules {shlex.quote(given['rules'])}"] if given.get("rules") else []) \
        + [f"--set {shlex.quote(s)}" for s in given.get("sets") or ()]
    return " ".join(words)


def rules_text(spec_json: dict) -> str:
    """The rules an experiment plays, for a message: its arms' or cells' rule sets, and how they
    were given (``--rules``/``--set``, or the spec's own)."""
    entries = spec_json.get("arms") or spec_json.get("cells") or []
    labels = list(dict.fromkeys(x.get("rules_label") or x["rules"]["preset"] for x in entries))
    text = ", ".join(labels)
    given = spec_json.get("rules_override")
    if given:
        return f"{text} ({override_options(given)})"
    return text if spec_json.get("compare") else f"{text} (the spec's)"


def _unit(spec: Spec) -> str:
    return "walls" if spec.kind == "duplicate" else "hands per cell"


def _check_seats(runs: list[PlannedRun], quiet: bool = False) -> bool:
    """Load every run's strategies before anything plays, so a strategy file that cannot be used
    stops the experiment with one line at once, not after the runs before it; returns whether a
    seat of any run searches (its runs get small chunks)."""
    from simcore.runs.batch import _searches
    from simcore.runs.warmup import warm
    from strategies.registry import StrategyError, seat_functions

    specs = list(dict.fromkeys(p.config.seats for p in runs))
    warm([",".join(s.canonical for s in seats) for seats in specs], quiet)  # the child process takes text
    searching = False
    for seats, rules in dict.fromkeys((p.config.seats, p.config.rules) for p in runs):
        try:   # under each run's rules: a seat's model of the other blood is refused
            searching = _searches(seat_functions(list(seats), rules)) or searching
        except StrategyError as exc:
            label = next(p.label for p in runs if p.config.seats == seats and p.config.rules == rules)
            raise ExperimentError(f"{label}: {exc}") from None
    return searching


def cpu_seconds() -> float:
    """CPU seconds (user and system) used so far by this process, all its threads, and its child
    processes that have ended (a pool's workers once it is shut down)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _chunk_of(old: dict | None) -> int | None:
    """The chunk size an existing experiment's runs recorded (experiments before small chunks
    have 100,000), so they resume and extend as they were made."""
    for cfg in ((old or {}).get("runs") or {}).values():
        if cfg.get("chunk_hands"):
            return int(cfg["chunk_hands"])
    return None


def shadow_groups(spec: Spec, runs: list, layout: dict, full_tables: bool = False) -> list[dict]:
    """The duplicate arms played by shadowing (``simcore.runs.batch.run_shadowed``): per arm that
    is not the field, its four rotation runs and, when the plan has it, the field's table under
    the arm's rules, all played together. None with ``full_tables``, for cells experiments, or
    where a seat searches (a searching seat is not shadowed)."""
    if full_tables or spec.kind != "duplicate":
        return []
    from simcore.runs.batch import can_shadow

    if not can_shadow(spec.field, spec.field):
        return []
    by_dir = {p.reldir: p for p in runs}
    by_key = {json.dumps(p.config.to_json(), sort_keys=True): p for p in runs}
    groups = []
    for arm in spec.arms:
        if arm.seat == spec.field or not can_shadow(spec.field, arm.seat):
            continue
        rot = [by_dir[d] for d in layout[arm.name]["runs"]]
        cfg0 = rot[0].config
        field_cfg = replace(cfg0, seats=(spec.field,) * 4)
        field_run = by_key.get(json.dumps(field_cfg.to_json(), sort_keys=True))
        groups.append({"arm": arm, "runs": rot + ([field_run] if field_run else [])})
    return groups


def _play_group(exp_dir: Path, spec: Spec, group: dict, seed: int, counts: dict,
                save: Callable[[], None], progress: Callable[[int, int, float], None] | None = None) -> list[dict]:
    """One shadowed arm's runs played together; ``counts[chunk]`` gets the walls on which any
    rotation differed and each rotation's, and ``save`` keeps them before the chunk is written (a
    chunk interrupted before its shards are complete is played, and counted, again)."""
    from simcore.runs.batch import run_shadowed
    from simcore.runs.runner import run_group

    arm = group["arm"]
    runs = group["runs"]
    chunk_of = {first: c for c, first, _ in runs[0].config.chunks()}
    options = runs[0].config.options()   # the rotations' draw order and value model are the field's

    def source(first: int, count: int):
        field, arms, differed = run_shadowed(arm.rules.rules, spec.field, arm.seat, seed, first, count,
                                             options=options)
        counts[str(chunk_of[first])] = [int(differed.any(axis=1).sum())] + [int(x) for x in differed.sum(axis=0)]
        save()
        return (arms + [field])[:len(runs)]

    return run_group([(exp_dir / p.reldir, p.config) for p in runs], source, progress)


COST_WALLS = 4000
COST_WALLS_SEARCH = 8


def luck_cost(spec: Spec, walls: int, seed: int, options) -> dict:
    """The CPU the luck terms cost, measured: the field's table under the reference rules played on
    the same walls (at most ``COST_WALLS``; a searching field ``COST_WALLS_SEARCH``) with and
    without measuring luck, one thread each, so a report can give the CPU per wall of both
    estimators (``options``: the draw order)."""
    import numba

    from simcore.engine import RunOptions
    from simcore.runs.batch import can_shadow, run_batch
    from simcore.runs.value_model import shipped
    from strategies.registry import seat_functions

    rules = next(a for a in spec.arms if a.name == spec.baseline).rules.rules
    fns = seat_functions([spec.field] * 4)
    n = min(walls, COST_WALLS if can_shadow(spec.field, spec.field) else COST_WALLS_SEARCH)   # a search is slow
    plain, luck = RunOptions(options.draw_order), RunOptions(options.draw_order, shipped(rules)[0])
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        run_batch(rules, fns, seed, 0, min(n, 50), options=luck)   # compiled before timing
        t0 = time.process_time()
        run_batch(rules, fns, seed, 0, n, options=plain)
        t1 = time.process_time()
        run_batch(rules, fns, seed, 0, n, options=luck)
        t2 = time.process_time()
    finally:
        numba.set_num_threads(threads)
    return {"walls": n, "plain_seconds": round(t1 - t0, 4), "luck_seconds": round(t2 - t1, 4)}


class _Work:
    """A session's progress over the experiment's steps (a shadowed arm's runs, or one run), in
    hands of all the tables: what the runs held when the session opened them, what it has played,
    what is left. ``report(state)`` gets it after every chunk."""

    def __init__(self, sizes: list[int], report: Callable[[dict], None] | None):
        self.sizes, self.report = sizes, report
        self.now = [0.0] * len(sizes)
        self.prior: list = [None] * len(sizes)
        self.t0 = time.perf_counter()

    def step(self, i: int) -> Callable[[int, int, float], None]:
        def on(done: int, total: int, seconds: float) -> None:
            w = self.sizes[i] * (done / total if total else 1.0)
            if self.prior[i] is None:
                self.prior[i] = w     # the runs' first report: what they already held
            self.now[i] = w
            if self.report:
                self.report({"done": sum(self.now), "total": sum(self.sizes),
                             "played": sum(n - p for n, p in zip(self.now, self.prior) if p is not None),
                             "seconds": time.perf_counter() - self.t0})
        return on


def run_experiment(spec: Spec, out, hands: int | None = None, seed: int | None = None, workers: int | None = None,
                   log: Callable[[str], None] | None = None, draw_order: str | None = None,
                   full_tables: bool = False, estimator: str | None = None,
                   progress: Callable[[dict], None] | None = None, chunk_hands: int | None = None,
                   before: Callable[[dict], None] | None = None) -> dict:
    """Play every missing run of the experiment into ``out``; returns the manifest. ``draw_order``
    and ``estimator``: the spec's (``seat`` and ``luck`` unless it says) unless given. A duplicate
    arm that differs from the field plays only where its answers differ (``shadow_groups``);
    ``full_tables`` plays every rotation table in full. ``progress(state)`` after every chunk
    (``_Work``: hands of all tables done, total, played this session, seconds); ``chunk_hands``:
    a new experiment's chunk (tests); ``before(manifest)`` may amend the manifest written before
    anything plays (``experiments.until`` keeps its plan there)."""
    from simcore.contract.messages import one_line
    from simcore.runs.batch import InvariantError, StrategyAnswerError
    from simcore.engine import RunOptions
    from simcore.runs.runner import RunError, RunInterrupted, cpu_count, run
    from strategies.registry import StrategyError

    hands = spec.hands if hands is None else int(hands)
    seed = spec.seed if seed is None else int(seed)
    options = RunOptions(draw_order or spec.draw_order)   # the draw order; luck is each run's, by its estimator
    estimator = (estimator or spec.estimator) if spec.kind == "duplicate" else "plain"
    if hands <= 0:
        raise ExperimentError(f"--hands must be positive, got {hands}")
    exp_dir = Path(out)
    searching = _check_seats(plan(spec, hands, seed, options, estimator)[0], quiet=log is None)
    pool = None
    with files.ManagedDir(exp_dir, "experiment directory", MANIFEST, ".experiment.lock", ExperimentError) as d:
        old = _check_existing(d, spec, hands, seed, options, estimator)
        chunk = _chunk_of(old) or chunk_hands or (SEARCH_CHUNK if searching else None)
        runs, layout = plan(spec, hands, seed, options, estimator, chunk)
        groups = shadow_groups(spec, runs, layout, full_tables)
        for name, entry in layout.items():   # where rotations differed, by chunk (kept across sessions)
            old_entry = ((old or {}).get("layout") or {}).get(name) or {}
            if "differed" in old_entry and old_entry.get("runs") == entry.get("runs"):
                entry["differed"] = old_entry["differed"]
        from simcore.version import __version__

        manifest = {
            "format": FORMAT, "version": VERSION, "package_version": __version__,
            "spec": spec.to_json(), "seed": seed, "hands": hands, "draw_order": options.draw_order,
            **({"estimator": estimator} if spec.kind == "duplicate" else {}),
            "cores": workers or cpu_count(),
            **({"luck_cost": old["luck_cost"]} if old and "luck_cost" in old else {}),
            "layout": layout, "runs": {p.reldir: p.config.to_json() for p in runs},
            "complete": False,
            "timings": d.timings(old) if old else {**d.timings(None), "cpu_seconds": 0.0},
        }
        if before:
            before(manifest)
        d.write_manifest(manifest, allow_nan=False)
        total_hands = sum(p.config.total_hands for p in runs)
        if log:
            log(f"experiment {spec.name}: {len(runs)} runs, {total_hands:,} hands in all, seed {seed}, "
                f"{options.draw_order} draw order, into {exp_dir}")
        grouped = {p.reldir for g in groups for p in g["runs"]}
        plain = [p for p in runs if p.reldir not in grouped]
        steps = len(groups) + len(plain)
        work = _Work([sum(p.config.total_hands for p in g["runs"]) for g in groups]
                     + [p.config.total_hands for p in plain], progress)
        t0, c0 = time.perf_counter(), cpu_seconds()
        try:
            for i, g in enumerate(groups, 1):
                t1 = time.perf_counter()
                counts = layout[g["arm"].name].setdefault("differed", {})
                try:
                    ms = _play_group(exp_dir, spec, g, seed, counts,
                                     lambda: d.write_manifest(manifest, allow_nan=False), work.step(i - 1))
                except RunInterrupted:
                    raise
                except (RunError, StrategyError, StrategyAnswerError, InvariantError, ValueError) as exc:
                    raise ExperimentError(f"arm {g['arm'].name}: {one_line(exc)}") from None
                d.write_manifest(manifest, allow_nan=False)
                if log:
                    walls = ms[0]["hands"]
                    known = sum(v[0] for v in counts.values())
                    this = any(m["timings"].get("last_session_hands") for m in ms)
                    log(f"  [{i}/{steps}] arm {g['arm'].name}: {len(g['runs'])} tables of {walls:,} walls, "
                        + (f"played where it differs ({known:,} walls differed), {time.perf_counter() - t1:.1f} s"
                           if this else "already complete"))
            for entry in layout.values():   # an arm with another's runs (the same seat and rules) has its counts
                if not entry.get("differed"):
                    twin = next((e for e in layout.values() if e is not entry and e.get("runs") == entry.get("runs")
                                 and e.get("differed")), None)
                    if twin is not None:
                        entry["differed"] = twin["differed"]
            for i, p in enumerate(plain, len(groups) + 1):
                t1 = time.perf_counter()
                multi = len(p.config.chunks()) > 1
                if multi and pool is None and (workers or cpu_count()) > 1:
                    # one pool for the whole experiment: workers load the engine once, not once per run
                    pool = cf.ProcessPoolExecutor(min(workers or cpu_count(), cpu_count()),
                                                  mp_context=multiprocessing.get_context("spawn"))
                try:
                    m = run(exp_dir / p.reldir, p.config, workers=workers, executor=pool if multi else None,
                            progress=work.step(i - 1))
                except RunInterrupted:
                    raise  # Ctrl-C: the command says so in its own line
                except (RunError, StrategyError) as exc:
                    raise ExperimentError(f"{p.label}: {exc}") from None
                if log:
                    secs = time.perf_counter() - t1
                    rate = m["timings"].get("last_session_hands_per_second")
                    done = "already complete" if not rate else f"{rate:,.0f} hands/s"
                    log(f"  [{i}/{steps}] {p.label}: {m['hands']:,} hands, {secs:.1f} s ({done})")
        except RunInterrupted:
            _end_session(d, manifest, pool, t0, c0, write=True)    # an interrupt keeps the time and CPU it used
            pool = None
            # one run's count of chunks says little of the experiment's (its runs are many, its chunks few)
            raise _interrupted(exp_dir, runs) from None
        except BaseException:
            _end_session(d, manifest, pool, t0, c0, write=True)
            pool = None
            raise
        _end_session(d, manifest, pool, t0, c0, write=False)
        pool = None
        if estimator == "luck" and "luck_cost" not in manifest:
            try:
                manifest["luck_cost"] = luck_cost(spec, hands, seed, options)
            except KeyboardInterrupt:
                raise RunInterrupted("interrupted: every run is complete, the cost of luck not yet measured; "
                                     "run the same command again to finish") from None
        manifest["complete"] = True
        d.write_manifest(manifest, allow_nan=False)
        return manifest


def _interrupted(exp_dir: Path, runs: list[PlannedRun]):
    """The line for an interrupted experiment: how much of all of it is kept, in hands of its runs'
    complete chunks, and how to go on."""
    from simcore.runs import shards as rio
    from simcore.runs.runner import RunInterrupted

    done = total = 0
    for p in runs:
        run_dir = exp_dir / p.reldir
        have = rio.complete_chunks(run_dir) if run_dir.is_dir() else set()
        for c, _, count in p.config.chunks():
            hands = count * p.config.hands_per_item
            total += hands
            done += hands if c in have else 0
    return RunInterrupted(f"interrupted: {done:,} of the experiment's {total:,} hands ({len(runs)} runs) are in "
                          "complete chunks and kept; run the same command again to resume")


def _end_session(d: files.ManagedDir, manifest: dict, pool, t0: float, c0: float, write: bool) -> None:
    """The session's play ends: the pool's workers stopped and waited for (so their CPU counts),
    its elapsed seconds and, where every session was measured, its CPU seconds added to the
    timings (``write``: the manifest written too, so an interrupted session keeps what it used)."""
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    t = manifest["timings"]
    d.end_session(t, time.perf_counter() - t0)
    if "cpu_seconds" in t:   # experiments before CPU was measured have none: their figure stays elapsed x cores
        t["cpu_seconds"] = round(float(t["cpu_seconds"]) + cpu_seconds() - c0, 3)
    if write:
        try:
            d.write_manifest(manifest, allow_nan=False)
        except (OSError, KeyboardInterrupt):
            pass


def walls_held(exp_dir: Path, manifest: dict) -> int:
    """How far an incomplete experiment got, in its --hands unit (walls; hands per cell): the
    share of its least advanced run held in complete chunks from the first on, from the chunks'
    file names only."""
    from simcore.runs import shards as rio
    from simcore.runs.runner import RunConfig

    hands = held = int(manifest["hands"])
    for reldir, cfg in (manifest.get("runs") or {}).items():
        run_dir = Path(exp_dir) / reldir
        done = rio.complete_chunks(run_dir) if run_dir.is_dir() else set()
        c = 0
        while c in done:
            c += 1
        n = int(cfg["n"])
        held = min(held, min(c * RunConfig.from_json(cfg).chunk_items, n) * hands // n)
    return held


def run_dirs(exp_dir, manifest: dict) -> dict:
    """Absolute run directories per arm (list, rotation order) or cell (one path)."""
    exp_dir = Path(exp_dir)
    out = {}
    for name, entry in manifest["layout"].items():
        if "runs" in entry:
            out[name] = [exp_dir / d for d in entry["runs"]]
        else:
            out[name] = exp_dir / entry["run"]
    return out


__all__ = ["ExperimentError", "SpecError", "plan", "run_experiment", "read_manifest", "run_dirs", "check_complete",
           "MANIFEST", "REPORT"]
