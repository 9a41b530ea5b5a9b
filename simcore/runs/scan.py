"""Reading a run shard by shard: the complete chunks only, the columns asked for, a few chunks
in memory at a time (ARCHITECTURE.md: Run directories).

Every analysis the project ships goes through :func:`scan`, so its memory is a few shards'
worth whatever the run's size. A chunk's four shards hold the same hands, so a function given
one chunk sees every seat, win and payment of its hands.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import shlex
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from simcore.runs import shards as rio


class CorruptShardError(ValueError):
    """A shard that cannot be read; the message names the file and how to repair the run."""


def resume_command(run_dir: Path, manifest: dict) -> str:
    """The ``sichuan simulate`` command that resumes the run in ``run_dir`` (it plays the
    missing and corrupt chunks again)."""
    from simcore.contract.rules import preset
    from simcore.runs import DEFAULT_CHUNK_HANDS

    cfg = manifest.get("config", {})
    parts = ["sichuan simulate"]
    rules = cfg.get("rules", {})
    name = rules.get("preset", "battle")
    if name != "battle":
        parts.append(f"--rules {name}")
    try:
        base = preset(name).options()
        for key, value in rules.get("options", {}).items():
            if base.get(key) != value:
                parts.append(f"--set {key}={str(value).lower() if isinstance(value, bool) else value}")
    except ValueError:
        pass
    seats = cfg.get("seats") or []
    if seats:
        parts.append(f"--seats {shlex.quote(seats[0] if len(set(seats)) == 1 else ','.join(seats))}")
    parts.append(f"--{'matches' if cfg.get('mode') == 'matches' else 'hands'} {cfg.get('n')}")
    parts.append(f"--seed {cfg.get('seed', 0)}")
    if cfg.get("draw_order", "table") != "table":
        parts.append(f"--draw-order {cfg['draw_order']}")
    if cfg.get("chunk_hands", DEFAULT_CHUNK_HANDS) != DEFAULT_CHUNK_HANDS:
        parts.append(f"--chunk-hands {cfg['chunk_hands']}")
    parts.append(f"--out {shlex.quote(str(run_dir))}")
    return " ".join(parts)


def chunks(run_dir) -> list[int]:
    """The run's complete chunks (all four shards present), in order."""
    return sorted(rio.complete_chunks(Path(run_dir)))


def shard_paths(run_dir, table: str) -> list[Path]:
    """The shards of ``table`` that belong to complete chunks, in chunk order."""
    run_dir = Path(run_dir)
    return [run_dir / table / rio.shard_name(c) for c in chunks(run_dir)]


def _corrupt(path: Path, why: str, manifest: dict | None) -> str:
    hint = ""
    if manifest is not None:
        hint = f"; move it away and resume the run to play its chunk again: {resume_command(path.parent.parent, manifest)}"
    return f"corrupt shard {path}: {why}{hint}"


def read_shard(path: Path, columns=None, manifest: dict | None = None) -> pa.Table:
    """One shard's columns; a shard that cannot be read is a :class:`CorruptShardError`. A
    shard written before a column was added (``shards.LATER_COLUMNS``) gives it as the run
    played it: zeros, the seats' parts derived from ``strategy``, or nulls (``shards.added_column``)."""
    name = Path(path).parent.name
    later = rio.LATER_COLUMNS.get(name, ())
    try:
        try:
            table = pq.read_table(path, columns=columns, use_threads=False)
        except (pa.ArrowInvalid, KeyError):
            if columns is None or not any(c in later for c in columns):
                raise
            present = pq.read_schema(path).names
            read = [c for c in columns if c in present]
            if any(c in rio.DERIVED_COLUMNS.get(name, ()) for c in columns) and "strategy" not in read:
                read.append("strategy")
            table = pq.read_table(path, columns=read, use_threads=False)
        missing = [c for c in (later if columns is None else columns) if c in later and c not in table.column_names]
        for c in missing:
            table = table.append_column(c, rio.added_column(name, c, table))
        if missing:
            order = columns if columns is not None else [c for c, _, _ in rio.COLUMNS[name]]
            table = table.select([c for c in order if c in table.column_names])
        return table
    except (OSError, pa.ArrowException, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CorruptShardError(_corrupt(path, first, manifest)) from None


def check_footers(run_dir, manifest: dict | None = None, tables=rio.TABLES) -> dict[int, dict]:
    """Every complete chunk's shards open (their footers read): a truncated or garbled shard of
    any table is a :class:`CorruptShardError` naming it, even in a table the caller reads no
    column of. Returns each chunk's record from its first table's footer (``io.write_shards``).
    Costs one footer read per shard."""
    run_dir = Path(run_dir)
    manifest = manifest if manifest is not None else rio.read_manifest(run_dir)
    records = {}
    for c in chunks(run_dir):
        for name in tables:
            path = run_dir / name / rio.shard_name(c)
            try:
                meta, _ = rio.shard_footer(path)
            except Exception as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise CorruptShardError(_corrupt(path, first, manifest)) from None
            records.setdefault(c, meta)
    return records


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def scan(run_dir, columns: dict[str, list[str] | None], fn: Callable[[int, dict], object],
         threads: int | None = None, manifest: dict | None = None, only=None) -> Iterator:
    """``fn(chunk, {table: pa.Table})`` for every complete chunk (or those of them in ``only``),
    with the given columns of each table; yields the results in chunk order. Chunks are read and
    processed on ``threads`` threads (pyarrow and numpy release the GIL), at most two per thread
    in memory at once."""
    run_dir = Path(run_dir)
    return scan_runs([run_dir], columns, lambda c, tables: fn(c, tables[run_dir]), threads,
                     {run_dir: manifest} if manifest is not None else None, only)


def scan_runs(run_dirs, columns: dict[str, list[str] | None], fn: Callable[[int, dict], object],
              threads: int | None = None, manifests: dict | None = None, only=None) -> Iterator:
    """As :func:`scan`, over several runs of the same hands and chunks together (an experiment's
    runs): ``fn(chunk, {run_dir: {table: pa.Table}})`` for every chunk complete in all of them."""
    run_dirs = [Path(d) for d in dict.fromkeys(run_dirs)]
    manifests = {d: (manifests or {}).get(d) or rio.read_manifest(d) for d in run_dirs}
    todo = sorted(set.intersection(*(set(chunks(d)) for d in run_dirs))) if run_dirs else []
    if only is not None:
        todo = [c for c in todo if c in set(only)]

    def one(c: int):
        tables = {d: {name: read_shard(d / name / rio.shard_name(c), cols, manifests[d])
                      for name, cols in columns.items()} for d in run_dirs}
        return fn(c, tables)

    threads = threads or default_threads()
    if threads == 1 or len(todo) <= 1:
        for c in todo:
            yield one(c)
        return
    with cf.ThreadPoolExecutor(threads, thread_name_prefix="sichuan-scan") as pool:
        window = 2 * threads
        futures = [pool.submit(one, c) for c in todo[:window]]
        nxt = window
        try:
            while futures:
                fut = futures.pop(0)
                if nxt < len(todo):
                    futures.append(pool.submit(one, todo[nxt]))
                    nxt += 1
                yield fut.result()
        finally:
            for f in futures:
                f.cancel()
