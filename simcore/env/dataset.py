"""Decision datasets (``sichuan dataset``): every decision of the recorded seats as Parquet rows,
for imitation and value learning.

The hands are those of ``sichuan simulate`` with the same rules, seats and seed: the recorded
seats are agent seats of ``Tables`` answered by their own seat spec (``Tables.builtin``: the
same answers as seated, hand for hand). A directory holds ``dataset.json`` and one
``part-<chunk>.parquet`` per chunk of ``chunk`` hands, written under a dot-name and renamed
when complete, so memory stays flat and an interrupted run resumes: the same command skips
complete chunks, a larger ``--hands`` extends, any other change is refused.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.contract.actions import N_ACTIONS, action_of
from simcore.contract.records import S_NET
from simcore.contract.view import CONTRACT_VERSION, QUESTION_NAMES, Q_EXCHANGE, V_TILE, VIEW_LEN
from simcore.engine import agents as AG
from simcore import engine as K
from simcore.runs.files import ManagedDir, now
from simcore.version import __version__

SCHEMA_VERSION = 2   # 2: the view column (a dataset of version 1 reads with it null)
MANIFEST = "dataset.json"
OBS_MAX = 32767   # observations are stored as int16: a hand's points and counts stay far below
COLUMNS = (
    ("hand", "int64", "global hand index (hand g of seed s is hand g of `sichuan simulate --seed s`)"),
    ("seat", "int8", "the recorded seat"),
    ("step", "int16", "the seat's decision number in the hand, from 0 (each exchange pick is one)"),
    ("question", "string (dict)", "exchange, void, turn, claim or rob"),
    ("obs", f"fixed_size_binary[{2 * AG.OBS_LEN}]", "the observation the envs give (README: Python agents; "
                                                    "`simcore.env.OBS_FIELDS`): its whole numbers as "
                                                    f"{AG.OBS_LEN} little-endian int16 (`simcore.env.dataset"
                                                    ".observations(df)` gives the float32 matrix)"),
    ("mask", f"fixed_size_binary[{N_ACTIONS}]", "the legal actions of the decision, a byte each, 1 legal "
                                               "(`simcore.env.dataset.masks(df)` gives the int8 matrix)"),
    ("action", "int16", "the action taken (`simcore.contract.actions`)"),
    ("net", "int32", "the seat's net for the hand"),
    ("candidates", "list<int32>, nullable", "a searching seat: the answers it judged (actions; at the exchange "
                                            "the three tiles as `a + 32*b + 1024*c`, a <= b <= c), on the "
                                            "decision's first row; null where it judged none"),
    ("candidate_values", "list<float32>, nullable", "each candidate's judged value: its mean net over the "
                                                    "rollout tables"),
    ("view", f"fixed_size_binary[{8 * VIEW_LEN}], nullable", "where candidates were judged: the seat's view as the "
                                                             f"engine posed the question ({VIEW_LEN} little-endian "
                                                             "int64, `simcore.contract.view`; `views(df)` gives the "
                                                             "matrix), so features of any later design can be "
                                                             "computed from it; null elsewhere"),
)


class DatasetError(ValueError):
    """A dataset command that cannot go on: one line that says why."""


def _schema() -> pa.Schema:
    return pa.schema([
        pa.field("hand", pa.int64(), nullable=False), pa.field("seat", pa.int8(), nullable=False),
        pa.field("step", pa.int16(), nullable=False),
        pa.field("question", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("obs", pa.binary(2 * AG.OBS_LEN), nullable=False),
        pa.field("mask", pa.binary(N_ACTIONS), nullable=False),
        pa.field("action", pa.int16(), nullable=False), pa.field("net", pa.int32(), nullable=False),
        pa.field("candidates", pa.list_(pa.int32())), pa.field("candidate_values", pa.list_(pa.float32())),
        pa.field("view", pa.binary(8 * VIEW_LEN)),
    ])


def _config(rules, seats, record, seed: int, chunk: int, options: K.RunOptions) -> dict:
    return {"rules": {"preset": rules.preset, **rules.options()}, "seats": [s.canonical for s in seats],
            "record": list(record), "seed": seed, "chunk": chunk, "draw_order": options.draw_order,
            "obs_len": AG.OBS_LEN, "n_actions": N_ACTIONS}


def _both(key: str, theirs, mine, most: int = 3) -> str:
    """What differs in a configuration entry, with both values (``X there, Y now``)."""
    if isinstance(theirs, dict) and isinstance(mine, dict):       # the rules: the options that differ
        diff = [k for k in mine if theirs.get(k) != mine[k]]
        shown = [f"{k} {theirs.get(k)} there, {mine[k]} now" for k in diff[:most]]
        return "; ".join(shown + ([f"and {len(diff) - most} more"] if len(diff) > most else []))
    if isinstance(theirs, list) and isinstance(mine, list) and len(theirs) == len(mine) and key == "seats":
        return "; ".join(f"seat {i}: {a} there, {b} now" for i, (a, b) in enumerate(zip(theirs, mine)) if a != b)
    return f"{theirs} there, {mine} now"


def _read_manifest(path: Path) -> dict:
    import json

    try:
        return json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path / MANIFEST} is unreadable ({exc}); choose a new directory") from None


def part_path(directory: Path, c: int) -> Path:
    return Path(directory) / f"part-{c:06d}.parquet"


def _complete(directory: Path, c: int, rows_hint: tuple[int, int]) -> bool:
    """Chunk c's file exists and its footer reads, with the chunk's hands in its metadata."""
    p = part_path(directory, c)
    if not p.exists():
        return False
    try:
        md = pq.read_metadata(p).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return False
    return md.get(b"hands") == f"{rows_hint[0]}-{rows_hint[1]}".encode()


def record(out, rules, seats, record_seats, hands: int, seed: int = 0, chunk: int = 1000, tables: int = 256,
           draw_order: str = "table", progress=None) -> dict:
    """Write the dataset of ``hands`` hands to ``out`` (see the module's docstring); returns the
    manifest. ``seats``: four ``SeatSpec``; ``record_seats``: the seats whose decisions are rows."""
    record_seats = tuple(sorted(set(int(s) for s in record_seats)))
    if not record_seats or any(not 0 <= s < 4 for s in record_seats):
        raise DatasetError(f"--record: seats among 0, 1, 2, 3, got {record_seats}")
    if hands < 1 or chunk < 1 or tables < 1:
        raise DatasetError("--hands, --chunk-hands and --tables must be positive")
    from strategies.models import changed_model_files
    from strategies.registry import check_rules, model_file_records, recorded_seat

    check_rules(seats, rules)   # before any directory: a seat's model of the other blood is refused
    options = K.RunOptions(draw_order)
    cfg = _config(rules, seats, record_seats, seed, chunk, options)
    with ManagedDir(out, "dataset directory", MANIFEST, ".dataset.lock", DatasetError) as d:
        old = d.existing(_read_manifest)
        if old is not None:
            theirs = dict(old.get("config", {}))
            if isinstance(theirs.get("seats"), list):
                theirs["seats"] = [recorded_seat(str(s)) for s in theirs["seats"]]
            diff = [k for k in cfg if theirs.get(k) != cfg[k]]
            if diff:
                both = "; ".join(_both(k, theirs.get(k), cfg[k]) for k in diff)
                names = {"rules": "rule set", "chunk": "chunk size", "draw_order": "draw order", "record": "record"}
                raise DatasetError(f"{out} holds a dataset with another {', '.join(names.get(k, k) for k in diff)} "
                                   f"({both}); choose a new "
                                   "directory (only a larger --hands extends one)")
            if hands < old["hands"]:
                raise DatasetError(f"{out} holds {old['hands']:,} hands; --hands may only grow")
            if old.get("schema_version", 1) != SCHEMA_VERSION:
                raise DatasetError(f"{out} holds a dataset of schema version {old.get('schema_version', 1)}, which "
                                   f"reads but does not extend (this version writes {SCHEMA_VERSION}); choose a new "
                                   "directory")
            if old.get("contract_version", 1) != CONTRACT_VERSION:   # its rows' views have another layout
                raise DatasetError(f"{out} holds a dataset of views at contract version {old.get('contract_version', 1)}, "
                                   f"which reads (sichuan learn upgrades them) but does not extend (this version "
                                   f"writes {CONTRACT_VERSION}); choose a new directory")
            changed = changed_model_files(old.get("model_files"))
            if changed:
                raise DatasetError(f"{out} cannot be resumed or extended: {changed}, so its rows would differ; "
                                   "choose a new directory")
            if old.get("observation_version", 1) != AG.OBS_VERSION:   # its rows' observations have another layout
                raise DatasetError(f"{out} holds a dataset of observations at version {old.get('observation_version', 1)}, "
                                   f"which reads but does not extend (this version writes {AG.OBS_VERSION}); "
                                   f"choose a new directory")
        timings = d.timings(old)
        manifest = {"schema_version": SCHEMA_VERSION, "version": __version__, "contract_version": CONTRACT_VERSION,
                    "observation_version": AG.OBS_VERSION, "config": cfg, "hands": hands,
                    "model_files": model_file_records(seats, rules),   # each model file a seat plays: its digest
                    "chunks": -(-hands // chunk), "complete": False, "timings": timings,
                    "columns": {n: {"type": t, "meaning": m} for n, t, m in COLUMNS}}
        d.write_manifest(manifest)
        t0 = time.perf_counter()
        done_rows = done_hands = 0
        todo = [c for c in range(manifest["chunks"])
                if not _complete(d.path, c, (c * chunk, min((c + 1) * chunk, hands) - 1))]
        total = sum(min((x + 1) * chunk, hands) - x * chunk for x in todo)
        if progress and todo:
            progress(0, total, 0.0)
        # a writer thread encodes and writes chunk c while the engine (which releases the GIL) plays c + 1
        with ThreadPoolExecutor(1) as writer:
            pending = None
            for c in todo:
                lo, hi = c * chunk, min((c + 1) * chunk, hands)
                rows = _play_chunk(rules, seats, record_seats, seed, lo, hi, min(tables, hi - lo), options)
                if pending is not None:
                    pending.result()
                pending = writer.submit(_write_part, d.path, c, rows, lo, hi)
                done_rows += rows.n
                done_hands += hi - lo
                if progress:
                    progress(done_hands, total, time.perf_counter() - t0)
            if pending is not None:
                pending.result()
        seconds = time.perf_counter() - t0
        d.end_session(timings, seconds)
        timings["last_session_rows"] = done_rows
        timings["last_session_decisions_per_second"] = round(done_rows / seconds, 1) if done_rows else None
        manifest.update(complete=True, timings=timings, updated=now())
        d.write_manifest(manifest)
        return manifest


def _write_part(directory: Path, c: int, rows: "_Rows", lo: int, hi: int) -> None:
    final = part_path(directory, c)
    tmp = directory / f".{final.name}.{os.getpid()}.tmp"
    table = rows.table().replace_schema_metadata({"hands": f"{lo}-{hi - 1}"})
    try:
        # no dictionaries but the question's: an observation or a mask is one binary value a row
        pq.write_table(table, tmp, compression="zstd", use_dictionary=["question"])
        os.replace(tmp, final)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DatasetError(f"cannot write chunk {c} of {directory}: {exc.strerror or exc}") from None


def _play_chunk(rules, seats, record_seats, seed: int, lo: int, hi: int, n_tables: int,
                options: K.RunOptions) -> "_Rows":
    """Hands lo..hi-1 on ``n_tables`` tables (table i plays lo + i, lo + i + n_tables, ...), every
    decision of the recorded seats answered by its own spec and kept as a row."""
    from simcore.env.tables import Tables

    specs = [s.canonical for s in seats]
    T = Tables(n_tables, rules, specs, agents=record_seats, draw_order=options.draw_order)
    T.reset(seed, first=lo, stride=n_tables, last=hi - 1)
    by_spec = {}
    for s in record_seats:
        by_spec.setdefault(specs[s], []).append(s)
    builtins = {sp: T.builtin_of(sp) for sp in by_spec}
    cols = {k: [] for k in ("hand", "seat", "step", "question", "obs", "mask", "action")}
    cand_rows, cand, cand_val, cand_view = [], [], [], []
    nets = np.zeros((hi - lo, 4), np.int64)
    n_rows = 0
    while True:
        live = np.flatnonzero(T.status != AG.OVER)
        if not live.size:
            break
        seat = T.E[live, AG.E_PEND + T.E[live, AG.E_POS]]
        acts = np.full(T.n, 0, np.int64)
        for sp, owners in by_spec.items():
            a = builtins[sp](T, owners)   # asked only where one of its own seats is
            pick = np.isin(seat, owners)
            acts[live[pick]] = a[live[pick]]
            if builtins[sp].searches:
                for j in np.flatnonzero(pick):
                    i = live[j]
                    if T.E[i, AG.E_NPICK] == 0:
                        got = _judged(builtins[sp].judged[i], T, i)
                        if got is not None:
                            cand_rows.append(n_rows + j)
                            cand.append(got[0])
                            cand_val.append(got[1])
                            cand_view.append(K.seat_view(T.ST[i], T.pending_seat(i)).tobytes())
        cols["hand"].append(K.hand_index(T.ST[live]).copy())
        cols["seat"].append(seat.astype(np.int8))
        cols["step"].append(T.E[live, AG.E_STEP + seat].astype(np.int16))
        cols["question"].append(T.E[live, AG.E_Q + T.E[live, AG.E_POS]].astype(np.int8))
        block = T.obs[live]
        if np.abs(block).max(initial=0) > OBS_MAX:
            raise DatasetError(f"an observation slot reached {np.abs(block).max():,.0f}, beyond the int16 the "
                               "dataset stores observations in")
        cols["obs"].append(block.astype(np.int16))
        cols["mask"].append(T.masks[live].copy())
        cols["action"].append(acts[live].astype(np.int16))
        n_rows += live.size
        T.step(acts)
        for i in np.flatnonzero(T.ended):   # a hand ended at table i (the engine's errors raise)
            nets[T.E[i, AG.E_ENDED] - lo] = T.seat[i, :, S_NET]
    return _Rows(cols, nets, lo, n_rows, cand_rows, cand, cand_val, cand_view)


def _judged(row: np.ndarray, T, i: int):
    """(candidate actions, mean nets) a searching builtin judged at table i's decision, or None."""
    from strategies import search

    w = row[1:]
    n, m = int(w[search.SW_N - search.SW_CAND]), int(w[search.SW_M - search.SW_CAND])
    if n <= 0 or m <= 0:
        return None
    answers = w[:n]
    totals = w[search.SW_TOTAL - search.SW_CAND:search.SW_TOTAL - search.SW_CAND + n]
    q = T.question(i)
    if q == Q_EXCHANGE:
        acts = []
        for x in answers:
            a, b, c = sorted((int(x) >> 5 * k) & 31 for k in range(3))
            acts.append(a + 32 * b + 1024 * c)
    else:
        tile = int(K.seat_view(T.ST[i], T.pending_seat(i))[V_TILE])
        acts = [int(action_of(np.int64(q), np.int64(x), np.int64(tile))) for x in answers]
    return acts, [float(t) / m for t in totals]


class _Rows:
    """A chunk's rows as played (per step, per table), made into its Arrow table by the writer."""

    def __init__(self, cols: dict, nets: np.ndarray, lo: int, n: int, cand_rows, cand, cand_val, cand_view):
        self.cols, self.nets, self.lo, self.n = cols, nets, lo, n
        self.cand_rows, self.cand, self.cand_val, self.cand_view = cand_rows, cand, cand_val, cand_view

    def table(self) -> pa.Table:
        return _arrow(self.cols, self.nets, self.lo, self.n, self.cand_rows, self.cand, self.cand_val,
                      self.cand_view)


def _arrow(cols: dict, nets: np.ndarray, lo: int, n_rows: int, cand_rows, cand, cand_val, cand_view) -> pa.Table:
    """Rows in (hand, seat, step) order; observations as int16 (every slot is a whole number)."""
    if not n_rows:
        return _schema().empty_table()
    small = {k: np.concatenate(cols[k]) for k in ("hand", "seat", "step", "question", "action")}
    order = np.lexsort((small["step"], small["seat"], small["hand"]))
    small = {k: v[order] for k, v in small.items()}
    obs = np.concatenate(cols["obs"])[order]       # int16 already (``_play_chunk``)
    masks = np.concatenate(cols["mask"])[order]
    hand, seat = small["hand"], small["seat"]
    net = nets[hand - lo, seat.astype(np.int64)].astype(np.int32)
    q = pa.DictionaryArray.from_arrays(pa.array(small["question"], pa.int8()), pa.array(list(QUESTION_NAMES)))
    if cand_rows:
        where = np.empty(n_rows, np.int64)
        where[order] = np.arange(n_rows)   # a row's place once sorted
        c_list, v_list, w_list = [None] * n_rows, [None] * n_rows, [None] * n_rows
        for r, a, v, w in zip(cand_rows, cand, cand_val, cand_view):
            c_list[where[r]], v_list[where[r]], w_list[where[r]] = a, v, w
        c_arr, v_arr = pa.array(c_list, pa.list_(pa.int32())), pa.array(v_list, pa.list_(pa.float32()))
        w_arr = pa.array(w_list, pa.binary(8 * VIEW_LEN))
    else:
        c_arr, v_arr = pa.nulls(n_rows, pa.list_(pa.int32())), pa.nulls(n_rows, pa.list_(pa.float32()))
        w_arr = pa.nulls(n_rows, pa.binary(8 * VIEW_LEN))
    return pa.table({"hand": pa.array(hand, pa.int64()), "seat": pa.array(seat, pa.int8()),
                     "step": pa.array(small["step"], pa.int16()), "question": q,
                     "obs": _binary(obs), "mask": _binary(masks),
                     "action": pa.array(small["action"], pa.int16()), "net": pa.array(net, pa.int32()),
                     "candidates": c_arr, "candidate_values": v_arr, "view": w_arr}, schema=_schema())


def _binary(rows: np.ndarray) -> pa.Array:
    """Each row of a 2-d array as one fixed-size binary value (one Parquet value a row, not one a slot)."""
    rows = np.ascontiguousarray(rows)
    width = rows.shape[1] * rows.itemsize
    return pa.Array.from_buffers(pa.binary(width), len(rows), [None, pa.py_buffer(rows.reshape(-1).view(np.uint8))])


def _matrix(column, dtype, width: int) -> np.ndarray:
    values = column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column)
    if not len(values):
        return np.zeros((0, width), dtype)
    code = {np.int16: "<i2", np.int8: "i1", np.int64: "<i8"}[dtype]
    return np.frombuffer(b"".join(values), dtype=code).reshape(-1, width)


def observations(df) -> np.ndarray:
    """A loaded dataset's ``obs`` column as one float32 matrix, as the envs give them: rows x
    OBS_LEN, or the width its rows were written at (a dataset of an older observation version,
    dataset.json's ``observation_version``: each version appends fields, so its slots are the
    first ones of today's)."""
    values = df["obs"].to_numpy()
    width = len(values[0]) // 2 if len(values) else AG.OBS_LEN   # int16 rows
    return _matrix(df["obs"], np.int16, width).astype(np.float32)


def masks(df) -> np.ndarray:
    """A loaded dataset's ``mask`` column as one int8 matrix (rows x N_ACTIONS)."""
    return _matrix(df["mask"], np.int8, N_ACTIONS).copy()


def views(df) -> np.ndarray:
    """The ``view`` column's non-null rows as one int64 matrix (rows x VIEW_LEN), in the frame's
    order (a dataset written before the column has none)."""
    if "view" not in df:
        return np.zeros((0, VIEW_LEN), np.int64)
    return _matrix(df["view"].dropna(), np.int64, VIEW_LEN).copy()


def load(directory, columns=None):
    """The dataset's rows as one pandas DataFrame (obs and mask as arrays per row); a dataset
    larger than memory is read part by part with ``pyarrow.dataset``."""
    directory = Path(directory)
    if not (directory / MANIFEST).exists():
        raise DatasetError(f"{directory} holds no {MANIFEST}: not a dataset directory")
    parts = sorted(directory.glob("part-*.parquet"))
    if not parts:
        raise DatasetError(f"{directory} holds no complete chunk yet")
    return pq.ParquetDataset(parts).read(columns=columns).to_pandas()
