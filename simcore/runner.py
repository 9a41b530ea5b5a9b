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
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .version import __version__
from . import io as rio
from .batch import InvariantError, StrategyAnswerError, run_batch
from .files import ManagedDir
from .rules import RuleSet, apply_overrides, preset

DEFAULT_CHUNK_HANDS = 100_000


class RunError(RuntimeError):
    """A run that cannot start or continue; the message is one line for the user."""


@dataclass(frozen=True)
class RunConfig:
    """What determines a run's content (plus ``n``, which may grow)."""

    rules: RuleSet
    seats: tuple[str, ...]          # canonical seat specs
    seed: int
    mode: str                       # "hands" or "matches"
    n: int                          # hands, or matches in match mode
    chunk_hands: int = DEFAULT_CHUNK_HANDS

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
        """Everything that must match to resume or extend a run."""
        return {"rules": {"preset": self.rules.preset, "options": self.rules.options()}, "seats": list(self.seats),
                "seed": self.seed, "mode": self.mode, "chunk_hands": self.chunk_hands}

    def to_json(self) -> dict:
        return {**self.identity(), "n": self.n}

    @staticmethod
    def from_json(d: dict) -> "RunConfig":
        rules = apply_overrides(preset(d["rules"]["preset"]), d["rules"]["options"])
        return RunConfig(rules, tuple(d["seats"]), int(d["seed"]), d["mode"], int(d["n"]), int(d["chunk_hands"]))


class InlineExecutor(cf.Executor):
    """Runs each task in the calling thread when submitted: no process start-up, for small
    runs and ``--workers 1``."""

    def submit(self, fn, /, *args, **kwargs):
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # delivered through the future, like a real executor
            fut.set_exception(exc)
        return fut


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _trace_hint(run_dir: Path, hand: int) -> str:
    return f"sichuan trace {run_dir} --hand {hand}"


# numba's threading layer must not be entered from several threads of one process at once
# (a Dask worker with several threads runs several tasks): one numba-parallel task at a time.
_NUMBA_LOCK = threading.Lock()


def play_chunk(run_dir: str, config: dict, chunk: int, first: int, count: int, threads: int, check: bool) -> dict:
    """One task: play a chunk and write its shards; returns only a small record. Runs in a
    worker process, a Dask worker, or inline."""
    import numba

    from strategies.registry import parse_seats, seat_functions

    cfg = RunConfig.from_json(config)
    seats = parse_seats(",".join(cfg.seats))
    fns = seat_functions(seats)
    t0 = time.perf_counter()
    with _NUMBA_LOCK:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
        res = run_batch(cfg.rules, fns, cfg.seed, first, count, cfg.match_mode, check=check,
                        seat_names=list(cfg.seats), trace_hint=lambda g: _trace_hint(Path(run_dir), g))
    t1 = time.perf_counter()
    tables = rio.batch_tables(res, list(cfg.seats))
    n = res.n
    del res  # the tables do not use the engine's result arrays: free them before writing
    rio.write_shards(Path(run_dir), chunk, tables, config, first, count)
    t2 = time.perf_counter()
    return {"chunk": chunk, "hands": n, "play_seconds": t1 - t0, "write_seconds": t2 - t1}


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


def _read_manifest(run_dir: Path) -> dict:
    try:
        return rio.read_manifest(run_dir)
    except ValueError as exc:
        raise RunError(str(exc)) from None


def _check_existing(d: ManagedDir, cfg: RunConfig) -> dict | None:
    """The existing manifest, after checking it describes the same run (or None if new)."""
    run_dir = d.path
    old = d.existing(_read_manifest)
    if old is None:
        return None
    mine = cfg.identity()
    theirs = {k: old.get("config", {}).get(k) for k in mine}
    for key in ("rules", "seats", "seed", "mode", "chunk_hands"):
        if theirs[key] != mine[key]:
            what = {"rules": "a different rule set", "seats": "different seats", "seed": "a different seed",
                    "mode": "a different mode (hands vs matches)", "chunk_hands": "a different chunk size"}[key]
            if key == "rules":
                a, b = theirs[key]["options"], mine[key]["options"]
                diff = [k for k in b if a.get(k) != b[k]] if isinstance(a, dict) else []
                what += f" ({', '.join(diff)} differ)" if diff else ""
            raise RunError(f"{run_dir} holds a run with {what}; use a new --out directory "
                           f"(`sichuan summarize {run_dir}` shows the run's configuration)")
    old_n = int(old["config"]["n"])
    if cfg.n < old_n:
        unit = "matches" if cfg.match_mode else "hands"
        raise RunError(f"{run_dir} already holds {old_n} {unit}; --{unit} may only grow (it extends the run)")
    return old


def _valid_chunks(run_dir: Path, chunks) -> set[int]:
    """The chunks whose shards are complete, readable and of this run's hand ranges (a corrupt
    or foreign shard is played again)."""
    done = rio.complete_chunks(run_dir)
    valid = set()
    for c, first, count in chunks:
        if c in done:
            try:
                meta = rio.shard_meta(run_dir / "hands" / rio.shard_name(c))
                if meta["first"] == first and meta["count"] == count:
                    valid.add(c)
            except Exception:  # a corrupt shard is replayed
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
        executor = InlineExecutor() if n_workers == 1 else cf.ProcessPoolExecutor(
            n_workers, mp_context=multiprocessing.get_context("spawn"))
    config = cfg.to_json()
    pending: dict[cf.Future, tuple] = {}
    queue = list(todo)
    # one chunk queued behind each running one: a worker that finishes starts its next chunk at
    # once instead of waiting for this loop to hear of it and submit
    in_flight = n_workers if isinstance(executor, InlineExecutor) else 2 * n_workers
    try:
        while queue or pending:
            while queue and len(pending) < in_flight:
                c, first, count = queue.pop(0)
                fut = executor.submit(play_chunk, str(run_dir), config, c, first, count, threads, check)
                pending[fut] = (c, first, count)
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                c, first, count = pending.pop(fut)
                try:
                    fut.result()
                except (StrategyAnswerError, InvariantError) as exc:
                    raise RunError(str(exc)) from None
                on_chunk(count)
    except BaseException:
        for fut in pending:
            fut.cancel()
        raise
    finally:
        if own:
            executor.shutdown(wait=True, cancel_futures=True)


def run(run_dir: str | os.PathLike, cfg: RunConfig, workers: int | None = None, check: bool = False,
        executor: cf.Executor | None = None, progress: Callable[[int, int, float], None] | None = None,
        executor_kind: str = "local", scheduler: str | None = None) -> dict:
    """Play every missing chunk of the run into ``run_dir``; returns the final manifest.

    ``progress(hands_done, hands_total, seconds)`` is called after each chunk. The executor is
    ``executor`` if given; else ``executor_kind`` "local" (worker processes; inline for one
    worker or one chunk) or "dask" (the cluster at ``scheduler``, or a LocalCluster)."""
    run_dir = Path(run_dir).resolve()
    with ManagedDir(run_dir, "run directory", rio.MANIFEST, ".lock", RunError) as d:
        old = _check_existing(d, cfg)
        chunks = cfg.chunks()
        valid = _valid_chunks(run_dir, chunks)
        rio.remove_partial(run_dir, valid)
        todo = [x for x in chunks if x[0] not in valid]
        manifest = {
            "schema_version": rio.SCHEMA_VERSION,
            "package_version": __version__,
            "config": cfg.to_json(),
            "hands": cfg.total_hands,
            "matches": cfg.n if cfg.match_mode else None,
            "hands_per_match": cfg.rules.hands_per_match if cfg.match_mode else None,
            "chunks": len(chunks),
            "complete": not todo,
            "timings": d.timings(old),
        }
        d.write_manifest(manifest)
        done = [sum(count for c, _, count in chunks if c in valid) * cfg.hands_per_item]
        total = cfg.total_hands
        t0 = time.perf_counter()
        if progress:
            progress(done[0], total, 0.0)

        def on_chunk(count: int) -> None:
            done[0] += count * cfg.hands_per_item
            if progress:
                progress(done[0], total, time.perf_counter() - t0)

        if todo:
            own = executor is None
            if own and executor_kind == "dask":
                executor = DaskExecutor(scheduler, workers)
            _play_chunks(run_dir, cfg, todo, executor, own, workers, check, on_chunk)
        elapsed = time.perf_counter() - t0
        rio.remove_partial(run_dir, rio.complete_chunks(run_dir))  # temp files of retried tasks
        manifest["complete"] = True
        t = d.end_session(manifest["timings"], elapsed)
        played = sum(count for c, _, count in todo) * cfg.hands_per_item
        t["last_session_hands_per_second"] = round(played / elapsed, 1) if elapsed > 0 and played else None
        d.write_manifest(manifest)
        return manifest
