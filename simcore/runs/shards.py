"""Run directories: Arrow tables from a batch, atomic Parquet shards, the run manifest.

A run directory holds ``run.json`` (the manifest) and four Parquet datasets, one shard per
chunk: ``hands/``, ``seats/``, ``payments/``, ``wins/`` (ARCHITECTURE.md: Run directories). A shard is written
under a name starting with ``.`` (dataset readers skip those) and renamed when complete; the
run's configuration goes into every file's key-value metadata. ``COLUMNS`` documents every
column; the README's table is generated from it.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path

import numba as nb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simcore.contract import records as rec
from simcore.runs.batch import BatchResult
from simcore.contract.evaluate import N_PATTERNS, PATTERNS
from simcore.contract.tiles import N_KINDS, NO_VOID, SUITS, tile_text
from strategies.names import POLICY_COLUMNS, learn_recorded, seat_columns

SCHEMA_VERSION = 3
# version 1: before the tfmj options (without the zero-filled ADDED_COLUMNS); version 2: before
# the seats' policy columns and luck (DERIVED_COLUMNS, NULL_COLUMNS)
READABLE_VERSIONS = (1, 2, 3)
# Columns a schema version added, by table: a shard written before them lacks them, and every
# reader gives them as zeros there (``scan.read_shard``), which is what those runs played ...
ADDED_COLUMNS = {"seats": ("net_kong_transfer",), "wins": ("kong_discard", "self_draw")}
# ... the seat's parts, derived from its ``strategy`` (``strategies.names.seat_columns``) ...
DERIVED_COLUMNS = {"seats": POLICY_COLUMNS}
# ... and luck, null (those runs measured none).
NULL_COLUMNS = {"seats": ("luck",)}
TABLES = ("hands", "seats", "payments", "wins")
MANIFEST = "run.json"
SHARD_RE = re.compile(r"^part-(\d{6})\.parquet$")
META_KEY = b"sichuan_run"

TILE_TEXTS = [tile_text(t) for t in range(N_KINDS)]


def _bits(flags: np.ndarray) -> pa.Buffer:
    """A bool array as an Arrow bitmap (LSB first)."""
    return pa.py_buffer(np.packbits(flags, bitorder="little"))


def _array(values: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """A contiguous numpy column as an Arrow array over the same memory (bools packed), null
    where ``null``. Building the buffers here is several times faster than ``pa.array(values,
    mask=...)``."""
    validity, nulls = None, 0
    if null is not None:
        nulls = int(np.count_nonzero(null))
        validity = _bits(~null) if nulls else None
    data = _bits(values) if values.dtype == np.bool_ else pa.py_buffer(np.ascontiguousarray(values))
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [validity, data], null_count=nulls)


def _dict(codes: np.ndarray, labels, null: np.ndarray | None = None) -> pa.DictionaryArray:
    """int8 codes -> a dictionary-encoded string array over ``labels``; null where ``null``
    (by default where a code is negative)."""
    if null is None:
        null = codes < 0
    if null.any():
        codes = np.where(null, np.int8(0), codes)
    return pa.DictionaryArray.from_arrays(_array(codes, null), pa.array(list(labels), pa.string()))


# The kernels below read the engine's (rows, ..., fields) int32 outputs once, row by row, and
# write each field into a contiguous column of its final type (rows of arrays the caller
# allocates): no transposed copies, no casting copies, one pass over the engine's memory. Which
# fields go to which column is a tuple of field indices per type (int8, int16, int32).


@nb.njit(cache=True, nogil=True, inline="always")
def _put(src, r, j, o8, f8, o16, f16, o32, f32):
    """Row r of ``src`` (rows x fields) into column j of the outputs."""
    for k in range(len(f8) - 1):
        o8[k, j] = src[r, f8[k]]
    for k in range(len(f16) - 1):
        o16[k, j] = src[r, f16[k]]
    for k in range(len(f32) - 1):
        o32[k, j] = src[r, f32[k]]


@nb.njit(cache=True, nogil=True)
def _gather_rows(rows, o8, f8, o16, f16, o32, f32):
    """Row i's fields into column i of the outputs."""
    for i in range(rows.shape[0]):
        _put(rows, i, i, o8, f8, o16, f16, o32, f32)


@nb.njit(cache=True, nogil=True)
def _gather_slots(slots, cap, counts, hands, hand, o8, f8, o16, f16, o32, f32):
    """The used slots of each row (``counts``; ``slots`` holds ``cap`` rows of slots per row), in
    row then slot order, into consecutive columns, with the row's global hand in ``hand``."""
    j = 0
    for i in range(counts.shape[0]):
        for w in range(min(counts[i], cap)):
            hand[j] = hands[i]
            _put(slots, i * cap + w, j, o8, f8, o16, f16, o32, f32)
            j += 1


@nb.njit(cache=True, nogil=True)
def _n_used(counts, cap):
    total = 0
    for i in range(counts.shape[0]):
        total += min(counts[i], cap)
    return total


def _outputs(n: int, f8: tuple, f16: tuple, f32: tuple):
    """The columns to fill, each type's beside its field indices: a tuple, so numba compiles a copy
    per table whose loops over fields it unrolls, ended by a -1 that is not a field (an empty
    tuple would not compile)."""
    return (np.empty((len(f8), n), np.int8), _fields(f8), np.empty((len(f16), n), np.int16), _fields(f16),
            np.empty((len(f32), n), np.int32), _fields(f32))


def _fields(fields: tuple) -> tuple:
    return tuple(np.int64(f) for f in fields) + (np.int64(-1),)


def _columns(rows: np.ndarray, f8: tuple, f16: tuple = (), f32: tuple = ()):
    """Fields ``f8``, ``f16``, ``f32`` of each row of ``rows`` as (int8, int16, int32) columns."""
    out = _outputs(rows.shape[0], f8, f16, f32)
    _gather_rows(np.ascontiguousarray(rows), *out)
    return out[0], out[2], out[4]


def _slot_columns(slots: np.ndarray, counts: np.ndarray, hands: np.ndarray, f8: tuple, f16: tuple = (),
                  f32: tuple = ()):
    """(hand, int8, int16, int32 columns) of the used slots of each row."""
    counts = np.ascontiguousarray(counts)
    total = _n_used(counts, slots.shape[1])
    hand, out = np.empty(total, np.int64), _outputs(total, f8, f16, f32)
    n, cap, width = slots.shape
    _gather_slots(np.ascontiguousarray(slots).reshape(n * cap, width), cap, counts, hands, hand, *out)
    return hand, out[0], out[2], out[4]


_HAND_FIELDS = ((rec.H_DEALER, rec.H_EXCHANGE_DIR, rec.H_END_REASON, rec.H_TILES_LEFT, rec.H_WINNERS,
                 rec.H_NEXT_DEALER), (rec.H_TURNS,))
_SEAT_NETS = tuple(rec.S_NET_REASON + r for r in range(rec.N_REASONS)) + (rec.S_SCORE_BEFORE,)
_SEAT_FIELDS = ((rec.S_VOID, rec.S_WIN_KIND, rec.S_PIG, rec.S_READY, rec.S_KONGS),
                (rec.S_WINS, rec.S_WIN_ORDER, rec.S_FAN), (rec.S_NET, rec.S_BASE) + _SEAT_NETS)
_PAYMENT_FIELDS = ((rec.P_PAYER, rec.P_PAYEE, rec.P_REASON), (), (rec.P_AMOUNT,))
_WIN_FIELDS = ((rec.W_SEAT, rec.W_KIND, rec.W_TILE, rec.W_FROM) + tuple(rec.W_PATTERNS + p for p in range(N_PATTERNS)),
               (rec.W_ORDER, rec.W_TURN, rec.W_FAN), (rec.W_BASE, rec.W_PAID))


def _match_columns(hand: np.ndarray, res: BatchResult) -> tuple[pa.Array, pa.Array]:
    """The match and hand_in_match columns for rows with global hand ``hand``: null unless match play."""
    if not res.match_mode:
        return pa.nulls(len(hand), pa.int32()), pa.nulls(len(hand), pa.int16())
    return (_array((hand // res.hands_per_match).astype(np.int32)),
            _array((hand % res.hands_per_match).astype(np.int16)))


# what each payment reason's net column counts
NET_DOCS = {"win": "win payments (all wins)", "kong": "kong payments", "flower_pig": "flower-pig penalties",
            "not_ready": "the ready check", "kong_refund": "kong refunds",
            "kong_discard_liability": "kong_discard_liability payments",
            "kong_transfer": "call transfer: kong income handed to the winners on a kong seat's discard"}
assert tuple(NET_DOCS) == rec.REASONS

COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "hands": [
        ("hand", "int64", "global hand index, unique within the run"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match, from 0 (null for independent hands)"),
        ("dealer", "int8", "seat that dealt the hand"),
        ("exchange_direction", "int8", "+1, -1 or +2 (receiver = seat + direction); 0 without an exchange"),
        ("end_reason", "string (dict)", "three_won or wall_exhausted"),
        ("tiles_left", "int8", "wall tiles left at the end"),
        ("winners", "int8", "seats that won at least once"),
        ("turns", "int16", "draws in the hand, kong replacements included"),
        ("next_dealer", "int8", "who deals next by RULES.md: One hand, step by step, step 8 (first winner, discarder of a multi-win, or the dealer)"),
    ],
    "seats": [
        ("hand", "int64", "global hand index"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match (null for independent hands)"),
        ("seat", "int8", "seat 0-3"),
        ("strategy", "string (dict)", "the seat's canonical strategy spec, e.g. efficient+exchange=shortest+void=fewest"),
        ("play", "string (dict)", "the seat's play with its non-default parameters, e.g. expert or expert[flush_weight=3.0]"),
        ("exchange_policy", "string (dict)", "the seat's exchange policy with its non-default parameters, e.g. expert"),
        ("void_policy", "string (dict)", "the seat's void policy with its non-default parameters, e.g. fewest"),
        ("dealer", "bool", "the seat dealt this hand"),
        ("void_suit", "string (dict)", "m, p or s"),
        ("net", "int32", "the seat's net points this hand (sum of its payments)"),
        ("won", "bool", "the seat won at least once"),
        ("wins", "int16", "the seat's wins this hand (several in blood flow)"),
        ("win_order", "int16, null", "order number of the seat's first win among the hand's wins (1 = first)"),
        ("win_kind", "string (dict), null", "first win: self_draw, discard, kong_replacement or robbing_kong"),
        ("fan", "int16, null", "first win's fan before the cap"),
        ("base", "int32, null", "first win's base value 2**min(fan, fan_cap)"),
        ("flower_pig", "bool, null", "held a void-suit tile at the exhausted wall (null: not checked)"),
        ("ready", "bool, null", "ready at the exhausted wall (null: not checked, i.e. won or hand ended three_won)"),
        ("kongs", "int8", "kongs the seat declared (robbed ones excluded)"),
    ] + [(col, "int32", f"net from {NET_DOCS[r]}") for r, col in zip(rec.REASONS, rec.NET_COLUMNS)] + [
        ("score_before", "int32", "the seat's score before the hand (match play; 0 for independent hands)"),
        ("luck", "float64, null", "the seat's luck this hand, what the luck-corrected estimate subtracts from net "
                                  "(null: luck not measured)"),
    ],
    "payments": [
        ("hand", "int64", "global hand index"),
        ("payer", "int8", "seat that pays"),
        ("payee", "int8", "seat that receives"),
        ("amount", "int32", "points, > 0"),
        ("reason", "string (dict)", ", ".join(rec.REASONS[:-1]) + " or " + rec.REASONS[-1]),
    ],
    "wins": [
        ("hand", "int64", "global hand index"),
        ("match", "int32, null", "match index (null for independent hands)"),
        ("hand_in_match", "int16, null", "hand's position in its match (null for independent hands)"),
        ("seat", "int8", "the winner"),
        ("order", "int16", "1 for the hand's first win, counting every win; winners on one tile in turn order from the discarder"),
        ("turn", "int16", "draws in the hand so far, replacements included (0: the dealer's initial tiles)"),
        ("win_kind", "string (dict)", "self_draw, discard, kong_replacement or robbing_kong"),
        ("tile", "string (dict)", "the winning tile, e.g. 5m (for a win on the dealer's initial tiles: the tile set aside)"),
        ("from_seat", "int8, null", "the discarder or the robbed kong's seat (null for self-draws)"),
        ("fan", "int16", "fan before the cap (fan_cap for a limit hand)"),
        ("base", "int32", "2**min(fan, fan_cap)"),
        ("paid", "int32", "total received for this win"),
    ] + [(p, "int8", f"fan of the {p} pattern (0 if absent{'; one per root' if p == 'root' else ''})") for p in PATTERNS],
}


NULLABLE = {t: {name for name, typ, _ in cols if "null" in typ} for t, cols in COLUMNS.items()}
assert all(c in [name for name, _, _ in COLUMNS[t]] for t, cs in ADDED_COLUMNS.items() for c in cs)


LATER_COLUMNS = {t: ADDED_COLUMNS.get(t, ()) + DERIVED_COLUMNS.get(t, ()) + NULL_COLUMNS.get(t, ()) for t in TABLES}


def added_column(table: str, column: str, shard: pa.Table) -> pa.Array:
    """A column of ``LATER_COLUMNS`` for a shard written before it (``shard``, read with the
    ``strategy`` column for a derived one): zeros of its type, the seats' parts or nulls."""
    typ = next(t for name, t, _ in COLUMNS[table] if name == column).split(",")[0]
    n = shard.num_rows
    if column in NULL_COLUMNS.get(table, ()):
        return pa.nulls(n, pa.from_numpy_dtype(np.dtype(typ)))
    if column in DERIVED_COLUMNS.get(table, ()):
        strategy = shard.column("strategy").combine_chunks()
        if not pa.types.is_dictionary(strategy.type):
            strategy = strategy.dictionary_encode()
        labels = strategy.dictionary.to_pylist()
        parts = seat_columns(labels)
        values = [parts[x][DERIVED_COLUMNS[table].index(column)] for x in labels]
        uniq = list(dict.fromkeys(values))
        lut = np.array([uniq.index(v) for v in values] + [0], np.int8)
        return _dict(lut[strategy.indices.to_numpy(zero_copy_only=False)], uniq)
    return pa.array(np.zeros(n, typ))


def _table(name: str, columns: dict) -> pa.Table:
    """An Arrow table whose fields are non-nullable except the columns COLUMNS documents as
    nullable: Parquet then stores the others as required, with no definition levels to encode
    or decode (a sixth of a shard's writing time)."""
    fields = [pa.field(k, v.type, nullable=k in NULLABLE[name]) for k, v in columns.items()]
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


def _seat_label(n: int, labels: list[str]) -> pa.DictionaryArray:
    """A seats column that holds one label per seat, the same every hand."""
    uniq = list(dict.fromkeys(labels))
    return _dict(np.tile(np.array([uniq.index(x) for x in labels], np.int8), n), uniq)


def _luck(res: BatchResult, n: int) -> pa.Array:
    """The seats' luck (hand then seat), null where the batch measured none."""
    if not res.luck_measured:
        return pa.nulls(4 * n, pa.float64())
    return _array(np.ascontiguousarray(res.luck, np.float64).reshape(4 * n))


def batch_tables(res: BatchResult, strategies: list[str]) -> dict[str, pa.Table]:
    """The four Arrow tables of one batch. The kernels above give each field as a contiguous
    column of its final type; Arrow takes those columns without copying."""
    n = res.n
    hands = np.ascontiguousarray(res.hands, np.int64)
    hand_out = np.ascontiguousarray(res.hand)

    h8, (turns,), _ = _columns(hand_out, *_HAND_FIELDS)
    dealer, exdir, end_reason, tiles_left, winners, next_dealer = h8
    match, him = _match_columns(hands, res)
    t_hands = _table("hands", {
        "hand": _array(hands),
        "match": match,
        "hand_in_match": him,
        "dealer": _array(dealer),
        "exchange_direction": _array(exdir),
        "end_reason": _dict(end_reason, rec.END_REASONS),
        "tiles_left": _array(tiles_left),
        "winners": _array(winners),
        "turns": _array(turns),
        "next_dealer": _array(next_dealer),
    })

    s8, s16, s32 = _columns(res.seat.reshape(4 * n, res.seat.shape[2]), *_SEAT_FIELDS)
    (void, kind, pig, ready, kongs), (wins, first, fan), (net, base, *nets) = s8, s16, s32
    no_win = first < 0
    parts = seat_columns(strategies[:4])
    seat_hand = np.repeat(hands, 4)
    match, him = _match_columns(seat_hand, res)
    t_seats = _table("seats", {
        "hand": _array(seat_hand),
        "match": match,
        "hand_in_match": him,
        "seat": _array(np.tile(np.arange(4, dtype=np.int8), n)),
        "strategy": _seat_label(n, list(strategies[:4])),
        **{col: _seat_label(n, [parts[s][i] for s in strategies[:4]]) for i, col in enumerate(POLICY_COLUMNS)},
        "dealer": _array((dealer[:, None] == np.arange(4, dtype=np.int8)).ravel()),
        "void_suit": _dict(void, SUITS, void == NO_VOID),
        "net": _array(net),
        "won": _array(wins > 0),
        "wins": _array(wins),
        "win_order": _array(first, no_win),
        "win_kind": _dict(kind, rec.WIN_KINDS, no_win | (kind < 0)),
        "fan": _array(fan, no_win),
        "base": _array(base, no_win),
        "flower_pig": _array(pig == 1, pig < 0),
        "ready": _array(ready == 1, ready < 0),
        "kongs": _array(kongs),
        **{name: _array(col) for name, col in zip(rec.NET_COLUMNS + ("score_before",), nets)},
        "luck": _luck(res, n),
    })

    pay_hand, p8, _, (amount,) = _slot_columns(res.pay, hand_out[:, rec.H_N_PAYMENTS], hands, *_PAYMENT_FIELDS)
    payer, payee, reason = p8
    t_pay = _table("payments", {
        "hand": _array(pay_hand),
        "payer": _array(payer),
        "payee": _array(payee),
        "amount": _array(amount),
        "reason": _dict(reason, rec.REASONS),
    })

    win_hand, w8, w16, w32 = _slot_columns(res.win, hand_out[:, rec.H_N_WINS], hands, *_WIN_FIELDS)
    (order, turn, fan), (base, paid) = w16, w32
    match, him = _match_columns(win_hand, res)
    seat, kind, tile, frm = w8[:4]
    cols = {
        "hand": _array(win_hand),
        "match": match,
        "hand_in_match": him,
        "seat": _array(seat),
        "order": _array(order),
        "turn": _array(turn),
        "win_kind": _dict(kind, rec.WIN_KINDS),
        "tile": _dict(tile, TILE_TEXTS),
        "from_seat": _array(frm, frm < 0),
        "fan": _array(fan),
        "base": _array(base),
        "paid": _array(paid),
    }
    for i, name in enumerate(PATTERNS):
        cols[name] = _array(w8[4 + i])
    t_wins = _table("wins", cols)
    return {"hands": t_hands, "seats": t_seats, "payments": t_pay, "wins": t_wins}


def shard_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


# Rows per data page: pyarrow caps pages at 20,000 rows by default; uncapped, a column's pages
# are cut by size alone (1 MiB), which writes fewer pages, faster and a little smaller. A
# pyarrow without the option writes its default pages.
_PAGE_ROWS = ({"max_rows_per_page": 1 << 30}
              if "max_rows_per_page" in inspect.signature(pq.ParquetWriter.__init__).parameters else {})


def _write_options(table: pa.Table) -> dict:
    """Parquet options for a shard: zstd; dictionary encoding for the categories only;
    statistics only on ``hand`` (readers filter on it). The sorted ``hand`` column is
    delta-encoded (it costs almost nothing); every other integer column is byte-stream-split
    (its bytes grouped by position, so zstd sees the high bytes' zeros in runs): against delta
    encoding it writes 5% faster, reads faster and is 5% smaller, and it needs no look at the
    data first. The encodings change how a shard is stored, never what it reads back as."""
    cats = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    encoding = {f.name: "DELTA_BINARY_PACKED" if f.name == "hand" else "BYTE_STREAM_SPLIT"
                for f in table.schema if pa.types.is_integer(f.type)}
    return dict(compression="zstd", use_dictionary=cats, column_encoding=encoding, write_statistics=["hand"],
                **_PAGE_ROWS)


def keep_freed_memory() -> None:
    """Ask glibc's malloc to keep freed memory for reuse instead of returning it to the system
    (Linux; elsewhere nothing happens). A chunk's tables allocate the same tens of megabytes
    every time, and memory fresh from the system costs a page fault per 4 KB: half of building a
    chunk's tables. Called once by the processes that play and write runs."""
    global _KEPT
    if _KEPT:
        return
    _KEPT = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        libc.mallopt(m_mmap_threshold, 1 << 30)
        libc.mallopt(m_trim_threshold, 1 << 31)
    except (OSError, AttributeError):
        pass


_KEPT = False


class ShardWriteError(OSError):
    """A chunk's shards could not be written (a full disk, say): its number and the cause's
    errno and message. Nothing of the chunk is left visible."""

    def __init__(self, chunk: int, errno_: int | None, strerror: str):
        super().__init__(errno_, strerror)
        self.chunk = chunk

    def __reduce__(self):  # crosses process boundaries (worker processes, Dask)
        return (ShardWriteError, (self.chunk, self.errno, self.strerror))


def write_shards(run_dir: Path, chunk: int, tables: dict[str, pa.Table], config: dict, first: int, count: int,
                 summary: dict | None = None) -> None:
    """Write a chunk's four shards, each under a dot-name first and renamed when all four are
    complete; each footer records the run, chunk and hand range, and the hands shard's also the
    chunk's ``summary`` tallies (``analysis.batch_summary``). On an error the dot-files are
    removed and :class:`ShardWriteError` raised; a chunk only part of whose shards were renamed
    is incomplete (readers skip it, a resumed run plays it again)."""
    record = {"run": config, "chunk": chunk, "first": first, "count": count}
    tmp_paths = []
    try:
        for name in TABLES:
            table = tables[name]
            meta = json.dumps({**record, "summary": summary} if name == TABLES[0] and summary else record).encode()
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: meta})
            d = run_dir / name
            d.mkdir(parents=True, exist_ok=True)
            tmp = d / f".{shard_name(chunk)}.{os.getpid()}.tmp"
            tmp_paths.append((tmp, d / shard_name(chunk)))
            pq.write_table(table, tmp, **_write_options(table))
        for tmp, final in tmp_paths:
            os.replace(tmp, final)
    except OSError as exc:
        for tmp, _ in tmp_paths:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        detail = exc.strerror or str(exc).split("Detail:")[-1].strip() or type(exc).__name__
        raise ShardWriteError(chunk, exc.errno, detail) from None


def shard_footer(path: Path) -> tuple[dict, int]:
    """A shard's own record of its run and hand range, and its row count, from its footer alone
    (raises on a corrupt or truncated file)."""
    f = pq.ParquetFile(path)
    try:
        return json.loads((f.schema_arrow.metadata or {})[META_KEY]), f.metadata.num_rows
    finally:
        f.close()


def shard_meta(path: Path) -> dict:
    """A shard's own record of its run and hand range (raises on a corrupt file)."""
    md = pq.read_schema(path).metadata or {}
    return json.loads(md[META_KEY])


def complete_chunks(run_dir: Path) -> set[int]:
    """Chunks whose shards exist in every table."""
    sets = []
    for name in TABLES:
        d = run_dir / name
        found = set()
        if d.is_dir():
            for f in os.listdir(d):
                m = SHARD_RE.match(f)
                if m:
                    found.add(int(m.group(1)))
        sets.append(found)
    return set.intersection(*sets) if sets else set()


def remove_partial(run_dir: Path, keep: set[int]) -> None:
    """Delete leftovers of interrupted writes: dot-files and shards of incomplete chunks."""
    for name in TABLES:
        d = run_dir / name
        if not d.is_dir():
            continue
        for f in os.listdir(d):
            m = SHARD_RE.match(f)
            if f.startswith(".") and f.endswith(".tmp"):
                (d / f).unlink(missing_ok=True)
            elif m and int(m.group(1)) not in keep:
                (d / f).unlink(missing_ok=True)


def read_manifest(run_dir: Path) -> dict:
    path = Path(run_dir) / MANIFEST
    if not Path(run_dir).is_dir():
        raise ValueError(f"{run_dir} does not exist or is not a directory")
    if not path.is_file():
        raise ValueError(f"{run_dir} is not a run directory (no {MANIFEST}); `sichuan simulate --out DIR` makes one")
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is unreadable or not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("schema_version") not in READABLE_VERSIONS:
        raise ValueError(f"{path} is not a run manifest of schema version "
                         f"{' or '.join(str(v) for v in READABLE_VERSIONS)}")
    learn_recorded(data.get("strategy_defaults"))   # its user strategies' defaults: their names shorten
    return data
