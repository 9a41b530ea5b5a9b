"""Analysis of runs: loading what you need into pandas, SQL over the shards, and summaries that
stream.

Statistics (ARCHITECTURE.md: Statistics): means with 95% confidence intervals (normal
approximation over hands, the hand being the unit: a strategy's seats in one hand are averaged
first, since the four nets of a hand are dependent), rates with Wilson intervals.

:func:`summarize`, :func:`run_overview` and :func:`patterns` read a run directory shard by shard
(``simcore.runs.scan``): each chunk gives partial counts, integer sums and moments, combined at the
end, so their memory does not grow with the run. Given a loaded :class:`Run` they compute the
same from its DataFrames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from simcore.runs import SUMMARY_BY, shards as rio
from simcore.runs import tally
from simcore.contract.evaluate import PATTERNS
from simcore.contract.records import END_REASONS, NET_COLUMNS, WIN_KINDS
from strategies.names import POLICY_COLUMNS, seat_columns

Z95 = 1.959963984540054


@dataclass
class Run:
    """A loaded run: its manifest and one DataFrame per table (empty for tables not loaded)."""

    manifest: dict
    hands: pd.DataFrame
    seats: pd.DataFrame
    payments: pd.DataFrame
    wins: pd.DataFrame

    def __getitem__(self, name: str) -> pd.DataFrame:
        return getattr(self, name)


# -- loading --------------------------------------------------------------------------------

_PANDAS_NULLABLE = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                    pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
NULLABLE = rio.NULLABLE  # the columns io.COLUMNS documents as nullable


def to_pandas(table: pa.Table, name: str) -> pd.DataFrame:
    """An Arrow table of the run's table ``name`` as pandas: the nullable integer and boolean
    columns as pandas' nullable types (``Int16``, ``boolean``, ...), as the README documents them,
    never float64 or object; categories as pandas categoricals."""
    df = table.to_pandas()
    for col in NULLABLE.get(name, ()):
        if col in df.columns:
            typ = table.schema.field(col).type
            if typ in _PANDAS_NULLABLE:
                df[col] = table.column(col).to_pandas(types_mapper=_PANDAS_NULLABLE.get)
    return df


def _empty(name: str, columns=None) -> pd.DataFrame:
    return pd.DataFrame({c: [] for c, _, _ in rio.COLUMNS[name] if columns is None or c in columns})


def load(run_dir, tables=None, columns: dict | None = None, filter=None) -> Run:
    """Read a run directory into DataFrames: only complete chunks, only the ``tables`` asked for
    (default all four), only their ``columns`` (a dict table -> column list), with ``filter`` (a
    pyarrow expression, e.g. ``pc.field("hand") < 1000``, or a dict table -> expression) pushed
    down to the shards, so a selection of a big run costs only what it selects. Tables not asked
    for are empty. Raises ValueError with a one-line message for a directory that is not a run
    or holds a corrupt shard.

        run = load("runs/demo", tables=["seats"], columns={"seats": ["hand", "seat", "net"]},
                   filter=pc.field("seat") == 0)
    """
    import pyarrow.dataset as ds

    from simcore.runs.scan import CorruptShardError, read_shard, shard_paths

    run_dir = Path(run_dir)
    manifest = rio.read_manifest(run_dir)
    wanted = list(rio.TABLES) if tables is None else [tables] if isinstance(tables, str) else list(tables)
    unknown = [t for t in wanted if t not in rio.TABLES]
    if unknown:
        raise ValueError(f"unknown table {unknown[0]!r}; a run has {', '.join(rio.TABLES)}")
    frames = {}
    for name in rio.TABLES:
        cols = (columns or {}).get(name)
        if name not in wanted:
            frames[name] = _empty(name, cols)
            continue
        paths = shard_paths(run_dir, name)
        flt = filter.get(name) if isinstance(filter, dict) else filter
        if not paths:
            frames[name] = _empty(name, cols)
            continue
        if flt is None:
            table = pa.concat_tables([read_shard(p, cols, manifest) for p in paths], promote_options="permissive")
        else:
            try:
                table = _filtered(name, paths, cols, flt)
            except (OSError, pa.ArrowInvalid) as exc:
                for p in paths:  # name the corrupt shard if there is one
                    read_shard(p, cols, manifest)
                raise CorruptShardError(f"cannot read {run_dir / name}: {str(exc).splitlines()[0]}") from None
        frames[name] = to_pandas(table, name)
    return Run(manifest, frames["hands"], frames["seats"], frames["payments"], frames["wins"])


def _filtered(name: str, paths, cols, flt) -> pa.Table:
    """The rows of the shards that pass ``flt``, in chunk order. Shards of the current schema are
    read as datasets, the filter pushed down; a shard written before a column was added
    (``shards.LATER_COLUMNS``) is read whole, as ``scan.read_shard`` gives it, then filtered (the
    filter may name a column the shard derives)."""
    import itertools

    import pyarrow.dataset as ds

    from simcore.runs.scan import read_shard

    later = rio.LATER_COLUMNS.get(name, ())
    parts = []
    for current, group in itertools.groupby(paths, key=lambda p: all(c in pq.read_schema(p).names for c in later)):
        group = [str(p) for p in group]
        if current:
            parts.append(ds.dataset(group, format="parquet").to_table(columns=cols, filter=flt))
        else:
            parts += [read_shard(Path(p)).filter(flt).select(cols or [c for c, _, _ in rio.COLUMNS[name]])
                      for p in group]
    return pa.concat_tables(parts, promote_options="permissive")


def _later_select(con, name: str, paths) -> str:
    """The SELECT list of a DuckDB view over shards of several schema versions: every column in
    the current order, a column some shards lack given as they played it (``shards.added_column``:
    0, derived from ``strategy``, or NULL)."""
    schemas = [set(pq.read_schema(p).names) for p in paths]
    present, everywhere = set().union(*schemas), set.intersection(*schemas)
    derived = rio.DERIVED_COLUMNS.get(name, ())
    labels = []
    if any(c not in everywhere for c in derived):
        files = ", ".join(_quote(str(p)) for p in paths)
        labels = [r[0] for r in con.execute(f"SELECT DISTINCT strategy FROM read_parquet([{files}])").fetchall()]
    parts = seat_columns(labels) if labels else {}
    out = []
    for col, typ, _ in rio.COLUMNS[name]:
        if col in everywhere:
            out.append(f'"{col}"')
            continue
        if col in derived:
            i = derived.index(col)
            case = " ".join(f"WHEN {_quote(k)} THEN {_quote(v[i])}" for k, v in parts.items())
            fill = f"CASE strategy {case} END"
        elif col in rio.NULL_COLUMNS.get(name, ()):
            fill = f"NULL::{'DOUBLE' if typ.startswith('float64') else typ.split(',')[0].upper()}"
        else:
            fill = "0"
        out.append(f'coalesce("{col}", {fill}) AS "{col}"' if col in present else f'{fill} AS "{col}"')
    return ", ".join(out)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def sql(run_dir):
    """A DuckDB connection with the views ``hands``, ``seats``, ``payments`` and ``wins`` over
    the run's complete chunks (a half-written or missing chunk is never visible):

        con = simcore.runs.analysis.sql("runs/big")
        con.sql("SELECT strategy, avg(flower_pig::int) FROM seats GROUP BY ALL").df()
    """
    try:
        import duckdb
    except ImportError:
        raise ValueError("SQL needs DuckDB: pip install 'sichuan-sim[sql]' (make setup installs it)") from None
    from simcore.runs.scan import shard_paths

    run_dir = Path(run_dir)
    rio.read_manifest(run_dir)
    con = duckdb.connect()
    for name in rio.TABLES:
        paths = shard_paths(run_dir, name)
        if paths:
            files = ", ".join(_quote(str(p)) for p in paths)
            con.execute(f"CREATE VIEW {name} AS SELECT {_later_select(con, name, paths)} "
                        f"FROM read_parquet([{files}], union_by_name = true)")
        else:
            cols = ", ".join(f"NULL AS {c}" for c, _, _ in rio.COLUMNS[name])
            con.execute(f"CREATE VIEW {name} AS SELECT {cols} WHERE false")
    return con


# -- statistics -----------------------------------------------------------------------------


MIN_NORMAL = 30  # a mean of fewer values is shown with its count, not a normal 95% interval


def mean_ci(values) -> tuple[float, float, float]:
    """(mean, low, high): normal 95% interval of the mean."""
    return Moments.of(np.asarray(values, float)).ci()


def chi2_sf(x: float, k: int) -> float:
    """P(chi-square with k degrees of freedom > x), by Wilson and Hilferty's normal approximation
    (good to a few percent of p down to 1e-6 for k >= 10)."""
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2))


def wilson(k: float, n: float) -> tuple[float, float, float]:
    """(rate, low, high): the Wilson score 95% interval of k successes in n trials; k and n may
    be effective (non-integer) counts. No successes give a low end of exactly 0, all successes
    a high end of exactly 1."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = k / n
    z2 = Z95 * Z95
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = Z95 * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / den
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return (p, lo, hi)


@dataclass
class Moments:
    """Count, mean and sum of squared deviations of a sample, combinable part by part (Chan et
    al.'s pairwise update), so a mean and its interval stream over shards exactly enough."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    @staticmethod
    def of(x: np.ndarray) -> "Moments":
        if len(x) == 0:
            return Moments()
        m = float(x.mean())
        return Moments(len(x), m, float(((x - m) ** 2).sum()))

    def __add__(self, other: "Moments") -> "Moments":
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        d = other.mean - self.mean
        return Moments(n, self.mean + d * other.n / n, self.m2 + other.m2 + d * d * self.n * other.n / n)

    @property
    def var(self) -> float:
        return self.m2 / (self.n - 1) if self.n > 1 else math.nan

    def ci(self) -> tuple[float, float, float]:
        """(mean, low, high), the normal 95% interval of the mean."""
        if self.n == 0:
            return (math.nan, math.nan, math.nan)
        if self.n < 2:
            return (self.mean, math.nan, math.nan)
        half = Z95 * math.sqrt(self.var) / math.sqrt(self.n)
        return (self.mean, self.mean - half, self.mean + half)


# -- columns as numpy ---------------------------------------------------------------------------


def _col(table: pa.Table, name: str, fill=0) -> np.ndarray:
    """A column's values (nulls as ``fill``)."""
    c = table.column(name)
    if c.null_count:
        c = pc.fill_null(c, fill)
    return c.to_numpy()


def _values(table: pa.Table, name: str) -> np.ndarray:
    """A numeric column's values without filling its nulls: what lies under a null is
    unspecified (for columns read only where they are valid)."""
    c = table.column(name)
    if not c.null_count:
        return c.to_numpy()
    a = c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c
    dtype = a.type.to_pandas_dtype()
    return np.frombuffer(a.buffers()[1], dtype, count=len(a), offset=a.offset * np.dtype(dtype).itemsize)


def _flag(table: pa.Table, name: str) -> np.ndarray:
    """A boolean column as int8 codes: 1 true, 0 false, -1 null."""
    c = pc.cast(table.column(name), pa.int8())
    return (pc.fill_null(c, -1) if c.null_count else c).to_numpy()


def codes(column, labels) -> np.ndarray:
    """A string (dictionary) column as indices into ``labels``; -1 for null (-2 for a value not
    among the labels)."""
    c = column
    if not pa.types.is_dictionary(c.type):
        c = pc.dictionary_encode(c)
    out = np.empty(len(c), np.int64)
    pos = 0
    for chunk in (c.chunks if isinstance(c, pa.ChunkedArray) else [c]):
        lut = np.array([labels.index(x) if x in labels else -2 for x in chunk.dictionary.to_pylist()] + [-1],
                       np.int64)
        idx = pc.fill_null(chunk.indices, len(lut) - 1).to_numpy().astype(np.int64)
        out[pos:pos + len(chunk)] = lut[idx]
        pos += len(chunk)
    return out


def _codes(table: pa.Table, name: str, labels) -> np.ndarray:
    return codes(table.column(name), labels)


# -- per-chunk partial results ------------------------------------------------------------------

SEAT_COLUMNS = ["hand", "seat", "strategy", "dealer", "net", "win_kind", "fan", "base", "flower_pig", "ready", *NET_COLUMNS]
DEALER_KEYS = ["dealer", "others"]
WIN_COLUMNS = ["hand", "seat", "base", "paid", *PATTERNS]
HAND_COLUMNS = ["end_reason", "winners", "turns", "tiles_left"]
SELF_DRAWN = np.array([k in ("self_draw", "kong_replacement") for k in WIN_KINDS], np.int64)


@dataclass
class _Group:
    """Partial results of one strategy (or seat): ``tally.seat_tally``'s counters, net moments
    over hands, the net-by-reason sums, and the wins' counts and sums (``tally.win_tally``)."""

    hands: int = 0
    net: Moments = field(default_factory=Moments)
    counters: np.ndarray = field(default_factory=lambda: np.zeros(tally.N_SEAT_COUNTERS, np.int64))
    reasons: np.ndarray = field(default_factory=lambda: np.zeros(len(NET_COLUMNS), np.int64))
    win_sums: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))  # wins, base, paid
    pattern_counts: np.ndarray = field(default_factory=lambda: np.zeros(len(PATTERNS), np.int64))

    def __add__(self, o: "_Group") -> "_Group":
        return _Group(self.hands + o.hands, self.net + o.net, self.counters + o.counters, self.reasons + o.reasons,
                      self.win_sums + o.win_sums, self.pattern_counts + o.pattern_counts)

    def __getattr__(self, name):  # the counters by name: g.wins, g.pigs, ...
        i = _COUNTER_NAMES.get(name)
        if i is None:
            raise AttributeError(name)
        return int(self.counters[i])


_COUNTER_NAMES = {"seat_hands": tally.T_SEAT_HANDS, "wins": tally.T_WINS, "self_drawn": tally.T_SELF_DRAWN,
                  "fan": tally.T_FAN, "base": tally.T_BASE, "pigs": tally.T_PIGS, "checked": tally.T_CHECKED,
                  "ready": tally.T_READY, "ready_checked": tally.T_READY_CHECKED}


@dataclass
class _Overview:
    hands: int = 0
    ends: np.ndarray = field(default_factory=lambda: np.zeros(len(END_REASONS), np.int64))
    winners: np.ndarray = field(default_factory=lambda: np.zeros(5, np.int64))
    turns: int = 0
    tiles_left: int = 0

    def __add__(self, o: "_Overview") -> "_Overview":
        return _Overview(self.hands + o.hands, self.ends + o.ends, self.winners + o.winners, self.turns + o.turns,
                         self.tiles_left + o.tiles_left)


def _group_keys(seats: pa.Table, by: str) -> tuple[np.ndarray, list]:
    """Each seat row's group index and the groups' keys, sorted."""
    if by == "dealer":
        return np.where(_flag(seats, "dealer") == 1, 0, 1).astype(np.int64), list(DEALER_KEYS)
    if by == "seat":
        s = _col(seats, "seat").astype(np.int64)
        keys = np.unique(s).tolist()
        return np.searchsorted(np.array(keys), s), keys
    c = seats.column(by)
    if pa.types.is_dictionary(c.type):  # the dictionary holds the values (a group may be empty)
        values = {v for chunk in c.chunks for v in chunk.dictionary.to_pylist()}
    else:
        values = set(pc.unique(c).to_pylist())
    keys = sorted(v for v in values if v is not None)
    return _codes(seats, by, keys), keys


def _dictionary(table: pa.Table, name: str, labels) -> tuple[np.ndarray, np.ndarray]:
    """A string column as (its dictionary indices, the codes in ``labels`` of its dictionary):
    what lies under a null index is unspecified (read only where the column is valid)."""
    c = table.column(name)
    if pa.types.is_dictionary(c.type) and c.num_chunks > 1:
        c = c.unify_dictionaries()
    chunk = c.combine_chunks()
    if not pa.types.is_dictionary(chunk.type):
        chunk = pc.dictionary_encode(chunk)
    lut = np.array([labels.index(x) if x in labels else 0 for x in chunk.dictionary.to_pylist()] + [0], np.int64)
    idx = chunk.indices
    values = np.frombuffer(idx.buffers()[1], idx.type.to_pandas_dtype(), count=len(idx), offset=idx.offset)
    return values, lut


def _seat_partial(seats: pa.Table, wins: pa.Table | None, by: str, seat_labels=None) -> dict:
    """{key: _Group} of one chunk's seats (and wins, for the patterns). A hand's four seats
    are in one chunk, so each hand's mean over a strategy's seats is exact here. With
    ``seat_labels`` (a run directory's shards) the rows are in hand then seat order, four a
    hand, as ``io.write_shards`` writes them, so neither the hand nor the seat column is read."""
    n = seats.num_rows
    if seat_labels is not None:
        keys = sorted(set(seat_labels)) if by != "seat" else list(range(4))
        of_seat = np.array([keys.index(x) for x in seat_labels] if by != "seat" else range(4), np.int64)
        hi = np.arange(n, dtype=np.int64) // 4
        gi = of_seat[np.arange(n, dtype=np.int64) % 4]
        n_hands = n // 4
    else:
        gi, keys = _group_keys(seats, by)
        hand = _col(seats, "hand").astype(np.int64)
        h0 = int(hand.min()) if n else 0
        hi = hand - h0
        n_hands = int(hi.max()) + 1 if n else 0
    n_groups = len(keys)
    sums = np.zeros(n_hands * n_groups, np.float64)
    counts = np.zeros(n_hands * n_groups, np.int64)
    out = np.zeros((n_groups, tally.N_SEAT_COUNTERS), np.int64)
    out_reasons = np.zeros((n_groups, len(NET_COLUMNS)), np.int64)
    reasons = tuple(_col(seats, c).astype(np.int32, copy=False) for c in NET_COLUMNS)
    won = seats.column("fan").is_valid().to_numpy()  # a first win's fan is there exactly when the seat won
    kind, kind_code = _dictionary(seats, "win_kind", list(WIN_KINDS))
    tally.seat_tally(hi, gi, n_groups, _col(seats, "net"), won, kind, kind_code, SELF_DRAWN, _values(seats, "fan"),
                     _values(seats, "base"), _flag(seats, "flower_pig"), _flag(seats, "ready"), reasons, sums, counts,
                     out, out_reasons)
    win_out = np.zeros((n_groups, 3), np.int64)
    pat_out = np.zeros((n_groups, len(PATTERNS)), np.int64)
    if wins is not None and wins.num_rows:
        if seat_labels is not None:
            wg = of_seat[_col(wins, "seat").astype(np.int64)]
        else:
            lookup = np.full(n_hands * 4, -1, np.int64)
            lookup[hi * 4 + _col(seats, "seat").astype(np.int64)] = gi
            wg = lookup[(_col(wins, "hand").astype(np.int64) - h0) * 4 + _col(wins, "seat").astype(np.int64)]
        tally.win_tally(wg, _col(wins, "base"), _col(wins, "paid"),
                        tuple(_col(wins, p).astype(np.int8, copy=False) for p in PATTERNS), win_out, pat_out)
    parts = {}
    for j, key in enumerate(keys):
        c = counts[j::n_groups]
        present = c > 0
        parts[key] = _Group(int(present.sum()), Moments.of(sums[j::n_groups][present] / c[present]), out[j],
                            out_reasons[j], win_out[j], pat_out[j])
    return parts


def _hand_partial(hands: pa.Table) -> _Overview:
    ends = _codes(hands, "end_reason", list(END_REASONS))
    winners = _col(hands, "winners").astype(np.int64)
    return _Overview(hands.num_rows, np.bincount(ends[ends >= 0], minlength=len(END_REASONS)),
                     np.bincount(winners, minlength=5)[:5], int(_col(hands, "turns").astype(np.int64).sum()),
                     int(_col(hands, "tiles_left").astype(np.int64).sum()))


# -- summaries stored with the shards ------------------------------------------------------------
#
# The runner stores each chunk's tallies in its hands shard's footer (``batch_summary``), so a
# summary reads footers, not columns; a chunk without them (a run written before they existed)
# is scanned. Both give the same numbers: the same counts, and moments of the same per-hand
# values in the same order.

SUMMARY_VERSION = 2   # 2: the kong_transfer reason and the kong_discard and self_draw patterns


def batch_summary(res, seat_labels) -> dict:
    """A chunk's summary tallies (JSON-ready) from the engine's results: per seat the counters,
    reason sums, win sums and pattern counts, and the moments of its net over hands; per
    strategy the moments of its seats' mean net per hand; the hands' overview."""
    n = res.hand.shape[0]
    nets = np.zeros((n, 4), np.float64)
    out = np.zeros((4, tally.N_SEAT_COUNTERS), np.int64)
    out_reasons = np.zeros((4, len(NET_COLUMNS)), np.int64)
    win_out = np.zeros((4, 3), np.int64)
    pat_out = np.zeros((4, len(PATTERNS)), np.int64)
    ends = np.zeros(len(END_REASONS), np.int64)
    winners = np.zeros(5, np.int64)
    sums = np.zeros(2, np.int64)
    from simcore.contract.records import H_N_WINS

    tally.batch_tally(res.seat, res.win, np.ascontiguousarray(res.hand[:, H_N_WINS]), res.hand, nets, out,
                      out_reasons, win_out, pat_out, ends, winners, sums)
    strategies = {}
    for key in sorted(set(seat_labels)):
        mine = [s for s in range(4) if seat_labels[s] == key]
        per_hand = nets[:, mine[0]].copy()
        for s in mine[1:]:  # in seat order, as a scan accumulates them
            per_hand += nets[:, s]
        m = Moments.of(per_hand / len(mine))
        strategies[key] = [m.n, m.mean, m.m2]
    seats = []
    for s in range(4):
        m = Moments.of(nets[:, s])
        seats.append({"net": [m.n, m.mean, m.m2], "counters": out[s].tolist(), "reasons": out_reasons[s].tolist(),
                      "wins": win_out[s].tolist(), "patterns": pat_out[s].tolist()})
    return {"version": SUMMARY_VERSION, "hands": n, "seats": seats, "strategies": strategies,
            "overview": {"ends": ends.tolist(), "winners": winners.tolist(), "turns": int(sums[0]),
                         "tiles_left": int(sums[1])}}


def _stored_partial(summary: dict, by: str, seat_labels) -> tuple[dict, _Overview] | None:
    """The tallies of :func:`batch_summary` as the scan's partial results (None if the summary
    is of another version)."""
    if not isinstance(summary, dict) or summary.get("version") not in (1, SUMMARY_VERSION):
        return None
    seats = summary["seats"]
    if summary["version"] == 1:  # before the tfmj options: those runs paid no transfer and scored neither pattern
        at = PATTERNS.index("kong_discard")
        seats = [dict(s, reasons=s["reasons"] + [0], patterns=s["patterns"][:at] + [0, 0] + s["patterns"][at:])
                 for s in seats]
    n = summary["hands"]

    def group(seat_ids, net) -> _Group:
        g = _Group(n, Moments(*net))
        for s in seat_ids:
            g = g + _Group(0, Moments(), np.array(seats[s]["counters"], np.int64),
                           np.array(seats[s]["reasons"], np.int64), np.array(seats[s]["wins"], np.int64),
                           np.array(seats[s]["patterns"], np.int64))
        return g

    if by == "seat":
        groups = {s: group([s], seats[s]["net"]) for s in range(4)}
    else:
        groups = {k: group([s for s in range(4) if seat_labels[s] == k], summary["strategies"][k])
                  for k in sorted(set(seat_labels))}
    o = summary["overview"]
    return groups, _Overview(n, np.array(o["ends"], np.int64), np.array(o["winners"], np.int64), o["turns"],
                             o["tiles_left"])


def _merge(total: dict, part: dict) -> dict:
    for k, v in part.items():
        total[k] = total[k] + v if k in total else v
    return total


def _ratio(a: int, b: int) -> float:
    return a / b if b else math.nan


@dataclass
class Totals:
    """A run's combined partial results, per strategy (or seat) and for the whole run, and the
    summary tables computed from them."""

    by: str
    groups: dict
    overview_: _Overview

    def summary(self) -> pd.DataFrame:
        """See :func:`summarize`."""
        rows = []
        for key in sorted(self.groups):
            g = self.groups[key]
            if not g.seat_hands:
                continue
            mean, lo, hi = g.net.ci()
            pr, plo, phi = wilson(g.pigs, g.seat_hands)
            cr, clo, chi = wilson(g.pigs, g.checked)
            row = {
                self.by: key,
                "hands": g.hands,
                "seat_hands": g.seat_hands,
                "mean_net": mean, "net_low": lo, "net_high": hi,
                "win_rate": _ratio(g.wins, g.seat_hands),
                "self_draw_share": _ratio(g.self_drawn, g.wins),
                "mean_fan": _ratio(g.fan, g.wins),
                "mean_base": _ratio(g.base, g.wins),
                "pigs": int(g.pigs), "checked": int(g.checked),
                "pig_rate": pr, "pig_low": plo, "pig_high": phi,
                "pig_rate_checked": cr, "pig_checked_low": clo, "pig_checked_high": chi,
                "ready_rate": _ratio(g.ready, g.ready_checked),
            }
            for i, r in enumerate(NET_COLUMNS):
                row[r] = _ratio(int(g.reasons[i]), g.seat_hands)
            rows.append(row)
        return pd.DataFrame(rows)

    def overview(self) -> dict:
        """See :func:`run_overview`."""
        o = self.overview_
        n = o.hands
        return {
            "hands": n,
            "end_reasons": {END_REASONS[i]: int(o.ends[i]) / n for i in np.argsort(END_REASONS) if o.ends[i]}
            if n else {},
            "winners_per_hand": {i: int(o.winners[i]) / n for i in range(len(o.winners)) if o.winners[i]} if n else {},
            "mean_turns": o.turns / n if n else math.nan,
            "mean_tiles_left": o.tiles_left / n if n else math.nan,
        }

    def patterns(self) -> pd.DataFrame:
        """See :func:`patterns`."""
        rows = []
        for key in sorted(self.groups):
            g = self.groups[key]
            wins, base, paid = (int(x) for x in g.win_sums)
            if not wins:
                continue
            row = {self.by: key, "wins": wins, "mean_base": base / wins, "mean_paid": paid / wins}
            for i, p in enumerate(PATTERNS):
                row[p] = int(g.pattern_counts[i]) / wins
            rows.append(row)
        return pd.DataFrame(rows)


def group_labels(strategies, by: str) -> list:
    """What each of a run's four seats (their recorded strategies) is grouped under ``by``: the
    strategy, the seat, or one of its parts (``strategies.names.seat_columns``, as the seats table
    holds them); None by dealer (that changes from hand to hand)."""
    if by == "strategy":
        return list(strategies)
    if by in POLICY_COLUMNS:
        parts = seat_columns(strategies)
        return [parts[s][POLICY_COLUMNS.index(by)] for s in strategies]
    return list(range(4)) if by == "seat" else None


def totals(run, by: str = "strategy", threads: int | None = None) -> Totals:
    """A run directory streamed shard by shard (or a loaded :class:`Run`) into :class:`Totals`."""
    if by not in SUMMARY_BY:
        raise ValueError(f"by must be one of {', '.join(SUMMARY_BY)}, not {by!r}")
    groups: dict = {}
    overview = _Overview()
    if isinstance(run, Run):
        tables = {name: pa.Table.from_pandas(run[name][[c for c in cols if c in run[name]]], preserve_index=False)
                  for name, cols in (("seats", list(dict.fromkeys(SEAT_COLUMNS + [by]))), ("wins", WIN_COLUMNS), ("hands", HAND_COLUMNS))}
        if tables["seats"].num_rows:
            groups = _seat_partial(tables["seats"], tables["wins"], by)
        if tables["hands"].num_rows:
            overview = _hand_partial(tables["hands"])
        return Totals(by, groups, overview)
    from simcore.runs.scan import check_footers, scan

    manifest = rio.read_manifest(run)
    labels = group_labels(manifest["config"]["seats"], by)  # a run's seat s plays the same strategy every hand
    # every shard's footer is read (a corrupt shard of any table is reported); the hands shard's
    # holds the chunk's stored tallies (by strategy and by seat)
    by_row = by == "dealer"   # the group changes from hand to hand: no stored tallies, read by hand and seat
    to_scan = []
    for c, meta in check_footers(run, manifest).items():
        stored = None if by_row or by not in ("strategy", "seat") else _stored_partial(meta.get("summary"), by, labels)
        if stored is None:
            to_scan.append(c)
        else:
            _merge(groups, stored[0])
            overview = overview + stored[1]

    def one(chunk, t):
        return _seat_partial(t["seats"], t["wins"], by, None if by_row else labels), _hand_partial(t["hands"])

    cols = {"seats": [c for c in SEAT_COLUMNS if by_row or c not in ("hand", "seat", "strategy", "dealer")],
            "wins": [c for c in WIN_COLUMNS if by_row or c != "hand"], "hands": HAND_COLUMNS}
    for g, o in scan(run, cols, one, threads=threads, manifest=manifest, only=to_scan):
        _merge(groups, g)
        overview = overview + o
    return Totals(by, groups, overview)


# -- summaries ----------------------------------------------------------------------------------


def summarize(run, by: str = "strategy") -> pd.DataFrame:
    """One row per strategy (or seat): hands, mean net per hand with a 95% interval; of first
    wins the win rate, self-draw share (kong replacements included), mean fan and base (the
    ``mean_base`` of :func:`patterns` is of all wins); flower-pig rate (per seat-hand and per
    checked seat-hand, Wilson), ready-at-draw rate, and mean net by reason. ``run`` is a run
    directory (read shard by shard) or a loaded :class:`Run`."""
    return totals(run, by).summary()


def run_overview(run) -> dict:
    """End reasons and the distribution of winners per hand (shares of hands)."""
    return totals(run).overview()


def patterns(run, by: str = "strategy") -> pd.DataFrame:
    """Per strategy (or seat): wins (every win, not only first ones), the share of wins with each
    pattern, the mean base and the mean amount paid per win."""
    return totals(run, by).patterns()


NET_REASONS = NET_COLUMNS  # the seats table's net-by-reason columns
