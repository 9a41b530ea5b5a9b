"""Simulation runs: chunks of hands -> an executor -> Parquet shards, resumable and extendable.

A chunk is the unit of work, checkpointing, progress and distribution (ARCHITECTURE.md: Run directories).
Chunk c holds global hands [c*K, (c+1)*K) (matches in match mode), so its content depends
only on the configuration, never on workers or scheduling: the same version, seed and
configuration give the same results. Each task plays its chunk and writes its own shards;
the caller only sees small records. Rerunning the same command on a directory skips finished
chunks; a larger ``--hands`` extends the run; any other change of configuration is refused.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import queue
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from simcore.contract.rules import RuleSet, apply_overrides, check_draw_order, preset
from simcore.contract.view import CONTRACT_VERSION
from simcore.runs import DEFAULT_CHUNK_HANDS
from simcore.runs import shards as rio
from simcore.runs.batch import InvariantError, StrategyAnswerError, run_batch
from simcore.runs.files import ManagedDir
from simcore.version import __version__


class RunError(RuntimeError):
    """A run that cannot start or continue; the message is one line for the user."""


class RunInterrupted(RunError, KeyboardInterrupt):
    """Ctrl-C stopped the run: the message says how many chunks are complete and how to resume
    (still a KeyboardInterrupt, for code that stops on one)."""


@dataclass(frozen=True)
class RunConfig:
    """What determines a run's content (plus ``n``, which may grow). Picklable: it travels to
    worker processes and Dask; the seats are parsed specs, never compiled functions."""

    rules: RuleSet
    seats: tuple                    # four strategies.registry.SeatSpec (a seat spec's text is parsed once, here)
    seed: int
    mode: str                       # "hands" or "matches"
    n: int                          # hands, or matches in match mode
    chunk_hands: int = DEFAULT_CHUNK_HANDS
    names: tuple | None = None      # the seats' text as a run recorded it (a resume keeps writing it)
    draw_order: str = "table"       # RULES.md: Rulings where the documents are silent, draw order (not a rule: the same game)
    value_model: str | None = None  # the hash of the shipped value model the hands measure luck with (None: no luck)

    def __post_init__(self):
        check_draw_order(self.draw_order)
        if any(isinstance(s, str) for s in self.seats):  # text from an edge (a spec file, a test)
            from strategies.registry import parse_seat

            object.__setattr__(self, "seats", tuple(parse_seat(s) if isinstance(s, str) else s for s in self.seats))
        else:
            object.__setattr__(self, "seats", tuple(self.seats))
        if len(self.seats) != 4:
            raise ValueError(f"a run has four seats, got {len(self.seats)}")

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The seats' text as run.json, the Parquet tables and messages record it: their
        canonical specs, or what the run being resumed recorded for the same strategies."""
        return tuple(self.names) if self.names else tuple(s.canonical for s in self.seats)

    @property
    def match_mode(self) -> bool:
        return self.mode == "matches"

    @property
    def hands_per_item(self) -> int:
        return self.rules.hands_per_match if self.match_mode else 1

    @property
    def chunk_items(self) -> int:
        """Hands (or whole matches) per chunk."""
        return max(1, self.chunk_hands // self.hands_per_item)

    @property
    def total_hands(self) -> int:
        return self.n * self.hands_per_item

    def chunks(self) -> list[tuple[int, int, int]]:
        """(chunk, first item, item count) for every chunk."""
        k = self.chunk_items
        return [(c, c * k, min(k, self.n - c * k)) for c in range((self.n + k - 1) // k)]

    def identity(self) -> dict:
        """Everything that must match to resume or extend a run (``value_model`` only when luck
        is measured, so runs without it keep the identity they had)."""
        d = {"rules": {"preset": self.rules.preset, "options": self.rules.options()}, "seats": list(self.seat_names),
             "seed": self.seed, "mode": self.mode, "chunk_hands": self.chunk_hands, "draw_order": self.draw_order}
        if self.value_model:
            d["value_model"] = self.value_model
        return d

    def value_weights(self):
        """The value model's weights the hands measure luck with (None without luck); refused in
        one line when the shipped model is not the one recorded."""
        if not self.value_model:
            return None
        from simcore.runs.value_model import shipped

        w, h = shipped(self.rules)
        if h != self.value_model:
            raise RunError(f"this run measures luck with value model {self.value_model}, but the shipped model for "
                           f"{self.rules.preset} is {h} (refitted since): use a new directory, or the plain estimator")
        return w

    def options(self):
        """The run's options as the engine takes them (``simcore.engine.RunOptions``): its draw order,
        and the value model's weights when it measures luck."""
        from simcore.engine import RunOptions

        return RunOptions(self.draw_order, self.value_weights())

    def to_json(self) -> dict:
        return {**self.identity(), "n": self.n}

    @staticmethod
    def from_json(d: dict, seats=None) -> "RunConfig":
        """The configuration run.json records; ``seats`` (parsed) in place of its seat text, e.g.
        with user files at their recorded absolute paths (``simcore.inspection.run_hands``)."""
        rules = apply_overrides(preset(d["rules"]["preset"]), d["rules"]["options"])
        return RunConfig(rules, tuple(seats if seats is not None else d["seats"]), int(d["seed"]), d["mode"],
                         int(d["n"]), int(d["chunk_hands"]), draw_order=d.get("draw_order", "table"),
                         value_model=d.get("value_model"))


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _trace_hint(run_dir: Path, cfg: RunConfig, hand: int) -> str:
    """The trace of the run's hand; for independent hands also the command that needs no run
    directory (an experiment's or a comparison's runs may be temporary)."""
    from simcore.runs.batch import trace_command

    of_run = trace_command(cfg.rules, cfg.seed, hand, run_dir=run_dir)
    if cfg.match_mode:
        return of_run
    return f"{trace_command(cfg.rules, cfg.seed, hand, cfg.seat_names, options=cfg.options())} (or {of_run})"


# numba's threading layer must not be entered from several threads of one process at once
# (a Dask worker with several threads runs several tasks): one numba-parallel task at a time.
_NUMBA_LOCK = threading.Lock()


def _seat_fns(cfg: RunConfig):
    from strategies.registry import seat_functions

    return seat_functions(list(cfg.seats), cfg.rules)


def _play(run_dir, cfg: RunConfig, fns: tuple, first: int, count: int, threads: int, check: bool):
    """The engine's results for a chunk's hands (the GIL is released while it plays)."""
    import numba

    rio.keep_freed_memory()
    with _NUMBA_LOCK:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
        return run_batch(cfg.rules, fns, cfg.seed, first, count, cfg.match_mode, check=check,
                         seat_names=list(cfg.seat_names), trace_hint=lambda g: _trace_hint(Path(run_dir), cfg, g),
                         options=cfg.options())


def _write(run_dir, cfg: RunConfig, config: dict, chunk: int, first: int, count: int, res) -> None:
    """A chunk's results as its four shards, its summary tallies in the hands shard's footer."""
    from simcore.runs.analysis import batch_summary

    from strategies.names import seat_defaults

    seat_defaults(cfg.seat_names, cfg.seats)   # the seats table's parts drop user parameters at their defaults
    tables = rio.batch_tables(res, list(cfg.seat_names))
    summary = batch_summary(res, list(cfg.seat_names))
    del res  # the tables do not use the engine's result arrays: the caller's reference is the last
    rio.write_shards(Path(run_dir), chunk, tables, config, first, count, summary)


def play_chunk(run_dir: str, cfg: RunConfig, chunk: int, first: int, count: int, threads: int, check: bool) -> dict:
    """One task: play a chunk and write its shards; returns only a small record. Runs in a
    worker process or a Dask worker, which get the configuration as it is (seats parsed once,
    in the command), never its text to parse again."""
    t0 = time.perf_counter()
    res = _play(run_dir, cfg, _seat_fns(cfg), first, count, threads, check)
    n = res.n
    t1 = time.perf_counter()
    _write(run_dir, cfg, cfg.to_json(), chunk, first, count, res)
    del res
    return {"chunk": chunk, "hands": n, "play_seconds": t1 - t0, "write_seconds": time.perf_counter() - t1}


def _play_overlapped(run_dir: Path, cfg: RunConfig, todo, threads: int, check: bool, on_chunk) -> None:
    """One worker: the engine plays chunk c+1 (it releases the GIL) while a writer thread builds
    and writes chunk c's tables. At most one played chunk waits for the writer, so memory stays
    two chunks' worth; a writer's error (a full disk) stops the play at the next chunk. The play
    runs in a thread of its own, so the calling thread can stop at once on Ctrl-C: it lets the
    writer finish the shard it is writing and leaves the chunk being played (its thread ends
    with the kernel, discarding it)."""
    config = cfg.to_json()
    fns = _seat_fns(cfg)
    waiting: queue.Queue = queue.Queue(maxsize=1)
    events: queue.Queue = queue.Queue()     # ("written", count), ("error", exc), ("played", None)
    stop = threading.Event()

    def put_waiting(item) -> bool:
        while not stop.is_set():
            try:
                waiting.put(item, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def player() -> None:
        try:
            for c, first, count in todo:
                if stop.is_set():
                    return
                res = _play(run_dir, cfg, fns, first, count, threads, check)
                if not put_waiting((c, first, count, res)):
                    return
                del res
            put_waiting(None)
        except BaseException as exc:  # delivered to the calling thread
            events.put(("error", exc))

    def writer() -> None:
        while not stop.is_set():
            try:
                item = waiting.get(timeout=0.1)
            except queue.Empty:
                continue
            if item is None:
                events.put(("played", None))
                return
            c, first, count, res = item
            del item
            try:
                _write(run_dir, cfg, config, c, first, count, res)
            except BaseException as exc:
                events.put(("error", exc))
                return
            del res
            events.put(("written", count))

    threads_ = [threading.Thread(target=player, name="sichuan-player", daemon=True),
                threading.Thread(target=writer, name="sichuan-writer", daemon=True)]
    for t in threads_:
        t.start()
    try:
        while True:
            try:
                kind, value = events.get(timeout=0.5)  # a timeout, so Ctrl-C is seen at once
            except queue.Empty:
                continue
            if kind == "error":
                raise value
            if kind == "played":
                return
            on_chunk(value)
    finally:
        stop.set()  # the player drops what it plays; the writer ends after the shard it is writing
        threads_[1].join(timeout=30)


class DaskExecutor:
    """A Dask distributed cluster as a concurrent.futures executor: an existing scheduler, or a
    LocalCluster sized to the machine (one worker process per core, one thread each). Lost or
    failed chunks are retried; every task writes its shards to the shared run directory."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None, retries: int = 3):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RunError("--executor dask needs the dask extra: pip install 'sichuan-sim[dask]'") from None
        self.cluster = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout="10s")
            else:
                self.cluster = LocalCluster(n_workers=workers or cpu_count(), threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            raise RunError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        self.executor = self.client.get_executor(pure=False, retries=retries)

    @property
    def slots(self) -> int:
        """Tasks that can run at once: the cluster's worker threads."""
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args, **kwargs):
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False):
        self.executor.shutdown(wait=wait)
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _strategy_paths(cfg: RunConfig) -> dict[str, str]:
    """{path as the seats give it: absolute path} of the run's user strategy files, so its hands
    can be traced from any directory (``simcore.inspection.run_hands``)."""
    from strategies.registry import user_paths

    return user_paths(cfg.seats)


def _read_manifest(run_dir: Path) -> dict:
    try:
        return rio.read_manifest(run_dir)
    except ValueError as exc:
        raise RunError(str(exc)) from None


def _seat_identity(text: str, absolute) -> list[str]:
    """A seat's parts (play, exchange=..., void=...) with each user file by its absolute path
    (``absolute(path as given)``): what the seat plays, whatever directory names it."""
    from strategies.registry import map_user_paths, split_top

    return [p.strip() for p in split_top(map_user_paths(text, absolute), "+", "seat spec")]


def recorded_file(manifest: dict):
    """``path as a run's seats give it -> the absolute path the run recorded for it``. Older runs
    recorded only {absolute path: hash}: a relative path is matched to the one recorded path that
    ends with it."""
    paths = manifest.get("strategy_paths") or {}
    files = manifest.get("strategy_files") or {}

    def where(path: str) -> str:
        if path in paths:
            return paths[path]
        if Path(path).expanduser().is_absolute():
            return str(Path(path).expanduser())
        tail = os.sep + os.path.normpath(path)
        found = [p for p in files if p.endswith(tail)]
        return found[0] if len(found) == 1 else path

    return where


def recorded_model(manifest: dict):
    """``model file as a run's seats give it -> the absolute path the run recorded for it``
    (``model_paths``); a run written before it recorded none reads it as given, as it did."""
    paths = manifest.get("model_paths") or {}
    return lambda path: paths.get(path, path)


def _check_same_seats(run_dir: Path, old: dict, cfg: RunConfig) -> None:
    """The seats of the run in ``run_dir`` are the same strategies as ``cfg``'s (user files by
    their resolved path, parameters by value); else one line naming the seat, the part and both
    values; model files too, by their resolved path. Files' contents are compared apart
    (``registry.changed_strategy_file``, ``models.changed_model_file``)."""
    from strategies.registry import KINDS, map_model_paths, map_user_paths, model_params, recorded_seat

    recorded = [recorded_seat(s) for s in old.get("config", {}).get("seats") or []]
    theirs_abs, theirs_model = recorded_file(old), recorded_model(old)

    def mine_abs(path: str) -> str:
        return str(Path(path).expanduser().resolve())

    # the model parameters of our parts (loaded already), by the part's absolute name: a part of
    # theirs of the same name has the same (their files are not loaded to find them)
    params = {(kind, map_user_paths(seat.part(kind)[0], mine_abs)): model_params(kind, seat.part(kind)[0])
              for seat in cfg.seats for kind in KINDS}

    def identity(text: str, user_abs, model_abs) -> list[str]:
        text = map_user_paths(text, user_abs)
        return _seat_identity(map_model_paths(text, lambda p: str(Path(model_abs(p)).resolve()),
                                              lambda kind, name: params.get((kind, name), ())), str)

    mine = [s.canonical for s in cfg.seats]
    if len(recorded) != 4:
        raise RunError(f"{run_dir} holds a run whose seats cannot be read; use a new --out directory")
    for seat, (a, b) in enumerate(zip(recorded, mine)):
        ours, them = identity(b, mine_abs, str), identity(a, theirs_abs, theirs_model)
        if ours == them:
            continue
        for part, (x, y) in enumerate(zip(them, ours)):
            if x != y:
                what = ("play", "exchange", "void")[part] if len(them) == len(ours) == 3 else "strategy"
                hint = "use a new --out directory"
                if what != "play" and ".py:" in them[0] and x in ("exchange=shortest", "void=fewest"):
                    hint = ("a user file's play gets exchange=expert and void=expert where its spec names none, "
                            "and this run was written when it got exchange=shortest and void=fewest: add "
                            "+exchange=shortest+void=fewest to its spec to resume it, or use a new --out directory")
                raise RunError(f"{run_dir} holds a run with different seats: seat {seat}'s {what} is "
                               f"{_part_difference(_seat_identity(a, str)[part], _seat_identity(b, str)[part])}; "
                               f"{hint}")


def _value(x) -> str:
    """A configuration value as a refusal shows it (numbers with thousands separators)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    return f"{x:,}" if isinstance(x, int) else str(x)


def _rules_differ(theirs, mine, most: int = 3) -> str:
    """Two rule sets' difference with both values: the presets where they differ, then the options
    (at most ``most``, and how many more), e.g. ``battle there, flow now: blood_flow true there,
    false now, ...``."""
    if not isinstance(theirs, dict) or not isinstance(theirs.get("options"), dict):
        return "unreadable there"
    parts = []
    if theirs.get("preset") != mine.get("preset"):
        parts.append(f"preset {theirs.get('preset')} there, {mine.get('preset')} now")
    a, b = theirs["options"], mine["options"]
    diff = [k for k in b if a.get(k) != b[k]]
    shown = [f"{k} {_value(a.get(k))} there, {_value(b[k])} now" for k in diff[:most]]
    if len(diff) > most:
        shown.append(f"and {len(diff) - most} more options")
    return "; ".join(parts + shown) or "the same options"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _part_difference(theirs: str, mine: str) -> str:
    """``X there, Y now`` for two parts of a seat; of one strategy with other parameter values,
    only the parameters that differ (``search with near=8 there, near=0 now``)."""
    from strategies.registry import StrategyError, name_and_params

    try:
        (a, given_a), (b, given_b) = name_and_params(theirs, theirs), name_and_params(mine, mine)
    except StrategyError:
        a = b = None
    if a is not None and a == b:
        keys = [k for k in {**given_a, **given_b} if given_a.get(k) != given_b.get(k)]
        if keys:
            show = lambda d: ",".join(f"{k}={d.get(k, '(none)')}" for k in keys)
            return f"{_short(a)} with {_short(show(given_a))} there, {_short(show(given_b))} now"
    return f"{_short(theirs)} there, {_short(mine)} now"


def _check_existing(d: ManagedDir, cfg: RunConfig) -> dict | None:
    """The existing manifest, after checking it describes the same run (or None if new)."""
    run_dir = d.path
    old = d.existing(_read_manifest)
    if old is None:
        return None
    mine = cfg.identity()
    theirs = {k: old.get("config", {}).get(k) for k in mine}
    theirs["draw_order"] = theirs["draw_order"] or "table"   # runs written before draw orders drew in table order
    if isinstance(theirs["rules"], dict) and isinstance(theirs["rules"].get("options"), dict):
        # an option added since the run was written: it played the option's default
        defaults = RuleSet().options()
        theirs["rules"] = dict(theirs["rules"], options={**{k: defaults[k] for k in mine["rules"]["options"]
                                                            if k in defaults}, **theirs["rules"]["options"]})
    _check_same_seats(run_dir, old, cfg)
    had = old.get("config", {}).get("value_model")
    if had != cfg.value_model:
        holds = f"that measures luck with value model {had}" if had else "that measures no luck"
        if not cfg.value_model:
            want = "not a run without luck"
        elif had:
            want = f"not with the shipped {cfg.value_model} (refitted since)"
        else:
            want = f"not with {cfg.value_model}"
        raise RunError(f"{run_dir} holds a run {holds}, {want}; use a new --out directory")
    for key in ("rules", "seed", "mode", "chunk_hands", "draw_order"):
        if theirs[key] != mine[key]:
            what = {"rules": "a different rule set", "seed": "a different seed",
                    "mode": "a different mode", "chunk_hands": "a different chunk size",
                    "draw_order": "another draw order"}[key]
            both = (_rules_differ(theirs[key], mine[key]) if key == "rules"
                    else f"{_value(theirs[key])} there, {_value(mine[key])} now")
            raise RunError(f"{run_dir} holds a run with {what} ({both}); use a new --out directory "
                           f"(`sichuan summarize {run_dir}` shows the run's configuration)")
    from strategies.registry import changed_strategy_file

    deps = old.get("strategy_deps")
    for path, digest in (old.get("strategy_files") or {}).items():
        changed = changed_strategy_file(path, digest, None if deps is None else deps.get(path, {}))
        if changed:
            raise RunError(f"{run_dir} cannot be resumed or extended: {changed}, so its results would differ; "
                           "use a new --out directory")
    from strategies.models import changed_model_files

    changed = changed_model_files(old.get("model_files"))
    if changed:
        raise RunError(f"{run_dir} cannot be resumed or extended: {changed}, so its results would differ; "
                       "use a new --out directory")
    old_n = int(old["config"]["n"])
    if cfg.n < old_n:
        unit = "matches" if cfg.match_mode else "hands"
        raise RunError(f"{run_dir} already holds {old_n} {unit}; --{unit} may only grow (it extends the run)")
    return old


def _write_failure(run_dir: Path, cfg: RunConfig, exc: OSError) -> str:
    """One line for a write that failed: what, where, how much of the run is safe, what to do."""
    import errno as errno_

    what = f"chunk {exc.chunk}" if isinstance(exc, rio.ShardWriteError) else rio.MANIFEST
    n = len(_valid_chunks(run_dir, cfg.chunks(), cfg.hands_per_item))
    total = len(cfg.chunks())
    done = f"{n} of {total} chunks are complete"
    if exc.errno == errno_.ENOSPC:
        return (f"no space left on device writing {what} of {run_dir}; {done}; free space and run the same "
                "command again to resume")
    return (f"cannot write {what} of {run_dir}: {exc.strerror or exc}; {done}; run the same command again "
            "to resume")


def _valid_chunks(run_dir: Path, chunks, hands_per_item: int = 1) -> set[int]:
    """The chunks whose four shards are all there, readable, of this run's hand range and (hands,
    seats) of the right length; any other chunk (a corrupt, truncated or foreign shard in any
    table) is played again."""
    done = rio.complete_chunks(run_dir)
    valid = set()
    for c, first, count in chunks:
        if c not in done:
            continue
        rows = {"hands": count * hands_per_item, "seats": 4 * count * hands_per_item}
        try:
            for name in rio.TABLES:
                meta, n = rio.shard_footer(run_dir / name / rio.shard_name(c))
                if meta["first"] != first or meta["count"] != count or n != rows.get(name, n):
                    break
            else:
                valid.add(c)
        except Exception:  # a corrupt shard: the chunk is played again
            pass
    return valid


def _play_chunks(run_dir: Path, cfg: RunConfig, todo, executor, own: bool, workers, check, on_chunk) -> None:
    """Play the chunks ``todo`` on the executor (made here when ``own``); ``on_chunk(count)``
    after each one finishes."""
    if isinstance(executor, DaskExecutor):
        n_workers = executor.slots
        threads = 1
    else:
        n_workers = max(1, min(workers or cpu_count(), len(todo)))
        threads = max(1, cpu_count() // n_workers)
    if own and executor is None:
        if n_workers == 1:
            try:
                _play_overlapped(run_dir, cfg, todo, threads, check, on_chunk)
            except (StrategyAnswerError, InvariantError) as exc:
                raise RunError(str(exc)) from None
            return
        executor = cf.ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn"))
    pending: dict[cf.Future, tuple] = {}
    left = list(todo)
    # one chunk queued behind each running one: a worker that finishes starts its next chunk at
    # once instead of waiting for this loop to hear of it and submit
    in_flight = 2 * n_workers
    try:
        while left or pending:
            while left and len(pending) < in_flight:
                c, first, count = left.pop(0)
                fut = _submit(executor, own, play_chunk, str(run_dir), cfg, c, first, count, threads, check)
                pending[fut] = (c, first, count)
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                c, first, count = pending.pop(fut)
                try:
                    fut.result()
                except (StrategyAnswerError, InvariantError) as exc:
                    raise RunError(str(exc)) from None
                on_chunk(count)
    except BaseException as exc:
        if own and isinstance(exc, KeyboardInterrupt):
            # the pool fails the futures of the workers stopped (a future cancelled first would
            # make its manager thread raise, Python 3.11)
            _stop_workers(executor)
            executor.shutdown(wait=False)
            # the pool's manager thread must be gone before the interpreter exits: else its
            # closing of a pipe races the exit hook that writes to it (a traceback on stderr)
            manager = getattr(executor, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(timeout=10)
            own = False
        else:
            for fut in pending:
                fut.cancel()
        raise
    finally:
        if own:
            executor.shutdown(wait=True, cancel_futures=True)


def _submit(executor, shield: bool, fn, *args):
    """``executor.submit``; with ``shield``, SIGINT is blocked meanwhile, so a worker process it
    starts inherits the block: Ctrl-C, sent to the whole process group, then reaches only this
    process, which stops the workers (no traceback from each). A Ctrl-C meanwhile is held until
    the submit is done, so a worker is never left half started."""
    import signal

    if (not shield or not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        return executor.submit(fn, *args)
    held: list = []
    handler = signal.signal(signal.SIGINT, lambda *_: held.append(1))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        fut = executor.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, signal.SIG_DFL if handler is None else handler)
    if held and callable(handler):
        handler(signal.SIGINT, None)  # Python's default raises KeyboardInterrupt
    return fut


def _stop_workers(executor) -> None:
    """Stop a process pool's workers mid-chunk: a chunk's shards are renamed into place only when
    all four are written, so what is complete stays complete and the rest is played again."""
    stop = getattr(executor, "terminate_workers", None)  # Python 3.14
    if stop is not None:
        stop()
        return
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        proc.terminate()
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        proc.join(timeout=5)


_CHUNKS_WRITTEN = [0]


def stop_for_tests() -> None:
    """With ``SICHUAN_INTERRUPT_AFTER_CHUNKS=k`` in the environment: a Ctrl-C (KeyboardInterrupt)
    once this process has seen k chunks finish, where a real one would land, so tests can stop a
    run at a chunk of their choosing and resume it. Unset, it does nothing."""
    k = os.environ.get("SICHUAN_INTERRUPT_AFTER_CHUNKS")
    if k and _CHUNKS_WRITTEN[0] >= int(k):
        raise KeyboardInterrupt


def run(run_dir: str | os.PathLike, cfg: RunConfig, workers: int | None = None, check: bool = False,
        executor: cf.Executor | None = None, progress: Callable[[int, int, float], None] | None = None,
        executor_kind: str = "local", scheduler: str | None = None) -> dict:
    """Play every missing chunk of the run into ``run_dir``; returns the final manifest.

    ``progress(hands_done, hands_total, seconds)`` is called after each chunk. The executor is
    ``executor`` if given; else ``executor_kind`` "local" (worker processes; inline for one
    worker or one chunk) or "dask" (the cluster at ``scheduler``, or a LocalCluster)."""
    run_dir = Path(run_dir).resolve()
    _check_rules(cfg)
    with ManagedDir(run_dir, "run directory", rio.MANIFEST, ".lock", RunError) as d:
        cfg, chunks, todo, manifest = _open_run(d, cfg)
        to_play = {c for c, _, _ in todo}
        done = [sum(count for c, _, count in chunks if c not in to_play) * cfg.hands_per_item]
        total = cfg.total_hands
        t0 = time.perf_counter()
        if progress:
            progress(done[0], total, 0.0)

        def on_chunk(count: int) -> None:
            done[0] += count * cfg.hands_per_item
            _CHUNKS_WRITTEN[0] += 1
            if progress:
                progress(done[0], total, time.perf_counter() - t0)
            stop_for_tests()

        if todo:
            own = executor is None
            if own and executor_kind == "dask":
                executor = DaskExecutor(scheduler, workers)
            try:
                _play_chunks(run_dir, cfg, todo, executor, own, workers, check, on_chunk)
            except OSError as exc:
                raise RunError(_write_failure(run_dir, cfg, exc)) from None
            except KeyboardInterrupt:
                raise _interrupted(run_dir, chunks) from None
        _close_run(d, cfg, manifest, time.perf_counter() - t0, sum(count for c, _, count in todo))
        return manifest


def _check_rules(cfg: RunConfig) -> None:
    """Refuse seats that cannot play the run's rules (a model of the other blood) before any
    directory is made."""
    from strategies.registry import StrategyError, check_rules

    try:
        check_rules(cfg.seats, cfg.rules)
    except StrategyError as exc:
        raise RunError(str(exc)) from None


def _open_run(d: ManagedDir, cfg: RunConfig) -> tuple:
    """A run directory opened for play: its existing run checked (``cfg`` then writes the seats
    as that run did), leftovers removed, its manifest written (incomplete). Returns the
    configuration, its chunks, the chunks to play and the manifest."""
    run_dir = d.path
    old = _check_existing(d, cfg)
    if old is not None:  # the same strategies, however named now: write them as the run did
        cfg = replace(cfg, names=tuple(old["config"]["seats"]))
    chunks = cfg.chunks()
    valid = _valid_chunks(run_dir, chunks, cfg.hands_per_item)
    rio.remove_partial(run_dir, valid)
    todo = [x for x in chunks if x[0] not in valid]
    from strategies.names import seat_defaults
    from strategies.registry import model_file_records, model_paths, user_file_records

    files, deps = user_file_records(cfg.seats)
    manifest = {
        "schema_version": rio.SCHEMA_VERSION,
        "contract_version": CONTRACT_VERSION,   # the strategies' view layout (1 where a run lacks it)
        "package_version": __version__,
        "config": cfg.to_json(),
        "hands": cfg.total_hands,
        "matches": cfg.n if cfg.match_mode else None,
        "hands_per_match": cfg.rules.hands_per_match if cfg.match_mode else None,
        "chunks": len(chunks),
        "strategy_files": files,     # each user strategy file: one hash of it and what it imports
        "strategy_deps": deps,       # and each of those files' own, so a refusal names the one that changed
        "strategy_paths": (old or {}).get("strategy_paths") or _strategy_paths(cfg),
        "model_files": model_file_records(cfg.seats, cfg.rules),   # each model file a seat plays: its digest
        "model_paths": (old or {}).get("model_paths") or model_paths(cfg.seats),   # as strategy_paths
        # each user part's parameter defaults, by its name in the seats: its names print only the others
        "strategy_defaults": seat_defaults(cfg.seat_names, cfg.seats),
        "complete": not todo,
        "timings": d.timings(old),
    }
    d.write_manifest(manifest)
    return cfg, chunks, todo, manifest


def _close_run(d: ManagedDir, cfg: RunConfig, manifest: dict, elapsed: float, played_items: int) -> None:
    """A run directory whose chunks are all played: temp files gone, its manifest complete with
    this session's timings."""
    rio.remove_partial(d.path, rio.complete_chunks(d.path))  # temp files of retried tasks
    manifest["complete"] = True
    t = d.end_session(manifest["timings"], elapsed)
    played = played_items * cfg.hands_per_item
    t["last_session_hands_per_second"] = round(played / elapsed, 1) if elapsed > 0 and played else None
    t["last_session_hands"] = played
    try:
        d.write_manifest(manifest)
    except OSError as exc:
        raise RunError(_write_failure(d.path, cfg, exc)) from None


def _interrupted(run_dir: Path, chunks) -> RunInterrupted:
    n = len(rio.complete_chunks(run_dir) & {c for c, _, _ in chunks})
    if n == len(chunks):   # stopped after the last chunk was written, before the run was closed
        return RunInterrupted(f"interrupted: all {n} chunks are complete, the run not yet closed; run the same "
                              "command again to finish it")
    return RunInterrupted(f"interrupted: {n} of {len(chunks)} chunks complete; run the same command again to resume")


def run_group(entries, source: Callable, progress: Callable[[int, int, float], None] | None = None) -> list[dict]:
    """Runs whose hands are played together, chunk by chunk, in this process: ``entries`` is a list
    of (run directory, RunConfig) of the same size and chunks; ``source(first, count)`` returns one
    ``BatchResult`` per entry for the chunk's hands (``batch.run_shadowed`` plays a duplicate arm's
    four rotations and its field together). A chunk is played when any of the runs lacks it, and
    written to those that do. Each run directory is as ``run`` would make it; returns their
    manifests."""
    from contextlib import ExitStack

    for _, cfg in entries:
        _check_rules(cfg)
    with ExitStack() as stack:
        opened = []
        try:
            for run_dir, cfg in entries:
                d = stack.enter_context(ManagedDir(Path(run_dir).resolve(), "run directory", rio.MANIFEST, ".lock",
                                                   RunError))
                opened.append((d, *_open_run(d, cfg)))
        except KeyboardInterrupt:   # Ctrl-C while the runs open: nothing of this session played yet
            raise _interrupted(Path(entries[0][0]).resolve(), entries[0][1].chunks()) from None
        chunks = opened[0][2]
        if any(o[2] != chunks for o in opened):
            raise ValueError("the runs of a group must have the same chunks")
        todo = [{c for c, _, _ in o[3]} for o in opened]
        need = [x for x in chunks if any(x[0] in t for t in todo)]
        total = sum(count for _, _, count in chunks)
        done = total - sum(count for _, _, count in need)
        t0 = time.perf_counter()
        if progress:
            progress(done, total, 0.0)
        for c, first, count in need:
            try:
                stop_for_tests()
                results = source(first, count)
            except KeyboardInterrupt:
                raise _interrupted(opened[0][0].path, chunks) from None
            for (d, cfg, _, _, _), res, t in zip(opened, results, todo):
                if c not in t:
                    continue
                try:
                    _write(d.path, cfg, cfg.to_json(), c, first, count, res)
                except OSError as exc:
                    raise RunError(_write_failure(d.path, cfg, exc)) from None
                except KeyboardInterrupt:
                    raise _interrupted(d.path, chunks) from None
            del results
            done += count
            _CHUNKS_WRITTEN[0] += 1
            if progress:
                progress(done, total, time.perf_counter() - t0)
        elapsed = time.perf_counter() - t0
        for (d, cfg, _, todo_list, manifest) in opened:
            _close_run(d, cfg, manifest, elapsed, sum(count for _, _, count in todo_list))
        return [o[4] for o in opened]
